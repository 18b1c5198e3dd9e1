"""Terminal output for ingestion and review: progress, summary table, review listings."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ragspine.demo.tour import DemoRun
from ragspine.ingestion.pipeline import (
    FileResult,
    IngestReport,
    Outcome,
    SourceFile,
    ingest,
)
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from ragspine.storage.documents import ReviewItem
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


@contextmanager
def _progress(console: Console, total: int) -> Iterator[Progress]:
    columns = (
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        progress.add_task("", total=total)
        yield progress


def ingest_with_progress(
    files: Sequence[SourceFile],
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    *,
    console: Console,
) -> IngestReport:
    """Ingest already discovered ``files`` with a progress bar on ``console``."""
    with _progress(console, len(files)) as progress:
        task = progress.task_ids[0]

        def advance(result: FileResult) -> None:
            progress.update(task, advance=1, description=result.doc_id)

        return ingest((), store, profile, files=files, on_file=advance)


def print_report(report: IngestReport, console: Console) -> None:
    title = "Ingestion (dry run: nothing written)" if report.dry_run else "Ingestion"
    table = Table(title=title, show_header=True, header_style="bold")
    for name in (
        "files",
        "ingested",
        "skipped",
        "metadata",
        "failed",
        "facts",
        "blocks",
        "review items",
    ):
        table.add_column(name, justify="right")
    table.add_row(
        str(len(report.results)),
        str(report.count(Outcome.INGESTED)),
        str(report.count(Outcome.SKIPPED)),
        str(report.count(Outcome.METADATA)),
        str(report.count(Outcome.FAILED)),
        str(report.facts),
        str(report.blocks),
        str(report.review),
    )
    console.print(table)
    for failure in report.failures:
        console.print(f"[red]failed[/red] {failure.doc_id}: {failure.error}", soft_wrap=True)


def demo_table(run: DemoRun, reference_date: date) -> Table:
    table = Table(
        title=f"Scripted questions (offline mock model, reference date {reference_date})",
        show_header=True,
        header_style="bold",
        show_lines=True,
        expand=True,
    )
    # Fold long lines instead of cutting them: a truncated locator would hide the lineage.
    table.add_column("#", justify="right")
    table.add_column("kind", no_wrap=True)
    table.add_column("question", overflow="fold", ratio=2)
    table.add_column("answer (each number cites document · locator)", overflow="fold", ratio=5)
    for number, (question, result) in enumerate(run.answers, start=1):
        table.add_row(str(number), question.kind, question.question, result.answer)
    return table


def print_review_list(items: Sequence[ReviewItem], console: Console) -> None:
    table = Table(show_header=True, header_style="bold")
    for name in ("id", "state", "reason", "document", "locator", "proposed"):
        table.add_column(name)
    for item in items:
        table.add_row(
            str(item.item_id),
            item.state.value,
            item.reason,
            item.doc_id,
            item.locator,
            _proposed(item),
        )
    console.print(table)


def _proposed(item: ReviewItem) -> str:
    if item.proposed is None:
        return "—"
    p = item.proposed
    period = Period(int(str(p["period"])), str(p["period_type"])).label
    return f"{p['entity']} {p['metric_code']} {period} = {p['value']} {p['unit']}"
