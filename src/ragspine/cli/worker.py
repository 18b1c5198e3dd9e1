"""``ragspine worker``: an RQ worker ingesting uploaded jobs into a PostgreSQL deployment."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import DEFAULT_SCHEMA, check_database_url
from ragspine.cli.db import DatabaseUrlOption, SchemaOption
from ragspine.errors import UsageError
from ragspine.profile.loader import load_profile

REDIS_URL_VARIABLE = "RAGSPINE_REDIS_URL"


def worker(
    database_url: DatabaseUrlOption,
    redis_url: Annotated[
        str,
        typer.Option(
            "--redis-url",
            envvar=REDIS_URL_VARIABLE,
            help="Redis URL, redis://HOST:PORT/DB (or $RAGSPINE_REDIS_URL).",
        ),
    ],
    schema: SchemaOption = DEFAULT_SCHEMA,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="Domain profile TOML to ingest with (default: the bundled example profile)."
        ),
    ] = None,
    burst: Annotated[
        bool, typer.Option("--burst", help="Run the queued jobs, then exit (instead of waiting).")
    ] = False,
) -> None:
    """Run ingestion jobs from Redis into the PostgreSQL deployment, until stopped."""
    check_database_url(database_url)
    if not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--redis-url must be a redis:// URL, got {redis_url.split('@')[-1]!r}")
    chosen = load_profile(profile)
    from ragspine.service.rq_worker import run_worker

    run_worker(database_url, redis_url, chosen, schema=schema, burst=burst)
