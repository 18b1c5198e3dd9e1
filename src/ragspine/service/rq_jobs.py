"""The scale-out :class:`~ragspine.service.jobs.JobQueue`: jobs recorded in PostgreSQL and
run by RQ workers (``ragspine worker``) that Redis hands their ids to.

A job's state, per-file results and uploaded bytes live in PostgreSQL, so any API process
reads any job's status and any worker, on any machine, can ingest its files; Redis carries
only the job's id, its retries and its place in the queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragspine.optional import import_optional

import_optional("rq", extra="scaleout")
import_optional("redis", extra="scaleout")

# The extra is checked above, so these imports are sure to find rq and redis.
import redis  # noqa: E402
from rq import Callback, Queue, Retry, Worker  # noqa: E402
from rq.job import Job  # noqa: E402

from ragspine.errors import StoreError, UsageError  # noqa: E402
from ragspine.service.jobs import JobFile, JobState, JobStatus  # noqa: E402
from ragspine.service.pg_jobs import PostgresJobTable, StoredFile, job_id_for  # noqa: E402
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, redact  # noqa: E402

# What a worker runs, named by import path: the API process never imports the ingestion code.
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
    """A :class:`~ragspine.service.jobs.JobQueue` over PostgreSQL (state, results, bytes) and
    RQ on Redis (delivery to ``ragspine worker`` processes).

    ``submit`` reads each file's bytes (at most the upload limit) into the job's rows and
    enqueues the job's id; the id is a digest of the submitter and each file's document id
    and bytes, so the same upload sent twice is one job. Sending again a job that failed
    queues it again; one whose queue entry Redis lost is queued again too.
    """

    def __init__(
        self,
        database_url: str,
        redis_url: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        queue_name: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._retry = retry or RetryPolicy()
        self._jobs = PostgresJobTable(database_url, schema=schema)
        self._redis_url = redact(redis_url)
        try:
            self._redis = redis.Redis.from_url(redis_url)
            self._redis.ping()
        except (redis.RedisError, ValueError) as exc:
            self._jobs.close()
            raise StoreError(f"cannot reach Redis at {self._redis_url}: {exc}") from exc
        self._queue = Queue(queue_name or queue_name_for(schema), connection=self._redis)

    @property
    def queue_name(self) -> str:
        return self._queue.name

    def submit(self, files: list[JobFile], *, submitter: str = "") -> str:
        stored = _stored(files)
        job_id = job_id_for(stored, submitter)
        if (
            self._jobs.insert(job_id, stored, submitter)
            or self._jobs.requeue_failed(job_id)
            or self._lost(job_id)
        ):
            self._enqueue(job_id)
        return job_id

    def status(self, job_id: str) -> JobStatus | None:
        return self._jobs.status(job_id)

    def healthy(self) -> bool:
        """Jobs are being run: PostgreSQL and Redis answer and a worker serves the queue."""
        try:
            self._redis.ping()
            workers = Worker.count(queue=self._queue)
        except redis.RedisError:
            return False
        return workers > 0 and self._jobs.ping()

    def close(self) -> None:
        self._jobs.close()
        self._redis.close()

    def rq_job_id(self, job_id: str) -> str:
        """The job's id in Redis: prefixed with its queue, since the same upload sent to two
        deployments sharing one Redis is a job of each."""
        return f"{self._queue.name}-{job_id}"

    def _lost(self, job_id: str) -> bool:
        """A job still to run that Redis no longer holds (flushed, or never queued)."""
        status = self._jobs.status(job_id)
        pending = status is not None and status.state in (JobState.QUEUED, JobState.RUNNING)
        try:
            return pending and not Job.exists(self.rq_job_id(job_id), connection=self._redis)
        except redis.RedisError as exc:
            raise StoreError(f"cannot reach Redis at {self._redis_url}: {exc}") from exc

    def _enqueue(self, job_id: str) -> None:
        try:
            self._queue.enqueue_call(
                JOB_FUNCTION,
                args=(job_id,),
                job_id=self.rq_job_id(job_id),
                timeout=self._retry.timeout,
                retry=self._retry.rq_retry(),
                on_failure=Callback(FAILURE_CALLBACK),
                description=f"ingest job {job_id}",
            )
        except redis.RedisError as exc:
            # Recorded as failed, so sending the same files again queues it once more.
            reason = f"could not be queued: Redis at {self._redis_url}: {exc}"
            self._jobs.set_state(job_id, JobState.FAILED, reason)
            raise StoreError(f"job {job_id} {reason}") from exc


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
