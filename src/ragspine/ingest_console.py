"""Terminal output for ingestion and review: progress, summary, review and document listings.

Every file name and piece of document text goes through ``ragspine.terminal`` on its way out:
Rich never parses it as markup and no escape sequence reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path, PurePosixPath

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ragspine.agent.types import AgentResult
from ragspine.demo.tour import DemoQuestion
from ragspine.ingestion.model import hidden_note
from ragspine.ingestion.pipeline import (
    FileResult,
    IngestReport,
    Outcome,
    SourceFile,
    ingest,
)
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from ragspine.storage.documents import DocumentSummary, ReviewItem
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.terminal import plain, plain_text


@contextmanager
def _progress(console: Console, total: int) -> Iterator[Progress]:
    columns = (
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", markup=False),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        progress.add_task("", total=total)
        yield progress


def ingest_with_progress(
    paths: Sequence[Path],
    files: Sequence[SourceFile],
    store: WorkspaceStoreProtocol,
    profile: DomainProfile,
    *,
    console: Console,
    prune: bool = False,
    include_hidden: bool = False,
) -> IngestReport:
    """Ingest ``files``, already discovered under ``paths``, with a progress bar."""
    with _progress(console, len(files)) as progress:
        task = progress.task_ids[0]

        def advance(result: FileResult) -> None:
            progress.update(task, advance=1, description=plain(result.doc_id))

        return ingest(
            paths,
            store,
            profile,
            files=files,
            on_file=advance,
            prune=prune,
            include_hidden=include_hidden,
        )


def print_report(report: IngestReport, console: Console, *, target: str = "") -> None:
    """The ingestion table; ``target`` holds the options naming where it went (``--workspace
    ws``), repeated in the commands it suggests."""
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
        line = plain_text(f"{failure.doc_id}: {failure.error}")
        console.print(Text.assemble(("failed", "red"), " ", line), soft_wrap=True)
    for result in report.sensitivity_notes:
        note = plain_text(f"sensitivity {result.doc_id}: {result.sensitivity_note}")
        console.print(note, soft_wrap=True)
    for result in report.warned:
        for warning in result.warnings:
            console.print(plain_text(f"warning {result.doc_id}: {warning}"), soft_wrap=True)
    for result in report.results:
        if skipped := hidden_note(_kind(result.doc_id), result.hidden):
            said = f"{result.doc_id}: {skipped} (`ragspine ingest --include-hidden` reads them)"
            console.print(plain_text(said), soft_wrap=True)
    for change in folder_changes(report, target):
        console.print(plain_text(change), soft_wrap=True)


def folder_changes(report: IngestReport, target: str = "") -> list[str]:
    """Renames, kept review decisions and documents gone from the folders, one line each;
    ``target`` as in :func:`print_report`."""
    lines = [f"renamed {r.renamed_from} -> {r.doc_id}" for r in report.renames]
    if report.decisions_kept:
        lines.append(f"kept {_count(report.decisions_kept, 'review decision')} on unchanged items")
    folders = ", ".join(report.folders)
    if report.pruned:
        lines.append(
            f"pruned {_count(len(report.pruned), 'document')} no longer in {folders}: "
            + ", ".join(report.pruned)
        )
    if report.missing:
        where = f" {target}" if target else ""
        lines.append(
            f"{_count(len(report.missing), 'document')} ingested from {folders} "
            f"{'is' if len(report.missing) == 1 else 'are'} no longer there and still "
            f"answer{'s' if len(report.missing) == 1 else ''}: {', '.join(report.missing)}; "
            f"retire {'it' if len(report.missing) == 1 else 'them'} with "
            f"`ragspine ingest {folders} --prune{where}`"
        )
    return lines


def _kind(doc_id: str) -> str:
    return PurePosixPath(doc_id).suffix.lower().lstrip(".")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def demo_table(
    answers: Sequence[tuple[DemoQuestion, AgentResult]], reference_date: date, company: str
) -> Table:
    table = Table(
        title=(
            f"{company}: scripted questions (offline mock model, reference date {reference_date})"
        ),
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
    for number, (question, result) in enumerate(answers, start=1):
        table.add_row(
            str(number), question.kind, plain_text(question.question), plain_text(result.answer)
        )
    return table


def print_review_list(items: Sequence[ReviewItem], console: Console) -> None:
    table = Table(show_header=True, header_style="bold")
    for name in ("id", "state", "reason", "document", "locator", "proposed"):
        table.add_column(name)
    for item in items:
        table.add_row(
            str(item.item_id),
            item.state.value,
            plain_text(item.reason),
            plain_text(item.doc_id),
            plain_text(item.locator),
            plain_text(_proposed(item)),
        )
    console.print(table)


def print_documents(documents: Sequence[DocumentSummary], console: Console) -> None:
    table = Table(show_header=True, header_style="bold")
    table.add_column("document", overflow="fold")
    table.add_column("type")
    for name in ("facts", "chunks", "open review", "hidden"):
        table.add_column(name, justify="right")
    table.add_column("ingested at", no_wrap=True)
    table.add_column("sensitivity")
    for d in documents:
        table.add_row(
            plain_text(d.doc_id),
            d.kind,
            str(d.facts),
            str(d.chunks),
            str(d.open_review),
            str(d.hidden),
            d.ingested_at,
            d.sensitivity,
        )
    console.print(table)
    for d in documents:
        if skipped := hidden_note(d.kind, d.hidden):
            console.print(plain_text(f"{d.doc_id}: {skipped}"), soft_wrap=True)


def _proposed(item: ReviewItem) -> str:
    if item.proposed is None:
        return "—"
    p = item.proposed
    period = Period(int(str(p["period"])), str(p["period_type"])).label
    return f"{p['entity']} {p['metric_code']} {period} = {p['value']} {p['unit']}"
