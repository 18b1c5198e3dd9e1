"""The ``ragspine`` command line: quickstart, demo, init, load-fixtures, ingest, review, ask.

Every command runs inside one error wrapper (:func:`guarded`): a ``RagSpineError`` ends with
``error: <message>`` on stderr and the exit code from ``ragspine.errors`` (0 success, 1 the
work ran but failed, 2 usage or missing input), so scripts can rely on the codes.
"""

from __future__ import annotations

import functools
import io
import json
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, replace
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, ParamSpec

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.text import Text

from ragspine.agent.agent import KIND_DEGRADED, AgentResult
from ragspine.agent.llm_provider import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL,
    AnthropicProvider,
    LLMProvider,
    MockProvider,
    OpenAIProvider,
)
from ragspine.agent.response import to_response
from ragspine.demo.fixtures import load_quickstart_facts
from ragspine.demo.quickstart import QUICKSTART_REFERENCE_DATE, TRY_QUESTION, run_quickstart
from ragspine.demo.tour import DEMO_REFERENCE_DATE, build_demo_workspace, run_demo
from ragspine.errors import RagSpineError, ReviewError, StoreError, UsageError, mapping_for
from ragspine.eval.gates import check_baseline, ratchet_baseline
from ragspine.eval.gates import render_report as render_golden
from ragspine.eval.golden import ask_with, load_golden, run_golden_eval
from ragspine.eval.retrieval_eval import load_eval_set, render_report, run_retrieval_eval
from ragspine.facade import RAGSpine
from ragspine.ingest_console import (
    demo_table,
    ingest_with_progress,
    print_report,
    print_review_list,
)
from ragspine.ingestion import review
from ragspine.ingestion.pipeline import FileResult, discover
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.retriever import open_retriever
from ragspine.storage.documents import ReviewState
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.workspace import DB_NAME, Workspace

P = ParamSpec("P")

app = typer.Typer(
    name="ragspine",
    help="Exact numbers with their source, or an honest 'not found'.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ProviderName(StrEnum):
    MOCK = "mock"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


def guarded(func: Callable[P, None]) -> Callable[P, None]:
    """Turn a ``RagSpineError`` into ``error: <message>`` on stderr and its mapped exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            func(*args, **kwargs)
        except RagSpineError as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(mapping_for(err).exit_code) from None

    return wrapper


def _command(name: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    def register(func: Callable[P, None]) -> Callable[P, None]:
        return app.command(name)(guarded(func))

    return register


def build_provider(
    name: ProviderName, *, model: str | None = None, base_url: str | None = None
) -> LLMProvider:
    """The provider ``--provider`` names; a missing SDK is a usage error naming the extra."""
    if name is ProviderName.MOCK:
        if model or base_url:
            raise UsageError("--model and --base-url apply only to --provider openai or anthropic")
        return MockProvider()
    try:
        if name is ProviderName.OPENAI:
            return OpenAIProvider(model or DEFAULT_OPENAI_MODEL, base_url=base_url)
        return AnthropicProvider(model or DEFAULT_ANTHROPIC_MODEL, base_url=base_url)
    except ImportError as err:
        raise UsageError(str(err)) from err


def parse_reference_date(raw: str | None) -> date | None:
    if raw is None:
        return None
    try:
        return datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--reference-date {raw!r} is not a date; use YYYY-MM-DD") from None


def parse_clearance(raw: str) -> Sensitivity:
    try:
        return Sensitivity.parse(raw)
    except ValueError as err:
        raise UsageError(f"--clearance: {err}") from None


def use_utf8_output() -> None:
    """Write UTF-8 whatever the locale says, so Chinese answers never fail to print."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")


WorkspaceOption = Annotated[
    Path, typer.Option("--workspace", "-w", help="Workspace folder (holds ragspine.db).")
]


