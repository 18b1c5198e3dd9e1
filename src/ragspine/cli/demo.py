"""The try-it-now commands: ``quickstart``, ``demo``, ``init`` and ``load-fixtures``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.text import Text

from ragspine.agent.types import AgentResult
from ragspine.cli.common import WorkspaceOption
from ragspine.cli.profile import draft_into
from ragspine.demo.fixtures import load_quickstart_facts
from ragspine.demo.quickstart import QUICKSTART_REFERENCE_DATE, TRY_QUESTION, run_quickstart
from ragspine.demo.tour import DEMO_REFERENCE_DATE, run_demo
from ragspine.ingest_console import demo_table, print_report
from ragspine.ingestion.pipeline import FileResult
from ragspine.terminal import plain, plain_text
from ragspine.workspace import Workspace


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
    return "\n".join(f"source: {s.doc} · {s.locator}" for s in result.sources)


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
        TextColumn("{task.description}", markup=False),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("generating the corpus", total=None)

        def advance(result: FileResult) -> None:
            progress.update(task, advance=1, description=plain(result.doc_id))

        run = run_demo(workspace, on_file=advance)
    console.print(plain_text(f"Corpus: {run.corpus}  ·  workspace: {workspace}"))
    print_report(run.report, console)
    acme = Workspace.open(workspace).profile().company.name
    console.print(demo_table(run.answers, DEMO_REFERENCE_DATE, acme))
    second = run.second
    console.print(
        plain_text(
            f"{second.name}: a second company, with its own profile, currencies and fiscal "
            "year  ·  "
            f"workspace: {second.workspace}"
        )
    )
    print_report(second.report, console)
    console.print(demo_table(second.answers, DEMO_REFERENCE_DATE, second.name))
    console.print(plain_text(f'Ask your own: ragspine ask "<question>" --workspace {workspace}'))
    console.print(
        plain_text(f'            or: ragspine ask "<question>" --workspace {second.workspace}')
    )


def init(
    workspace: WorkspaceOption,
    from_docs: Annotated[
        list[Path] | None,
        typer.Option(
            "--from",
            help="Draft the workspace's profile from these documents or folders (as "
            "`ragspine profile suggest` does); repeat for several.",
        ),
    ] = None,
) -> None:
    """Create a workspace folder with an empty fact store (safe to run again)."""
    ws = Workspace.create(workspace)
    if from_docs:
        draft_into(ws, from_docs)
    with ws.fact_store() as store:
        count = store.count_facts()
    typer.echo(plain(f"Workspace ready at {ws.root} ({count} facts)."))


def load_fixtures(workspace: WorkspaceOption) -> None:
    """Load the quickstart example facts into an existing workspace, to try `ask` right away."""
    ws = Workspace.open(workspace)
    with ws.fact_store() as store:
        count = load_quickstart_facts(store)
    typer.echo(plain(f"Loaded {count} example facts into {ws.root}."))
