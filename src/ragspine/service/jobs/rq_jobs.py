"""The scale-out :class:`~ragspine.service.jobs.queue.JobQueue`: jobs recorded in PostgreSQL and
run by RQ workers (``ragspine worker``) that Redis hands their ids to.

A job's state, per-file results and uploaded bytes live in PostgreSQL, so any API process
reads any job's status and any worker, on any machine, can ingest its files; Redis carries
only the job's id, its retries and its place in the queue.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ragspine.optional import import_optional

import_optional("rq", extra="scaleout")
import_optional("redis", extra="scaleout")

# The extra is checked above, so these imports are sure to find rq and redis.
import redis  # noqa: E402
from rq import Callback, Queue, Retry  # noqa: E402
from rq.exceptions import NoSuchJobError  # noqa: E402
from rq.job import Job  # noqa: E402

from ragspine.errors import StoreError, UnavailableError, UsageError  # noqa: E402
from ragspine.profile.sensitivity import Sensitivity  # noqa: E402
from ragspine.service.jobs.pg_jobs import PostgresJobTable, StoredFile, job_id_for  # noqa: E402
from ragspine.service.jobs.queue import JobFile, JobState, JobStatus  # noqa: E402
from ragspine.service.jobs.rq_liveness import REDIS_TIMEOUT_SECONDS, live_workers  # noqa: E402
from ragspine.storage.postgres.connection import (  # noqa: E402
    DEFAULT_SCHEMA,
    PostgresDatabase,
    redact,
)

_log = logging.getLogger(__name__)
# What an upload is told when Redis does not answer (the log names the server and why).
QUEUE_UNAVAILABLE = (
    "the ingestion queue is unavailable (its Redis server does not answer); nothing was "
    "stored: send the upload again later"
)
# `/readyz`'s jobs check when Redis answers but no worker beat lately (rq_liveness).
NO_LIVE_WORKER = "no live worker"

# What a worker runs, named by import path: the API process never imports the ingestion code.
# The path is the alias module ragspine.service.rq_worker, which stays put when the worker's
# code moves: a job queued by one version runs on a worker of another.
JOB_FUNCTION = "ragspine.service.rq_worker.run_ingest_job"
FAILURE_CALLBACK = "ragspine.service.rq_worker.job_failed"


def queue_name_for(schema: str) -> str:
    """The RQ queue of a deployment: one per PostgreSQL schema, so deployments (and test
    runs) sharing one Redis never run each other's jobs."""
    return f"ragspine-ingest-{schema}"


@dataclass(frozen=True)
class RetryPolicy:
    """How often a job that failed as a whole (its worker died, the database went away) is
    tried again, and after how many seconds each time; a file that fails fails alone and is
    not retried. ``timeout`` bounds one attempt (the files' own safety limits bound each)."""

    retries: int = 3
    intervals: tuple[int, ...] = (10, 60, 300)
    timeout: int = 1800

    def rq_retry(self) -> Retry:
        return Retry(max=self.retries, interval=list(self.intervals))


