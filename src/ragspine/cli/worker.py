"""``ragspine worker``: an RQ worker ingesting uploaded jobs into a PostgreSQL deployment."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import REDIS_URL_VARIABLE, announce, chosen, deployment
from ragspine.cli.db import DatabaseUrlOption, SchemaOption
from ragspine.errors import UsageError
from ragspine.profile.loader import load_profile


def worker(
    database_url: DatabaseUrlOption = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url",
            help="Redis URL, redis://HOST:PORT/DB [env RAGSPINE_REDIS_URL].",
        ),
    ] = None,
    schema: SchemaOption = None,
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
    url, name = deployment(database_url, schema)
    queue_url, queue_from = chosen(redis_url, REDIS_URL_VARIABLE)
    if queue_url is None:
        raise UsageError(f"give --redis-url redis://... or set {REDIS_URL_VARIABLE}")
    if not queue_url.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--redis-url must be a redis:// URL, got {queue_url.split('@')[-1]!r}")
    announce(f"Redis {queue_url} [{queue_from}]")
    chosen_profile = load_profile(profile)
    from ragspine.service.jobs.rq_worker import run_worker

    run_worker(url, queue_url, chosen_profile, schema=name, burst=burst)