@_command("quickstart")
def quickstart() -> None:
    """Answer sample questions over the built-in example facts: offline, nothing to set up."""
    run = run_quickstart()
    console = Console(highlight=False)
    console.print(
        Text.assemble(
            ("RAGSpine quickstart", "bold"),
            f" — {run.facts_loaded} example facts in a temporary workspace, offline mock "
            f"model, reference date {QUICKSTART_REFERENCE_DATE.isoformat()}",
        )
    )
    for number, (showcase, result) in enumerate(run.answers, start=1):
        body = Group(
            Text(f"Q: {showcase.question}", style="bold"),
            Text(result.answer),
            Text(_sources_text(result), style="dim"),
        )
        console.print(
            Panel(
                body,
                title=f"{number}. {showcase.title}",
                title_align="left",
                subtitle=f"answer_kind: {result.answer_kind}",
                subtitle_align="right",
            )
        )
    console.print("Try your own questions over the same facts:")
    console.print("  ragspine init --workspace ws")
    console.print("  ragspine load-fixtures --workspace ws")
    console.print(f'  ragspine ask "{TRY_QUESTION}" --workspace ws')


def _sources_text(result: AgentResult) -> str:
    if not result.sources:
        return "sources: none"
    return "\n".join(f"source: {s['doc']} · {s['locator']}" for s in result.sources)


@_command("demo")
def demo(
    workspace: Annotated[
        Path, typer.Option("--workspace", "-w", help="Where to build the demo workspace.")
    ] = Path("demo-workspace"),
) -> None:
    """Generate the example demo corpus, ingest it, and answer scripted questions offline."""
    console = Console(highlight=False)
    with Progress(
        TextColumn("[bold]demo"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("generating the corpus", total=None)

        def advance(result: FileResult) -> None:
            progress.update(task, advance=1, description=result.doc_id)

        run = run_demo(workspace, on_file=advance)
    console.print(f"Corpus: {run.corpus}  ·  workspace: {workspace}")
    print_report(run.report, console)
    console.print(demo_table(run, DEMO_REFERENCE_DATE))
    console.print(f'Ask your own: ragspine ask "<question>" --workspace {workspace}')


@_command("init")
def init(workspace: WorkspaceOption) -> None:
    """Create a workspace folder with an empty fact store (safe to run again)."""
    ws = Workspace.create(workspace)
    with ws.fact_store() as store:
        count = store.count_facts()
    typer.echo(f"Workspace ready at {ws.root} ({count} facts).")


@_command("load-fixtures")
def load_fixtures(workspace: WorkspaceOption) -> None:
    """Load the quickstart example facts into an existing workspace, to try `ask` right away."""
    ws = Workspace.open(workspace)
    with ws.fact_store() as store:
        count = load_quickstart_facts(store)
    typer.echo(f"Loaded {count} example facts into {ws.root}.")


@_command("ask")
def ask(
    question: Annotated[str, typer.Argument(help="The question, in Chinese or English.")],
    workspace: WorkspaceOption,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (the HTTP AskResponse shape).")
    ] = False,
    provider: Annotated[
        ProviderName, typer.Option(help="LLM provider; mock is offline and deterministic.")
    ] = ProviderName.MOCK,
    model: Annotated[str | None, typer.Option(help="Model name for openai or anthropic.")] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="Endpoint of an OpenAI-compatible server (vLLM, llama.cpp, Ollama)."),
    ] = None,
    reference_date: Annotated[
        str | None,
        typer.Option(help="Today's date for 'latest year' questions, YYYY-MM-DD."),
    ] = None,
    clearance: Annotated[
        str, typer.Option(help="Highest sensitivity the answer may use.")
    ] = DEFAULT_CLEARANCE.value,
    dense: Annotated[
        str | None,
        typer.Option(help="Add dense retrieval: 'hashing', 'minilm' or a model path/name."),
    ] = None,
    rerank: Annotated[
        bool, typer.Option("--rerank", help="Let the provider reorder retrieved passages.")
    ] = False,
) -> None:
    """Answer one question from a workspace's facts and documents, and list the sources."""
    day = parse_reference_date(reference_date)
    level = parse_clearance(clearance)
    llm = build_provider(provider, model=model, base_url=base_url)
    with RAGSpine.open(workspace, provider=llm, clearance=level, dense=dense, rerank=rerank) as rag:
        result = rag.ask(question, reference_date=day)
    if json_output:
        typer.echo(json.dumps(to_response(result).model_dump(), ensure_ascii=False))
    else:
        typer.echo(result.answer)
        typer.echo(_plain_sources(result))
    if result.answer_kind == KIND_DEGRADED:
        raise typer.Exit(1)