class RQJobQueue:
    """A :class:`~ragspine.service.jobs.queue.JobQueue` over PostgreSQL (state, results, bytes) and
    RQ on Redis (delivery to ``ragspine worker`` processes).

    ``submit`` reads each file's bytes (at most the upload limit) into the job's rows and
    enqueues the job's id; the id is a digest of the submitter and each file's document id
    and bytes, so the same upload sent twice is one job. Sending again a job that failed
    queues it again; one whose queue entry Redis lost is queued again too. When Redis does
    not answer, ``submit`` raises ``UnavailableError`` and leaves no job behind.

    ``database``: a pool this process already holds on the schema, shared for the job rows
    (its owner closes it).
    """

    def __init__(
        self,
        database_url: str,
        redis_url: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        queue_name: str | None = None,
        retry: RetryPolicy | None = None,
        database: PostgresDatabase | None = None,
    ) -> None:
        self._retry = retry or RetryPolicy()
        self._jobs = PostgresJobTable(database_url, schema=schema, database=database)
        self._redis_url = redact(redis_url)
        try:
            # Bounded, so a Redis that stops answering fails a request instead of holding it.
            self._redis = redis.Redis.from_url(
                redis_url,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
            )
            self._redis.ping()
        except (redis.RedisError, ValueError) as exc:
            self._jobs.close()
            raise StoreError(f"cannot reach Redis at {self._redis_url}: {exc}") from exc
        self._queue = Queue(queue_name or queue_name_for(schema), connection=self._redis)

    @property
    def queue_name(self) -> str:
        return self._queue.name

    def submit(
        self,
        files: list[JobFile],
        *,
        submitter: str = "",
        clearance: Sensitivity = Sensitivity.RESTRICTED,
        include_hidden: bool = False,
    ) -> str:
        stored = _stored(files)
        job_id = job_id_for(stored, submitter, include_hidden)
        # Redis first: with it down the upload is refused before anything is written.
        self._reach_redis()
        if self._jobs.insert(job_id, stored, submitter, clearance, include_hidden):
            self._enqueue(job_id, new=True)
        elif self._jobs.requeue_failed(job_id) or self._lost(job_id):
            self._enqueue(job_id, new=False)
        return job_id

    def status(self, job_id: str) -> JobStatus | None:
        return self._jobs.status(job_id)

    def readiness(self) -> str:
        """ "ok" when Redis answers and a worker of the queue beat within
        ``rq_liveness.LIVE_SECONDS``; why not otherwise. (The database is the store check's.)"""
        try:
            live = live_workers(self._redis, self._queue.name)
        except redis.RedisError:
            return "queue unavailable (Redis does not answer)"
        return "ok" if live else NO_LIVE_WORKER

    def close(self) -> None:
        self._jobs.close()
        self._redis.close()

    def rq_job_id(self, job_id: str) -> str:
        return rq_job_id(self._queue.name, job_id)

    def _lost(self, job_id: str) -> bool:
        """A job still to run that Redis no longer holds (flushed, or never queued)."""
        status = self._jobs.status(job_id)
        pending = status is not None and status.state in (JobState.QUEUED, JobState.RUNNING)
        try:
            return pending and not Job.exists(self.rq_job_id(job_id), connection=self._redis)
        except redis.RedisError as exc:
            raise self._unavailable(exc) from exc

    def _reach_redis(self) -> None:
        try:
            self._redis.ping()
        except redis.RedisError as exc:
            raise self._unavailable(exc) from exc

    def _unavailable(self, exc: redis.RedisError) -> UnavailableError:
        _log.warning("ingestion queue: Redis at %s does not answer: %s", self._redis_url, exc)
        return UnavailableError(QUEUE_UNAVAILABLE)

    def _enqueue(self, job_id: str, *, new: bool) -> None:
        try:
            enqueue(self._queue, job_id, self._retry)
        except redis.RedisError as exc:
            if new:
                # Refused as a whole: the job and its bytes go, as if never sent.
                self._jobs.forget(job_id)
            else:
                # A job sent before stays, failed, so sending it again queues it once more.
                reason = "could not be queued: the ingestion queue was unavailable"
                self._jobs.set_state(job_id, JobState.FAILED, reason)
            raise self._unavailable(exc) from exc


def rq_job_id(queue_name: str, job_id: str) -> str:
    """The job's id in Redis: prefixed with its queue, since the same upload sent to two
    deployments sharing one Redis is a job of each."""
    return f"{queue_name}-{job_id}"


def enqueue(queue: Queue, job_id: str, retry: RetryPolicy, *, replace: bool = False) -> None:
    """Put the job's id on the queue for a worker; with ``replace``, whatever Redis still holds
    of an earlier delivery (a dead worker's, a finished one's) is deleted first."""
    rq_id = rq_job_id(queue.name, job_id)
    if replace:
        with contextlib.suppress(NoSuchJobError):
            Job.fetch(rq_id, connection=queue.connection).delete()
    queue.enqueue_call(
        JOB_FUNCTION,
        args=(job_id,),
        job_id=rq_id,
        timeout=retry.timeout,
        retry=retry.rq_retry(),
        on_failure=Callback(FAILURE_CALLBACK),
        description=f"ingest job {job_id}",
    )


def _stored(files: Sequence[JobFile]) -> list[StoredFile]:
    if not files:
        raise UsageError("a job needs at least one file")
    stored: list[StoredFile] = []
    for file in files:
        if any(s.doc_id == file.document for s in stored):
            raise UsageError(f"two files of the job are ingested as {file.document}")
        try:
            content = file.path.read_bytes()
        except OSError as exc:
            raise UsageError(
                f"{file.name}: cannot read the stored upload ({exc.strerror})"
            ) from exc
        stored.append(StoredFile(file.name, file.document, content))
    return stored
