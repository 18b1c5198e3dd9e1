"""The ``ragspine documents`` group: what a workspace holds, document by document."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console

from ragspine.cli.common import WorkspaceOption, command_in
from ragspine.errors import UsageError
from ragspine.ingest_console import print_documents
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.terminal import plain, plain_json
from ragspine.workspace import Workspace

documents_app = typer.Typer(
    help="List a workspace's documents or remove one.", no_args_is_help=True
)


@command_in(documents_app, "list")
def documents_list(
    workspace: WorkspaceOption,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print a JSON array, one object per document.")
    ] = False,
) -> None:
    """List the ingested documents with their facts, chunks and open review items."""
    with Workspace.open(workspace).fact_store(read_only=True) as store:
        documents = store.document_summaries()
    if json_output:
        typer.echo(plain_json(json.dumps([asdict(d) for d in documents], ensure_ascii=False)))
    else:
        print_documents(documents, Console(highlight=False))


@command_in(documents_app, "remove")
def documents_remove(
    name: Annotated[str, typer.Argument(help="The document id, as `documents list` shows it.")],
    workspace: WorkspaceOption,
) -> None:
    """Retire one document: its facts, passages, chunks and review items stop answering."""
    ws = Workspace.open(workspace)
    with ws.write_lock(), ws.fact_store() as store:
        removed = store.remove_document(name)
        if removed:
            refresh_indexes(ws, store)
    if not removed:
        raise UsageError(
            f"no document {name!r} in {ws.root}; `ragspine documents list` shows the ids"
        )
    typer.echo(plain(f"removed {name}"))
