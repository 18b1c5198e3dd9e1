"""PostgreSQL is the truth for jobs: the reconciler every ``ragspine worker`` runs brings Redis
back in line with it.

Every :data:`RECONCILE_SECONDS`, on a thread of its own (so an idle worker blocked in RQ's
dequeue does not delay it), one worker at a time — the one that takes the deployment's
``reconciler`` advisory lock — looks at the jobs table:

- a job ``running`` whose lease is free (``service.jobs.job_lease``: its process ended, or its
  machine vanished) is queued again, or failed once it has used up its attempts (a file that
  kills every worker that reads it must not go round for ever);
- a job ``queued`` for more than :data:`QUEUED_GRACE_SECONDS` that Redis does not hold to run
  (Redis lost its data, or was down when the job was queued) is put on the queue again.

Both are safe to do twice: a worker runs a job only while it holds the job's lease, and a
delivery of a job that ended does nothing.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ragspine.optional import import_optional

import_optional("rq", extra="scaleout")
import_optional("psycopg", extra="postgres")

# The extras are checked above, so these imports are sure to find them.
import psycopg  # noqa: E402
import redis  # noqa: E402
from rq import Queue  # noqa: E402
from rq.exceptions import NoSuchJobError  # noqa: E402
from rq.job import Job, JobStatus  # noqa: E402

from ragspine.errors import StoreError, withheld  # noqa: E402
from ragspine.service.jobs.job_lease import JobLease, job_key  # noqa: E402
from ragspine.service.jobs.queue import JobState  # noqa: E402
from ragspine.service.jobs.rq_jobs import RetryPolicy, enqueue, rq_job_id  # noqa: E402
from ragspine.storage.facts import utc_timestamp  # noqa: E402

_log = logging.getLogger(__name__)

# How often the reconciler looks. A job a dead worker left is running again within this plus
# the lease's detection (at once for a process that ended; see job_lease for a lost machine).
RECONCILE_SECONDS = 10.0
# A job just recorded is being put on the queue by its API process: leave it that long.
QUEUED_GRACE_SECONDS = 5.0
# A delivery RQ started but whose job PostgreSQL still has queued (its worker died before the
# job began) is given this long before it counts as lost.
STARTED_GRACE_SECONDS = 60.0
LEADER_LOCK = "reconciler"


@dataclass
class Reconciled:
    """What one pass did: whether this worker led it, and the jobs it queued or failed."""

    leader: bool = False
    orphaned: list[str] = field(default_factory=list)  # running, lease free: queued again
    lost: list[str] = field(default_factory=list)  # queued, unknown to Redis: queued again
    failed: list[str] = field(default_factory=list)  # out of attempts


def reconcile(database_url: str, schema: str, queue: Queue, retry: RetryPolicy) -> Reconciled:
    """One pass over the deployment's jobs (nothing when another worker leads)."""
    done = Reconciled()
    with JobLease(database_url, schema) as lease:
        if not lease.try_lock(LEADER_LOCK):
            return done
        done.leader = True
        try:
            _orphans(lease, queue, retry, done)
            _lost(lease, queue, retry, done)
        except psycopg.Error as exc:
            raise StoreError(f"reconciling the jobs of schema {schema}: {exc}") from exc
    for job_id in done.orphaned:
        _log.warning("job %s: its worker stopped mid-job; queued again", job_id)
    for job_id in done.lost:
        _log.warning("job %s: queued but unknown to Redis; queued again", job_id)
    for job_id in done.failed:
        _log.warning("job %s: its worker stopped mid-job on every attempt; failed", job_id)
    return done


def _orphans(lease: JobLease, queue: Queue, retry: RetryPolicy, done: Reconciled) -> None:
    conn = lease.connection
    running = conn.execute(
        "SELECT job_id, attempts FROM jobs WHERE state = %s ORDER BY updated_at",
        (JobState.RUNNING.value,),
    ).fetchall()
    for job_id, attempts in running:
        if not lease.take_job(str(job_id)):
            continue  # a live process holds it
        try:
            if int(attempts) > retry.retries:
                reason = (
                    f"the worker running it stopped before it finished, on each of its "
                    f"{attempts} attempts"
                )
                if _move(lease, str(job_id), JobState.FAILED, reason):
                    done.failed.append(str(job_id))
            elif _move(lease, str(job_id), JobState.QUEUED, ""):
                enqueue(queue, str(job_id), retry, replace=True)
                done.orphaned.append(str(job_id))
        finally:
            lease.unlock(job_key(str(job_id)))


def _move(lease: JobLease, job_id: str, state: JobState, error: str) -> bool:
    """Move a job still ``running`` to ``state``; whether it was still running."""
    return bool(
        lease.connection.execute(
            "UPDATE jobs SET state = %s, error = %s, updated_at = %s "
            "WHERE job_id = %s AND state = %s",
            (state.value, error, utc_timestamp(), job_id, JobState.RUNNING.value),
        ).rowcount
    )


def _lost(lease: JobLease, queue: Queue, retry: RetryPolicy, done: Reconciled) -> None:
    since = datetime.now(UTC) - timedelta(seconds=QUEUED_GRACE_SECONDS)
    queued = lease.connection.execute(
        "SELECT job_id FROM jobs WHERE state = %s AND updated_at::timestamptz < %s "
        "ORDER BY updated_at",
        (JobState.QUEUED.value, since),
    ).fetchall()
    for (job_id,) in queued:
        if not held_by_redis(queue, str(job_id)):
            enqueue(queue, str(job_id), retry, replace=True)
            done.lost.append(str(job_id))


def held_by_redis(queue: Queue, job_id: str) -> bool:
    """Whether Redis holds the job to run: waiting in the queue, scheduled for a retry, or
    started by a worker a moment ago."""
    rq_id = rq_job_id(queue.name, job_id)
    try:
        job = Job.fetch(rq_id, connection=queue.connection)
    except NoSuchJobError:
        return False
    status = job.get_status(refresh=False)
    if status == JobStatus.QUEUED:
        return queue.connection.lpos(queue.key, rq_id) is not None
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return True
    if status == JobStatus.STARTED and job.started_at is not None:
        started = job.started_at.replace(tzinfo=job.started_at.tzinfo or UTC)
        return datetime.now(UTC) - started < timedelta(seconds=STARTED_GRACE_SECONDS)
    return False


class Reconciler:
    """:func:`reconcile` every ``seconds`` on a daemon thread, until :meth:`stop`."""

    def __init__(
        self,
        database_url: str,
        schema: str,
        queue: Queue,
        retry: RetryPolicy | None = None,
        *,
        seconds: float = RECONCILE_SECONDS,
    ) -> None:
        self._args = (database_url, schema, queue, retry or RetryPolicy())
        self._seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragspine-reconciler", daemon=True)

    def run_once(self) -> Reconciled:
        return reconcile(*self._args)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self._seconds + 5)

    def _run(self) -> None:
        # The first pass at once, then one every ``seconds``: on this thread, so a pass that
        # waits on the jobs table never holds up the worker's own loop.
        while True:
            try:
                self.run_once()
            except (StoreError, redis.RedisError) as exc:
                # The next pass tries again; the database or Redis may be back by then.
                _log.warning("reconciling jobs failed: %s", withheld(exc))
            except Exception as exc:  # the thread outlives any one failure
                _log.error("reconciling jobs: unexpected error: %s", withheld(exc))
            if self._stop.wait(self._seconds):
                return
