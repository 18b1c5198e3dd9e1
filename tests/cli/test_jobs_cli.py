"""``ragspine jobs list|requeue|cancel``: a deployment's jobs for operators, from PostgreSQL
alone (the workers' reconciler puts a requeued job back on Redis)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.service.jobs.job_lease import JobLease
from ragspine.service.jobs.pg_jobs import PostgresJobTable, StoredFile, job_id_for

runner = CliRunner()


def _job(url: str, schema: str, name: str) -> str:
    files = [StoredFile(name, f"uploads/portal/{name}", f"# {name}\n\nText.\n".encode())]
    job_id = job_id_for(files, "portal")
    table = PostgresJobTable(url, schema=schema)
    try:
        assert table.insert(job_id, files, "portal")
    finally:
        table.close()
    return job_id


def _list(env: dict[str, str], *options: str) -> list[dict[str, object]]:
    result = runner.invoke(app, ["jobs", "list", "--json", *options], env=env)
    assert result.exit_code == 0, result.stderr
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


def test_an_operator_lists_cancels_and_requeues_jobs(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    env = {"RAGSPINE_DATABASE_URL": url, "RAGSPINE_DATABASE_SCHEMA": schema}
    first, second = _job(url, schema, "a.md"), _job(url, schema, "b.md")

    rows = _list(env)
    assert sorted(str(r["job_id"]) for r in rows) == sorted([first, second])
    assert {r["state"] for r in rows} == {"queued"}
    assert {tuple(r["documents"]) for r in rows} == {  # type: ignore[arg-type]
        ("uploads/portal/a.md",),
        ("uploads/portal/b.md",),
    }

    canceled = runner.invoke(app, ["jobs", "cancel", first], env=env)
    assert canceled.exit_code == 0 and canceled.stdout == f"job {first}: queued -> canceled\n"
    assert [r["job_id"] for r in _list(env, "--state", "canceled")] == [first]
    twice = runner.invoke(app, ["jobs", "cancel", first], env=env)
    assert twice.exit_code == 2 and "canceled already" in twice.stderr

    requeued = runner.invoke(app, ["jobs", "requeue", first], env=env)
    assert requeued.exit_code == 0 and requeued.stdout == f"job {first}: canceled -> queued\n"

    # A job running in a live process is neither requeued nor canceled.
    with JobLease(url, schema) as lease:
        assert lease.take_job(second)
        table = PostgresJobTable(url, schema=schema)
        try:
            assert table.start(second) is not None
        finally:
            table.close()
        busy = runner.invoke(app, ["jobs", "requeue", second], env=env)
        assert busy.exit_code == 2 and "running in a live worker" in busy.stderr
        stuck = runner.invoke(app, ["jobs", "cancel", second], env=env)
        assert stuck.exit_code == 2 and "cannot be stopped midway" in stuck.stderr
    # Its process is gone now: requeued.
    left = runner.invoke(app, ["jobs", "requeue", second], env=env)
    assert left.exit_code == 0 and left.stdout == f"job {second}: running -> queued\n"

    unknown = runner.invoke(app, ["jobs", "requeue", "nope"], env=env)
    assert unknown.exit_code == 2 and "no job 'nope'" in unknown.stderr
    table_out = runner.invoke(app, ["jobs", "list"], env={**env, "COLUMNS": "250"})
    assert table_out.exit_code == 0 and first in table_out.stdout
