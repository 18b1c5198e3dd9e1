"""What an operator does to a deployment's jobs (``ragspine jobs list|requeue|cancel``):
PostgreSQL alone, since it is the truth — a job requeued here is put on the Redis queue by
the workers' reconciler (``service.jobs.job_reconciler``) within its bound."""

from __future__ import annotations

from dataclasses import dataclass

from ragspine.errors import UsageError
from ragspine.service.jobs.job_lease import JobLease
from ragspine.service.jobs.queue import JobState
from ragspine.storage.facts import utc_timestamp


@dataclass(frozen=True)
class JobRow:
    """One job as ``jobs list`` shows it."""

    job_id: str
    state: str
    submitter: str
    files: int
    files_done: int
    attempts: int
    created_at: str
    updated_at: str
    error: str
    documents: tuple[str, ...]


def list_jobs(lease: JobLease, state: JobState | None = None, limit: int = 50) -> list[JobRow]:
    """The newest jobs first (of one state, if given)."""
    where, params = ("WHERE j.state = %s ", [state.value]) if state is not None else ("", [])
    rows = lease.connection.execute(
        "SELECT j.job_id, j.state, j.submitter, count(f.position), "
        "count(f.position) FILTER (WHERE f.outcome <> ''), j.attempts, j.created_at, "
        "j.updated_at, j.error, coalesce(array_agg(f.doc_id ORDER BY f.position), '{}') "
        f"FROM jobs j LEFT JOIN job_files f USING (job_id) {where}"
        "GROUP BY j.job_id ORDER BY j.created_at DESC, j.job_id LIMIT %s",
        [*params, limit],
    ).fetchall()
    return [
        JobRow(str(a), str(b), str(c), int(d), int(e), int(f), str(g), str(h), str(i), tuple(j))
        for a, b, c, d, e, f, g, h, i, j in rows
    ]


def _state(lease: JobLease, job_id: str) -> JobState:
    row = lease.connection.execute("SELECT state FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
    if row is None:
        raise UsageError(f"no job {job_id!r}; `ragspine jobs list` shows the ids")
    return JobState(str(row[0]))


def requeue(lease: JobLease, job_id: str) -> JobState:
    """Queue a job again: one that failed or was canceled (its finished files stay finished),
    or one left running by a worker that is gone. Returns the state it had."""
    state = _state(lease, job_id)
    if state is JobState.QUEUED:
        return state  # the reconciler puts it back on the queue if Redis lost it
    if state is JobState.RUNNING:
        if not lease.take_job(job_id):
            raise UsageError(f"job {job_id} is running in a live worker; wait for it to end")
    elif state not in (JobState.FAILED, JobState.CANCELED):
        raise UsageError(
            f"job {job_id} is {state.value}: it ran; send its files again to ingest them again"
        )
    lease.connection.execute(
        "UPDATE jobs SET state = %s, error = '', attempts = 0, updated_at = %s "
        "WHERE job_id = %s AND state = %s",
        (JobState.QUEUED.value, utc_timestamp(), job_id, state.value),
    )
    return state


def cancel(lease: JobLease, job_id: str) -> JobState:
    """Withdraw a job that is queued or failed: no worker runs it any more (a delivery still
    in Redis finds it canceled). Returns the state it had."""
    state = _state(lease, job_id)
    if state is JobState.RUNNING and lease.take_job(job_id):
        state = JobState.QUEUED  # its worker is gone: as good as queued
    if state is JobState.RUNNING:
        raise UsageError(f"job {job_id} is running; it cannot be stopped midway")
    if state not in (JobState.QUEUED, JobState.FAILED):
        raise UsageError(f"job {job_id} is {state.value} already; there is nothing to cancel")
    lease.connection.execute(
        "UPDATE jobs SET state = %s, error = %s, updated_at = %s "
        "WHERE job_id = %s AND state IN (%s, %s, %s)",
        (
            JobState.CANCELED.value,
            "canceled by an operator",
            utc_timestamp(),
            job_id,
            JobState.QUEUED.value,
            JobState.FAILED.value,
            JobState.RUNNING.value,
        ),
    )
    return state
