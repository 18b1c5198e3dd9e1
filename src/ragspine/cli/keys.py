"""The ``ragspine keys`` group: create, list and revoke the API keys the HTTP service accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ragspine.cli.common import ServerTarget, choose_target, command_in, parse_clearance
from ragspine.cli.db import OptionalDatabaseUrlOption, SchemaOption
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import KeyInfo, KeyStore
from ragspine.terminal import plain_text
from ragspine.workspace import Workspace

keys_app = typer.Typer(
    help="Create, list or revoke the API keys of a workspace's (or a deployment's) service.",
    no_args_is_help=True,
)

KeysWorkspaceOption = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Workspace folder (holds service.db)."),
]


class _Keys:
    """The key store the options name: a workspace's, or a PostgreSQL deployment's."""

    def __init__(
        self, workspace: Path | None, database_url: str | None, schema: str | None
    ) -> None:
        target = choose_target(workspace, database_url, schema)
        if isinstance(target, ServerTarget):
            from ragspine.service.keys.pg_keys import PostgresKeyStore

            self._store: KeyStore | PostgresKeyStore = PostgresKeyStore(
                target.url, schema=target.schema
            )
        else:
            self._store = KeyStore(Workspace.open(target))

    def create(self, name: str, clearance: Sensitivity) -> tuple[KeyInfo, str]:
        with self._store as store:
            return store.create(name, clearance)

    def list(self) -> list[KeyInfo]:
        with self._store as store:
            return store.list()

    def revoke(self, name: str) -> KeyInfo:
        with self._store as store:
            return store.revoke(name)


@command_in(keys_app, "create")
def keys_create(
    name: Annotated[
        str, typer.Option("--name", help="A unique name for the key (who or what uses it).")
    ],
    clearance: Annotated[
        str,
        typer.Option(help="The most sensitive level the key may read: PUBLIC ... RESTRICTED."),
    ],
    workspace: KeysWorkspaceOption = None,
    database_url: OptionalDatabaseUrlOption = None,
    schema: SchemaOption = None,
) -> None:
    """Create a key; it is printed once, alone on the last line, and only its hash is kept."""
    level = parse_clearance(clearance)
    info, token = _Keys(workspace, database_url, schema).create(name, level)
    typer.echo(f"created key {info.name!r} (id {info.key_id}, clearance {info.clearance.value})")
    typer.echo("the key is shown this once and cannot be recovered; store it now:")
    typer.echo(token)


@command_in(keys_app, "list")
def keys_list(
    workspace: KeysWorkspaceOption = None,
    database_url: OptionalDatabaseUrlOption = None,
    schema: SchemaOption = None,
) -> None:
    """List the keys: name, shown prefix, clearance, when created and revoked (never the key)."""
    infos = _Keys(workspace, database_url, schema).list()
    table = Table(show_header=True, header_style="bold")
    for column in ("id", "name", "prefix", "clearance", "created (UTC)", "revoked (UTC)"):
        table.add_column(column)
    for info in infos:
        table.add_row(
            str(info.key_id),
            plain_text(info.name),
            info.prefix,
            info.clearance.value,
            _minute(info.created_at),
            _minute(info.revoked_at) or "-",
        )
    Console(highlight=False).print(table)


@command_in(keys_app, "revoke")
def keys_revoke(
    name: Annotated[str, typer.Argument(help="The key's name or id, as `keys list` shows it.")],
    workspace: KeysWorkspaceOption = None,
    database_url: OptionalDatabaseUrlOption = None,
    schema: SchemaOption = None,
) -> None:
    """Revoke a key: from now on a request presenting it is refused."""
    info = _Keys(workspace, database_url, schema).revoke(name)
    typer.echo(f"revoked key {info.name!r} (id {info.key_id})")


def _minute(timestamp: str) -> str:
    """``2026-11-26T17:40:28.146558+00:00`` as ``2026-11-26 17:40`` (the times are UTC)."""
    return timestamp[:16].replace("T", " ")
