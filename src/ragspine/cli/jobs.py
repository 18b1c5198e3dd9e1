"""The ``ragspine jobs`` group: a PostgreSQL deployment's ingestion jobs, for operators."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ragspine.cli.common import command_in, deployment
from ragspine.cli.db import DatabaseUrlOption, SchemaOption
from ragspine.errors import UsageError
from ragspine.terminal import plain, plain_json, plain_text

jobs_app = typer.Typer(
    help="List, requeue or cancel the ingestion jobs of a PostgreSQL deployment.",
    no_args_is_help=True,
)

JobArgument = Annotated[str, typer.Argument(help="The job's id, as `jobs list` shows it.")]
STATES = ("queued", "running", "done", "failed", "superseded", "canceled")


@command_in(jobs_app, "list")
def jobs_list(
    database_url: DatabaseUrlOption = None,
    schema: SchemaOption = None,
    state: Annotated[
        str | None, typer.Option(help=f"Only jobs in this state: {', '.join(STATES)}.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 50,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print a JSON array, one object per job.")
    ] = False,
) -> None:
    """The newest jobs: state, files done of all, attempts, who sent them, last change."""
    from ragspine.service.jobs.job_lease import JobLease
    from ragspine.service.jobs.pg_job_admin import list_jobs
    from ragspine.service.jobs.queue import JobState

    if state is not None and state not in STATES:
        raise UsageError(f"--state {state!r}: use one of {', '.join(STATES)}")
    url, name = deployment(database_url, schema)
    with JobLease(url, name) as lease:
        rows = list_jobs(lease, JobState(state) if state else None, limit)
    if json_output:
        typer.echo(plain_json(json.dumps([asdict(r) for r in rows], ensure_ascii=False)))
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("job", "state", "files", "attempts", "submitter", "updated (UTC)", "error"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            row.job_id,
            row.state,
            f"{row.files_done}/{row.files}",
            str(row.attempts),
            plain_text(row.submitter) or "-",
            row.updated_at[:19].replace("T", " "),
            plain_text(row.error) or "-",
        )
    Console(highlight=False).print(table)


@command_in(jobs_app, "requeue")
def jobs_requeue(
    job_id: JobArgument, database_url: DatabaseUrlOption = None, schema: SchemaOption = None
) -> None:
    """Queue again a failed or canceled job, or one a gone worker left running; a worker
    takes it within the reconciler's bound (docs/scale-out.md)."""
    from ragspine.service.jobs.job_lease import JobLease
    from ragspine.service.jobs.pg_job_admin import requeue

    url, name = deployment(database_url, schema)
    with JobLease(url, name) as lease:
        was = requeue(lease, job_id)
    typer.echo(plain(f"job {job_id}: {was.value} -> queued"))


@command_in(jobs_app, "cancel")
def jobs_cancel(
    job_id: JobArgument, database_url: DatabaseUrlOption = None, schema: SchemaOption = None
) -> None:
    """Withdraw a queued or failed job: no worker runs it any more."""
    from ragspine.service.jobs.job_lease import JobLease
    from ragspine.service.jobs.pg_job_admin import cancel

    url, name = deployment(database_url, schema)
    with JobLease(url, name) as lease:
        was = cancel(lease, job_id)
    typer.echo(plain(f"job {job_id}: {was.value} -> canceled"))
