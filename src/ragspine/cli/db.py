"""The ``ragspine db`` group: the PostgreSQL schema of a scale-out deployment."""

from __future__ import annotations

from typing import Annotated

import typer

from ragspine.cli.common import DEFAULT_SCHEMA, command_in, deployment

db_app = typer.Typer(
    help="Manage the PostgreSQL database of a scale-out deployment.", no_args_is_help=True
)

DatabaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE [env RAGSPINE_DATABASE_URL].",
    ),
]
# For commands that run on a workspace folder or, instead, on a PostgreSQL deployment.
OptionalDatabaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="PostgreSQL URL of a scale-out deployment, instead of --workspace "
        "[env RAGSPINE_DATABASE_URL].",
    ),
]
SchemaOption = Annotated[
    str | None,
    typer.Option(
        "--schema",
        help=f"The PostgreSQL schema holding the tables [env RAGSPINE_DATABASE_SCHEMA; "
        f"default {DEFAULT_SCHEMA}].",
    ),
]


@command_in(db_app, "upgrade")
def db_upgrade(database_url: DatabaseUrlOption = None, schema: SchemaOption = None) -> None:
    """Apply the schema steps the database lacks, in one transaction, and print each."""
    url, name = deployment(database_url, schema)
    from ragspine.storage.postgres import LATEST_VERSION, PostgresDatabase, schema_version, upgrade

    db = PostgresDatabase(url, schema=name)
    try:
        before = schema_version(db)
        applied = upgrade(db)
    finally:
        db.close()
    for step in applied:
        typer.echo(f"applied step {step.version}: {step.description}")
    state = f"upgraded from {before}" if applied else "already up to date"
    typer.echo(f"{db.describe()}: schema version {LATEST_VERSION} ({state})")
