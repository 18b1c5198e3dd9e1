"""The ``ragspine eval`` group: answer quality on the golden set, and retrieval quality."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetIndexOption,
    TargetSchemaOption,
    choose_target,
    command_in,
    guarded,
)
from ragspine.demo.corpus import generate_corpus
from ragspine.demo.tour import CORPUS_DIR, build_demo_workspace
from ragspine.errors import UsageError
from ragspine.eval.baseline import check_baseline, ratchet_baseline
from ragspine.eval.cases import Split, load_golden
from ragspine.eval.report import EvalRun, render_run
from ragspine.eval.retrieval_eval import load_eval_set, render_report, run_retrieval_eval
from ragspine.eval.runner import ServerAsker, WorkspaceAsker, ask_with, run_golden_eval, run_splits
from ragspine.facade import RAGSpine, ServerRAGSpine
from ragspine.llm.factory import ProviderName, build_provider
from ragspine.retrieval.retriever import open_retriever
from ragspine.workspace import Workspace

eval_app = typer.Typer(
    help="Measure answer quality on the golden set (default) or retrieval quality.",
    invoke_without_command=True,
)


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
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    index_dir: TargetIndexOption = None,
    golden: Annotated[
        Path | None,
        typer.Option(help="A JSONL golden set of your own, instead of the shipped splits."),
    ] = None,
    split: Annotated[
        list[Split] | None,
        typer.Option(help="Shipped split(s) to run: dev, regression, heldout (default: all)."),
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
    show_heldout_cases: Annotated[
        bool,
        typer.Option(
            "--show-heldout-cases",
            help="Also show the held-out split's cases (tags, failures); refused when CI is set.",
        ),
    ] = False,
) -> None:
    """The four gates (numeric, citation, refusal, clarification), fabrication count, narrative
    recall and per-tag breakdowns, for the dev, regression and held-out splits side by side
    (the held-out split as aggregates only); exits 1 on a regression against the baseline."""
    if ctx.invoked_subcommand is not None:
        return
    if allow_lower and not update_baseline:
        raise UsageError("--allow-lower only applies together with --update-baseline")
    if show_heldout_cases and _in_ci():
        raise UsageError(
            "--show-heldout-cases is refused when CI is set: held-out cases are never printed in CI"
        )
    if golden is not None and split:
        raise UsageError("--golden and --split do not combine: a custom set has no splits")
    custom = load_golden(golden) if golden is not None else None
    llm = build_provider(provider, model=model, base_url=base_url)
    with tempfile.TemporaryDirectory(prefix="ragspine-eval-") as tmp:
        target = _target(workspace, database_url, schema, index_dir, Path(tmp))
        asker: WorkspaceAsker = (
            ask_with(target, llm)
            if isinstance(target, Path)
            else ServerAsker(
                target.url, schema=target.schema, index_dir=target.index_dir, provider=llm
            )
        )
        with asker:
            if custom is not None:
                run = EvalRun({"custom": run_golden_eval(asker, custom)})
            else:
                run = run_splits(asker, split or tuple(Split))
    if json_output:
        typer.echo(run.to_json(reveal_held_out=show_heldout_cases))
    else:
        Console(highlight=False).print(render_run(run, reveal_held_out=show_heldout_cases))
    if update_baseline:
        ratchet_baseline(run, baseline, allow_lower=allow_lower)
    regressions = check_baseline(run, baseline)
    for line in regressions:
        typer.echo(f"regression: {line}", err=True)
    if regressions:
        raise typer.Exit(1)


def _in_ci() -> bool:
    """``CI`` set to ``true`` (any case) or ``1``, as CI services set it."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1"}


def _target(
    workspace: Path | None,
    database_url: str | None,
    schema: str | None,
    index_dir: Path | None,
    scratch: Path,
) -> Path | ServerTarget:
    """The demo workspace or database the options name, with the demo corpus in it; with
    neither option, a demo workspace built in ``scratch``. A database holding no documents
    gets the demo corpus ingested first."""
    if workspace is None and database_url is None:
        if schema is not None or index_dir is not None:
            raise UsageError("--schema and --index-dir only go with --database-url")
        build_demo_workspace(scratch / "ws")
        return scratch / "ws"
    target = choose_target(workspace, database_url, schema, index_dir)
    if isinstance(target, ServerTarget):
        with RAGSpine.open_server(target.url, schema=target.schema) as rag:
            if not rag.store.list_documents():
                typer.echo(f"ingesting the demo corpus into {rag.describe()}", err=True)
                generate_corpus(scratch / CORPUS_DIR)
                rag.ingest(scratch / CORPUS_DIR)
    return target


@command_in(eval_app, "retrieval")
def eval_retrieval(
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace", "-w", help="A demo workspace; built in a temporary folder if omitted."
        ),
    ] = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    index_dir: TargetIndexOption = None,
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
    if database_url is not None and dense is not None:
        raise UsageError("--dense is not available with --database-url yet; use --workspace")
    with tempfile.TemporaryDirectory(prefix="ragspine-eval-") as tmp:
        target = _target(workspace, database_url, schema, index_dir, Path(tmp))
        if isinstance(target, ServerTarget):
            with ServerRAGSpine.open(
                target.url, schema=target.schema, index_dir=target.index_dir, read_only=True
            ) as rag:
                report = run_retrieval_eval(rag.retriever, queries, k=k, profile=rag.profile)
        else:
            ws = Workspace.open(target)
            retriever = open_retriever(ws, dense=dense)
            report = run_retrieval_eval(retriever, queries, k=k, profile=ws.profile())
    if json_output:
        typer.echo(report.to_json())
    else:
        Console(highlight=False).print(render_report(report))
    if not report.passed:
        raise typer.Exit(1)