def _plain_sources(result: AgentResult) -> str:
    if not result.sources:
        return "\nSources: none"
    lines = [f"  - {s['doc']} · {s['locator']}" for s in result.sources]
    return "\n".join(["", "Sources:", *lines])


@_command("ingest")
def ingest_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (pptx, xlsx, pdf, docx, md, txt).")
    ],
    workspace: WorkspaceOption,
    profile: Annotated[
        Path | None,
        typer.Option(help="Domain profile TOML to install in the workspace before ingesting."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Read and map everything; write nothing.")
    ] = False,
) -> None:
    """Turn documents into facts, text blocks and review items (unchanged files are skipped)."""
    console = Console(stderr=False, highlight=False)
    # Inputs are checked before anything is created: a typo must not leave an empty workspace.
    files = discover(paths)
    chosen = load_profile(profile) if profile else None
    if dry_run:
        prof = chosen or Workspace(workspace).profile()
        with _dry_run_store(Workspace(workspace)) as store:
            report = replace(
                ingest_with_progress(files, store, prof, console=console), dry_run=True
            )
    else:
        ws = Workspace.create(workspace)
        prof = ws.install_profile(profile) if profile else ws.profile()
        with ws.fact_store() as store:
            report = ingest_with_progress(files, store, prof, console=console)
    print_report(report, console)
    if report.failures:
        raise typer.Exit(1)


@contextmanager
def _dry_run_store(workspace: Workspace) -> Iterator[SQLiteWorkspaceStore]:
    """A throwaway copy of the workspace's store (empty when there is none yet).

    The dry run does the real work on the copy, so its summary is what a real run would report
    — conflicts between files of the same batch included — while the workspace stays untouched.
    """
    with tempfile.TemporaryDirectory(prefix="ragspine-dry-run-") as tmp:
        scratch = Path(tmp) / DB_NAME
        if workspace.db_path.is_file():
            try:
                with (
                    closing(sqlite3.connect(workspace.db_path)) as source,
                    closing(sqlite3.connect(scratch)) as target,
                ):
                    source.backup(target)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot copy {workspace.db_path} for a dry run: {exc}") from exc
        with SQLiteWorkspaceStore(scratch) as store:
            store.init_schema()
            yield store


review_app = typer.Typer(
    help="List, inspect, approve or reject review items.", no_args_is_help=True
)
app.add_typer(review_app, name="review")


