"""The ``ragspine documents`` group: what a workspace (or a deployment) holds, document by
document."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
    command_in,
)
from ragspine.errors import UsageError
from ragspine.ingest_console import print_documents
from ragspine.ingestion.copies import orphaned_copies
from ragspine.ingestion.discovery import SourceFile
from ragspine.ingestion.pipeline import ingest
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.terminal import plain, plain_json
from ragspine.workspace import Workspace

documents_app = typer.Typer(
    help="List the documents of a workspace (or a PostgreSQL deployment) or remove one.",
    no_args_is_help=True,
)


@command_in(documents_app, "list")
def documents_list(
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print a JSON array, one object per document.")
    ] = False,
) -> None:
    """List the ingested documents with their facts, chunks and open review items."""
    target = choose_target(workspace, database_url, schema)
    if isinstance(target, ServerTarget):
        from ragspine.storage.postgres import PostgresWorkspaceStore

        with PostgresWorkspaceStore(target.url, schema=target.schema, read_only=True) as pg:
            documents = pg.document_summaries()
    else:
        with Workspace.open(target).fact_store(read_only=True) as store:
            documents = store.document_summaries()
    if json_output:
        typer.echo(plain_json(json.dumps([asdict(d) for d in documents], ensure_ascii=False)))
    else:
        print_documents(documents, Console(highlight=False))


@command_in(documents_app, "remove")
def documents_remove(
    name: Annotated[str, typer.Argument(help="The document id, as `documents list` shows it.")],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
) -> None:
    """Retire one document: its facts, passages, chunks and review items stop answering (on
    a deployment, every API process drops it from its index through the change log)."""
    target = choose_target(workspace, database_url, schema)
    notes: list[str] = []
    if isinstance(target, ServerTarget):
        removed = _remove_from_deployment(target, name)
        where = target.options()
    else:
        ws = Workspace.open(target)
        with ws.write_lock(), ws.fact_store() as store:
            record = store.get_document(name)
            removed = store.remove_document(name)
            if removed:
                if record is not None:
                    notes = _read_copies_again(store, record.content_hash, ws)
                refresh_indexes(ws, store)
        where = str(ws.root)
    if not removed:
        raise UsageError(
            f"no document {name!r} in {where}; `ragspine documents list` shows the ids"
        )
    typer.echo(plain(f"removed {name}"))
    for note in notes:
        typer.echo(plain(note))


def _remove_from_deployment(target: ServerTarget, name: str) -> bool:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with PostgresWorkspaceStore(target.url, schema=target.schema) as pg:
        return pg.remove_document(name, audit="by `ragspine documents remove`")


def _read_copies_again(store: SQLiteWorkspaceStore, content_hash: str, ws: Workspace) -> list[str]:
    """Copies of the removed document's bytes held no review items (nor the passages those
    hold back) of their own: read them again now, so they do."""
    files, notes = [], []
    for copy in orphaned_copies(store, content_hash):
        path = Path(copy.source_path)
        if path.is_file():
            files.append(SourceFile(copy.doc_id, path))
        else:
            notes.append(f"{copy.doc_id}: same content, but its file is gone; ingest it again")
    if files:
        report = ingest([f.path for f in files], store, ws.profile(), files=files)
        notes += [
            f"read again: {r.doc_id} (same content; {r.blocks} text blocks, "
            f"{r.review} review items)"
            for r in report.results
        ]
    return notes
