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

from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetIndexOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
    command_in,
    parse_clearance,
)
from ragspine.errors import ReviewError, StoreError, UsageError
from ragspine.ingest_console import ingest_with_progress, print_report, print_review_list
from ragspine.ingestion import review
from ragspine.ingestion.pipeline import IngestReport, SourceFile, discover
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.retrieval.refresh import refresh_indexes, writing
from ragspine.storage.documents import ReviewState
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.terminal import plain, plain_json
from ragspine.workspace import DB_NAME, Workspace


def ingest_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (pptx, xlsx, pdf, docx, md, txt).")
    ],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    index_dir: TargetIndexOption = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="Domain profile TOML to install in the workspace before ingesting (with "
            "--database-url: to map this run's documents with)."
        ),
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
    include_hidden: Annotated[
        bool,
        typer.Option(
            "--include-hidden",
            help="Also read hidden sheets, rows, columns, slides and text (skipped and counted "
            "by default).",
        ),
    ] = False,
) -> None:
    """Turn documents into facts, text blocks and review items (unchanged files are skipped)."""
    console = Console(stderr=False, highlight=False)
    target = choose_target(workspace, database_url, schema, index_dir)
    # Inputs are checked before anything is created: a typo must not leave an empty workspace.
    files = discover(paths)
    chosen = load_profile(profile) if profile else None
    if isinstance(target, ServerTarget):
        if dry_run or dense:
            option = "--dry-run" if dry_run else "--dense"
            raise UsageError(f"{option} is not available with --database-url yet; use --workspace")
        report = _ingest_server(
            target, paths, files, chosen or load_profile(None), console, prune, include_hidden
        )
        print_report(report, console, target=target.options())
        if report.failures:
            raise typer.Exit(1)
        return
    workspace = target
    if dry_run:
        prof = chosen or Workspace(workspace).profile()
        with _dry_run_store(Workspace(workspace)) as store:
            report = replace(
                ingest_with_progress(
                    paths,
                    files,
                    store,
                    prof,
                    console=console,
                    prune=prune,
                    include_hidden=include_hidden,
                ),
                dry_run=True,
            )
    else:
        # Created under the write lock: another ingest may be writing this workspace already.
        ws = Workspace.create(workspace, on_wait=lambda: _waiting(Workspace(workspace)))
        with ws.write_lock(on_wait=lambda: _waiting(ws)):
            prof = ws.install_profile(profile) if profile else ws.profile()
            with ws.fact_store() as store:
                report = ingest_with_progress(
                    paths,
                    files,
                    store,
                    prof,
                    console=console,
                    prune=prune,
                    include_hidden=include_hidden,
                )
                refresh_indexes(ws, store, dense=dense)
    print_report(report, console, target=f"--workspace {workspace}")
    if report.failures:
        raise typer.Exit(1)


def _ingest_server(
    target: ServerTarget,
    paths: list[Path],
    files: list[SourceFile],
    profile: DomainProfile,
    console: Console,
    prune: bool,
    include_hidden: bool,
) -> IngestReport:
    """Ingest into PostgreSQL (one transaction per document, no lock: several ingests may run
    at once); with --index-dir, that index then applies the new changes."""
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with PostgresWorkspaceStore(target.url, schema=target.schema) as store:
        report = ingest_with_progress(
            paths,
            files,
            store,
            profile,
            console=console,
            prune=prune,
            include_hidden=include_hidden,
        )
        if target.index_dir is not None:
            from ragspine.retrieval.follower import IndexFollower

            with IndexFollower(store, target.index_dir) as follower:
                follower.catch_up()
    return report


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
def _writing(target: Path | ServerTarget) -> Iterator[WorkspaceStoreProtocol]:
    """The store of an existing workspace under its write lock; the search index is updated
    when the block ends (a decision on a held passage changes what may be found). On
    PostgreSQL the store alone: every followed index applies the decision by itself."""
    if isinstance(target, ServerTarget):
        with _reading(target) as store:
            yield store
        return
    ws = Workspace.open(target)
    with writing(ws, on_wait=lambda: _waiting(ws)) as store:
        yield store


@contextmanager
def _reading(target: Path | ServerTarget) -> Iterator[WorkspaceStoreProtocol]:
    if isinstance(target, Path):
        with Workspace.open(target).fact_store() as store:
            yield store
        return
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with PostgresWorkspaceStore(target.url, schema=target.schema) as server:
        yield server


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
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    state: Annotated[ReviewFilter, typer.Option(help="Which items to list.")] = ReviewFilter.OPEN,
    clearance: Annotated[
        str | None,
        typer.Option(help="List only items this clearance may see (default: every item)."),
    ] = None,
) -> None:
    """List review items (open ones by default)."""
    level = parse_clearance(clearance) if clearance is not None else None
    with _reading(choose_target(workspace, database_url, schema)) as store:
        items = store.list_review(None if state is ReviewFilter.ALL else ReviewState(state.value))
    if level is not None:
        items = review.visible_to(items, level)
    print_review_list(items, Console(highlight=False))


@command_in(review_app, "show")
def review_show(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
) -> None:
    """Show one review item with its proposed fact and audit trail."""
    with _reading(choose_target(workspace, database_url, schema)) as store:
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
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    correct: Annotated[
        float | None, typer.Option(help="Approve with this value instead of the proposed one.")
    ] = None,
) -> None:
    """Approve an item: its fact becomes visible (conflicting facts are retired)."""
    with _writing(choose_target(workspace, database_url, schema)) as store:
        item, changed = review.approve(store, item_id, correct=correct)
    typer.echo(f"item {item.item_id}: approved" + ("" if changed else " (already approved)"))


@command_in(review_app, "reject")
def review_reject(
    item_id: Annotated[int, typer.Argument(help="Review item id.")],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    note: Annotated[str, typer.Option(help="Why it was rejected (kept in the audit log).")] = "",
) -> None:
    """Reject an item: nothing is written to the facts."""
    with _writing(choose_target(workspace, database_url, schema)) as store:
        item, changed = review.reject(store, item_id, note=note)
    typer.echo(f"item {item.item_id}: rejected" + ("" if changed else " (already rejected)"))