def _command_in(group: typer.Typer, name: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    def register(func: Callable[P, None]) -> Callable[P, None]:
        return group.command(name)(guarded(func))

    return register


class ReviewFilter(StrEnum):
    OPEN = "open"
    APPROVED = "approved"
    REJECTED = "rejected"
    ALL = "all"


@_command_in(review_app, "list")
def review_list(
    workspace: WorkspaceOption,
    state: Annotated[ReviewFilter, typer.Option(help="Which items to list.")] = ReviewFilter.OPEN,
) -> None:
    """List review items (open ones by default)."""
    with Workspace.open(workspace).fact_store() as store:
        items = store.list_review(None if state is ReviewFilter.ALL else ReviewState(state.value))
    print_review_list(items, Console(highlight=False))


@_command_in(review_app, "show")
def review_show(
    item_id: Annotated[int, typer.Argument(help="Review item id.")], workspace: WorkspaceOption
) -> None:
    """Show one review item with its proposed fact and audit trail."""
    with Workspace.open(workspace).fact_store() as store:
        item = store.get_review(item_id)
        if item is None:
            raise ReviewError(f"no review item {item_id}")
        audit = store.audit_log(item_id)
    typer.echo(json.dumps(asdict(item), ensure_ascii=False, indent=2, default=str))
    for entry in audit:
        typer.echo(f"{entry.at} {entry.action}: {entry.detail}")


@_command_in(review_app, "approve")
def review_approve(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: WorkspaceOption,
    correct: Annotated[
        float | None, typer.Option(help="Approve with this value instead of the proposed one.")
    ] = None,
) -> None:
    """Approve an item: its fact becomes visible (conflicting facts are retired)."""
    with Workspace.open(workspace).fact_store() as store:
        item, changed = review.approve(store, item_id, correct=correct)
    typer.echo(f"item {item.item_id}: approved" + ("" if changed else " (already approved)"))


@_command_in(review_app, "reject")
def review_reject(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: WorkspaceOption,
    note: Annotated[str, typer.Option(help="Why it was rejected (kept in the audit log).")] = "",
) -> None:
    """Reject an item: nothing is written to the facts."""
    with Workspace.open(workspace).fact_store() as store:
        item, changed = review.reject(store, item_id, note=note)
    typer.echo(f"item {item.item_id}: rejected" + ("" if changed else " (already rejected)"))


eval_app = typer.Typer(
    help="Measure answer quality on the golden set (default) or retrieval quality.",
    invoke_without_command=True,
)
app.add_typer(eval_app, name="eval")


@eval_app.callback()
@guarded
def eval_golden(
    ctx: typer.Context,
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace", "-w", help="A demo workspace; built in a temporary folder if omitted."
        ),
    ] = None,
    golden: Annotated[
        Path | None, typer.Option(help="A JSONL golden set; the shipped set by default.")
    ] = None,
    provider: Annotated[
        ProviderName, typer.Option(help="LLM provider; mock is offline and deterministic.")
    ] = ProviderName.MOCK,
    model: Annotated[str | None, typer.Option(help="Model name for openai or anthropic.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Endpoint of an OpenAI-compatible server.")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    baseline: Annotated[
        Path | None, typer.Option(help="Baseline JSON; the shipped baseline by default.")
    ] = None,
    update_baseline: Annotated[
        bool, typer.Option("--update-baseline", help="Raise the baseline to this run's scores.")
    ] = False,
    allow_lower: Annotated[
        bool, typer.Option("--allow-lower", help="With --update-baseline: also lower it.")
    ] = False,
) -> None:
    """The four gates (numeric, citation, refusal, clarification), fabrication count, narrative
    recall and per-tag breakdowns; exits 1 on a regression against the baseline."""
    if ctx.invoked_subcommand is not None:
        return
    if allow_lower and not update_baseline:
        raise UsageError("--allow-lower only applies together with --update-baseline")
    cases = load_golden(golden)
    llm = build_provider(provider, model=model, base_url=base_url)
    with tempfile.TemporaryDirectory(prefix="ragspine-eval-") as tmp:
        if workspace is None:
            workspace = Path(tmp) / "ws"
            build_demo_workspace(workspace)
        with ask_with(workspace, llm) as asker:
            report = run_golden_eval(asker, cases)
    if json_output:
        typer.echo(report.to_json())
    else:
        Console(highlight=False).print(render_golden(report))
    if update_baseline:
        ratchet_baseline(report, baseline, allow_lower=allow_lower)
    regressions = check_baseline(report, baseline)
    for line in regressions:
        typer.echo(f"regression: {line}", err=True)
    if regressions:
        raise typer.Exit(1)


@_command_in(eval_app, "retrieval")
def eval_retrieval(
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace", "-w", help="A demo workspace; built in a temporary folder if omitted."
        ),
    ] = None,
    eval_set: Annotated[
        Path | None, typer.Option(help="A JSONL eval set; the shipped bilingual set by default.")
    ] = None,
    dense: Annotated[
        str | None, typer.Option(help="Add the dense channel: 'hashing', 'minilm' or a model.")
    ] = None,
    k: Annotated[int, typer.Option(help="Cut-off for recall@k and nDCG@k.")] = 10,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Recall@k, MRR and nDCG@k of narrative retrieval on the bilingual eval set."""
    queries = load_eval_set(eval_set)
    with tempfile.TemporaryDirectory(prefix="ragspine-eval-") as tmp:
        if workspace is None:
            workspace = Path(tmp) / "ws"
            build_demo_workspace(workspace)
        ws = Workspace.open(workspace)
        retriever = open_retriever(ws, dense=dense)
        report = run_retrieval_eval(retriever, queries, k=k, profile=ws.profile())
    if json_output:
        typer.echo(report.to_json())
    else:
        Console(highlight=False).print(render_report(report))
    if not report.passed:
        raise typer.Exit(1)


def main() -> None:
    """Console-script entry point (``ragspine``)."""
    use_utf8_output()
    app()


if __name__ == "__main__":
    main()
