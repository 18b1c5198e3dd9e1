"""The ``ragspine db`` group: the PostgreSQL schema of a scale-out deployment."""

from __future__ import annotations

from typing import Annotated

import typer

from ragspine.cli.common import DEFAULT_SCHEMA, check_database_url, command_in

db_app = typer.Typer(
    help="Manage the PostgreSQL database of a scale-out deployment.", no_args_is_help=True
)

DATABASE_URL_VARIABLE = "RAGSPINE_DATABASE_URL"

DatabaseUrlOption = Annotated[
    str,
    typer.Option(
        "--database-url",
        envvar=DATABASE_URL_VARIABLE,
        help="PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE (or $RAGSPINE_DATABASE_URL).",
    ),
]
# For commands that run on a workspace folder or, instead, on a PostgreSQL deployment.
OptionalDatabaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="PostgreSQL URL of a scale-out deployment, instead of --workspace.",
    ),
]
SchemaOption = Annotated[
    str,
    typer.Option("--schema", help="The PostgreSQL schema holding the tables."),
]


@command_in(db_app, "upgrade")
def db_upgrade(database_url: DatabaseUrlOption, schema: SchemaOption = DEFAULT_SCHEMA) -> None:
    """Apply the schema steps the database lacks, in one transaction, and print each."""
    check_database_url(database_url)
    from ragspine.storage.postgres import LATEST_VERSION, PostgresDatabase, schema_version, upgrade

    db = PostgresDatabase(database_url, schema=schema)
    try:
        before = schema_version(db)
        applied = upgrade(db)
    finally:
        db.close()
    for step in applied:
        typer.echo(f"applied step {step.version}: {step.description}")
    state = f"upgraded from {before}" if applied else "already up to date"
    typer.echo(f"{db.describe()}: schema version {LATEST_VERSION} ({state})")
