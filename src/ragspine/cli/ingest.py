"""``ragspine ingest`` and the ``ragspine review`` group: documents in, review items decided."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragspine.cli.common import WorkspaceOption, command_in, parse_clearance
from ragspine.errors import ReviewError, StoreError
from ragspine.ingest_console import ingest_with_progress, print_report, print_review_list
from ragspine.ingestion import review
from ragspine.ingestion.pipeline import discover
from ragspine.profile.loader import load_profile
from ragspine.retrieval.refresh import refresh_indexes, writing
from ragspine.storage.documents import ReviewState
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.terminal import plain, plain_json
from ragspine.workspace import DB_NAME, Workspace


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
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Retire the documents ingested from these folders that are gone."
        ),
    ] = False,
    dense: Annotated[
        str | None,
        typer.Option(help="Also store dense vectors: 'hashing', 'minilm' or a model path/name."),
    ] = None,
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
                ingest_with_progress(paths, files, store, prof, console=console, prune=prune),
                dry_run=True,
            )
    else:
        ws = Workspace.create(workspace)
        with ws.write_lock(on_wait=lambda: _waiting(ws)):
            prof = ws.install_profile(profile) if profile else ws.profile()
            with ws.fact_store() as store:
                report = ingest_with_progress(
                    paths, files, store, prof, console=console, prune=prune
                )
                refresh_indexes(ws, store, dense=dense)
    print_report(report, console, workspace=workspace)
    if report.failures:
        raise typer.Exit(1)


def _waiting(workspace: Workspace) -> None:
    typer.echo(
        f"waiting: another command is writing {workspace.root} (an ingest?); "
        "this one starts when it ends",
        err=True,
    )


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


@contextmanager
def _writing(root: Path) -> Iterator[SQLiteWorkspaceStore]:
    """The store of an existing workspace under its write lock; the search index is updated
    when the block ends (a decision on a held passage changes what may be found)."""
    ws = Workspace.open(root)
    with writing(ws, on_wait=lambda: _waiting(ws)) as store:
        yield store


review_app = typer.Typer(
    help="List, inspect, approve or reject review items.", no_args_is_help=True
)


class ReviewFilter(StrEnum):
    OPEN = "open"
    APPROVED = "approved"
    REJECTED = "rejected"
    ALL = "all"


@command_in(review_app, "list")
def review_list(
    workspace: WorkspaceOption,
    state: Annotated[ReviewFilter, typer.Option(help="Which items to list.")] = ReviewFilter.OPEN,
    clearance: Annotated[
        str | None,
        typer.Option(help="List only items this clearance may see (default: every item)."),
    ] = None,
) -> None:
    """List review items (open ones by default)."""
    level = parse_clearance(clearance) if clearance is not None else None
    with Workspace.open(workspace).fact_store() as store:
        items = store.list_review(None if state is ReviewFilter.ALL else ReviewState(state.value))
    if level is not None:
        items = review.visible_to(items, level)
    print_review_list(items, Console(highlight=False))


@command_in(review_app, "show")
def review_show(
    item_id: Annotated[int, typer.Argument(help="Review item id.")], workspace: WorkspaceOption
) -> None:
    """Show one review item with its proposed fact and audit trail."""
    with Workspace.open(workspace).fact_store() as store:
        item = store.get_review(item_id)
        if item is None:
            raise ReviewError(f"no review item {item_id}")
        audit = store.audit_log(item_id)
    typer.echo(plain_json(json.dumps(asdict(item), ensure_ascii=False, indent=2, default=str)))
    for entry in audit:
        typer.echo(plain(f"{entry.at} {entry.action}: {entry.detail}"))


@command_in(review_app, "approve")
def review_approve(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: WorkspaceOption,
    correct: Annotated[
        float | None, typer.Option(help="Approve with this value instead of the proposed one.")
    ] = None,
) -> None:
    """Approve an item: its fact becomes visible (conflicting facts are retired)."""
    with _writing(workspace) as store:
        item, changed = review.approve(store, item_id, correct=correct)
    typer.echo(f"item {item.item_id}: approved" + ("" if changed else " (already approved)"))


@command_in(review_app, "reject")
def review_reject(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: WorkspaceOption,
    note: Annotated[str, typer.Option(help="Why it was rejected (kept in the audit log).")] = "",
) -> None:
    """Reject an item: nothing is written to the facts."""
    with _writing(workspace) as store:
        item, changed = review.reject(store, item_id, note=note)
    typer.echo(f"item {item.item_id}: rejected" + ("" if changed else " (already rejected)"))
