"""The RQ worker side of :class:`~ragspine.service.jobs.rq_jobs.RQJobQueue`: what
``ragspine worker`` runs.

A job's files come from PostgreSQL and go into the PostgreSQL workspace store through the
ingestion pipeline, which writes each document in one transaction: a worker killed
mid-document leaves the previous version of that document (or none), never half of one. Each
finished file's result is recorded at once; an attempt that runs again (a retry after the
worker died or the database went away) takes only the files not yet finished, and the
pipeline skips a file whose bytes it already holds.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Any

from ragspine.optional import import_optional

import_optional("rq", extra="scaleout")
import_optional("redis", extra="scaleout")

# The extra is checked above, so these imports are sure to find it.
import redis  # noqa: E402
from rq import Queue, SimpleWorker, Worker  # noqa: E402
from rq.exceptions import AbandonedJobError  # noqa: E402
from rq.job import Job  # noqa: E402
from rq.timeouts import JobTimeoutException  # noqa: E402

from ragspine.errors import RagSpineError, StoreError  # noqa: E402
from ragspine.ingestion.pipeline import FileResult, Outcome, SourceFile, ingest  # noqa: E402
from ragspine.profile.model import DomainProfile  # noqa: E402
from ragspine.service.jobs.job_lease import JobLease  # noqa: E402
from ragspine.service.jobs.job_reconciler import Reconciler  # noqa: E402
from ragspine.service.jobs.ordered_store import OrderedUploadStore  # noqa: E402
from ragspine.service.jobs.owner_lock import OwnerLock  # noqa: E402
from ragspine.service.jobs.pg_jobs import PendingFile, PostgresJobTable  # noqa: E402
from ragspine.service.jobs.queue import (  # noqa: E402
    JobFileResult,
    JobState,
    result_notes,
    superseded_result,
)
from ragspine.service.jobs.rq_jobs import RetryPolicy, queue_name_for  # noqa: E402
from ragspine.service.jobs.rq_liveness import (  # noqa: E402
    ForkingWorker,
    InProcessWorker,
    WorkerDuties,
)
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, redact  # noqa: E402
from ragspine.storage.postgres.workspace_store import PostgresWorkspaceStore  # noqa: E402

_log = logging.getLogger(__name__)

# How often a worker runs RQ's registry maintenance. A job whose worker died is not left to it
# (an idle worker blocks in its dequeue for minutes between runs): the reconciler
# (``service.jobs.job_reconciler``) finds it by its free lease within seconds.
MAINTENANCE_SECONDS = 60
# The folder of $TMPDIR holding each running worker's scratch folder.
SCRATCH_NAME = "ragspine-worker"


@dataclass(frozen=True)
class WorkerConfig:
    """Where a worker process ingests: its database, schema, profile and scratch folder."""

    database_url: str
    schema: str
    profile: DomainProfile
    scratch: Path


# Set once per worker process by :func:`run_worker`. RQ calls a job by its import path with
# the job's id only, and calls the failure callback of an abandoned job from whichever
# worker's maintenance finds it, so both read the process's configuration from here. It holds
# settings only: each job opens (and closes) its own connections, since a forking worker runs
# each job in a child process that must not share its parent's sockets.
_config: WorkerConfig | None = None


def _current() -> WorkerConfig:
    if _config is None:
        raise RuntimeError("an ingest job runs only in a worker started by `ragspine worker`")
    return _config


def run_ingest_job(job_id: str) -> str:
    """Ingest the unfinished files of one job (RQ's job function); returns its final state.

    The job runs only while this process holds its lease (``service.jobs.job_lease``): a second
    delivery of a job another live worker runs, or of one that ended, does nothing. Each file
    is written only if no newer upload of its document was written first; otherwise its
    result says ``superseded``, and so does the job's state."""
    config = _current()
    with JobLease(config.database_url, config.schema) as lease:
        if not lease.take_job(job_id):
            return "running in another worker"
        jobs = PostgresJobTable(config.database_url, schema=config.schema)
        try:
            pending = jobs.start(job_id)
            if pending is None:
                return "nothing to do"  # it ended: a second delivery of a finished job
            # A file a newer upload already overtook is not even read (checked again, under
            # the document's upload lock, when it is written).
            newest = lease.newest(f.doc_id for f in pending)
            current: list[PendingFile] = []
            for file in pending:
                if newest.get(file.doc_id, 0) > file.upload_seq:
                    jobs.record(job_id, file.position, superseded_result(file.name, file.doc_id))
                else:
                    current.append(file)
            if current:
                uploads = {f.doc_id: f.upload_seq for f in current}
                with OrderedUploadStore(
                    config.database_url,
                    schema=config.schema,
                    lease=lease,
                    job_id=job_id,
                    uploads=uploads,
                ) as store:
                    _ingest(job_id, current, jobs, store, config)
            return jobs.finish(job_id).value
        finally:
            jobs.close()


def _ingest(
    job_id: str,
    pending: list[PendingFile],
    jobs: PostgresJobTable,
    store: OrderedUploadStore,
    config: WorkerConfig,
) -> None:
    folder = Path(tempfile.mkdtemp(prefix=f"job-{job_id[:12]}-", dir=config.scratch))
    try:
        sources: list[SourceFile] = []
        where: dict[str, tuple[PendingFile, Path]] = {}
        for file in pending:
            # The readers go by the file's name (its suffix, the profile's file-name rules):
            # the kept upload name, the last part of its document id.
            path = folder / str(file.position) / _file_name(file.doc_id)
            path.parent.mkdir()
            path.write_bytes(file.content)
            sources.append(SourceFile(file.doc_id, path))
            where[file.doc_id] = (file, path)

        clearance, hidden = jobs.clearance(job_id), jobs.include_hidden(job_id)

        def record(result: FileResult) -> None:
            file, path = where[result.doc_id]
            unchanged = result.outcome in (Outcome.SKIPPED, Outcome.METADATA)
            if unchanged and not store.settle_unchanged(file.doc_id, file.content_hash):
                # Another upload was written since the pipeline found these bytes in place.
                source = [SourceFile(file.doc_id, path)]
                again = ingest(
                    [],
                    store,
                    config.profile,
                    files=source,
                    clearance=clearance,
                    include_hidden=hidden,
                )
                result = again.results[0]
            if file.doc_id in store.superseded:
                outcome = superseded_result(file.name, file.doc_id)
            else:
                outcome = _result(file.name, path, result)
            jobs.record(job_id, file.position, outcome)

        ingest(
            [],
            store,
            config.profile,
            files=sources,
            on_file=record,
            clearance=clearance,
            include_hidden=hidden,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _file_name(doc_id: str) -> str:
    name = PurePosixPath(doc_id).name
    return name if name not in ("", ".", "..") else "upload"


def _result(name: str, path: Path, result: FileResult) -> JobFileResult:
    def hide(text: str) -> str:
        # Where the worker unpacked the file is its own business: a result names the file.
        return text.replace(str(path), path.name)

    return JobFileResult(
        name,
        result.outcome.value,
        result.facts,
        result.blocks,
        result.review,
        tuple(hide(w) for w in result_notes(path, result)),
        hide(result.error),
    )


def job_failed(
    job: Job,
    connection: redis.Redis,
    kind: type[BaseException],
    value: BaseException,
    traceback: TracebackType | None,
) -> None:
    """RQ's failure callback (an attempt raised, or a dead worker's job was found)."""
    _record_failure(job, failure_reason(value, job.timeout))


def _horse_killed(job: Job, pid: int, status: int, usage: object) -> None:
    """RQ calls this when the child process running a job dies (the OOM killer, a kill -9)
    and then retries the job or fails it, without the failure callback."""
    died = f" (signal {os.WTERMSIG(status)})" if os.WIFSIGNALED(status) else ""
    _record_failure(job, f"the process ingesting it ended{died} before it finished")


def _record_failure(job: Job, reason: str) -> None:
    """A job about to be retried goes back to ``queued``; one with no retry left is
    ``failed``, with the reason (RQ decrements the retries left after this). Only a job still
    ``running`` with no live process holding its lease changes: RQ may report the failure of
    a delivery long after the reconciler queued the job again and another worker took it."""
    config = _current()
    job_id = str(job.args[0])  # run_ingest_job's argument: the job's id in PostgreSQL
    with JobLease(config.database_url, config.schema) as lease:
        if not lease.take_job(job_id):
            return
        jobs = PostgresJobTable(config.database_url, schema=config.schema)
        try:
            status = jobs.status(job_id)
            if status is None or status.state is not JobState.RUNNING:
                return
            if job.retries_left:
                _log.warning(
                    "job %s failed (%s); %d retries left", job_id, reason, job.retries_left
                )
                jobs.set_state(job_id, JobState.QUEUED)
            else:
                jobs.set_state(job_id, JobState.FAILED, reason)
        finally:
            jobs.close()


def failure_reason(error: BaseException, timeout: Any = None) -> str:
    """Why an attempt failed, in words a status can show (never a traceback)."""
    if isinstance(error, AbandonedJobError):
        return "the worker running it stopped before it finished (killed or cut off)"
    if isinstance(error, JobTimeoutException):
        return f"it ran longer than its {timeout} s limit"
    if isinstance(error, RagSpineError):
        return str(error)
    return f"unexpected {type(error).__name__}: {error}"


def run_worker(
    database_url: str,
    redis_url: str,
    profile: DomainProfile,
    *,
    schema: str = DEFAULT_SCHEMA,
    queue_name: str | None = None,
    burst: bool = False,
    fork: bool = True,
    scratch: Path | None = None,
) -> bool:
    """Serve the deployment's ingest queue until stopped (or, with ``burst``, until it is
    empty); whether any job ran.

    The schema is checked first, so a worker on an old schema refuses to start. With ``fork``
    (RQ's default worker) each job runs in a child process that RQ watches and heartbeats;
    without it (``SimpleWorker``) in this process.
    """
    global _config
    # Opening the store checks the schema version; it is closed again before any fork.
    PostgresWorkspaceStore(database_url, schema=schema).close()
    connection = redis.Redis.from_url(redis_url)
    try:
        connection.ping()
    except redis.RedisError as exc:
        connection.close()
        raise StoreError(f"cannot reach Redis at {redact(redis_url)}: {exc}") from exc
    owner: OwnerLock | None = None
    if scratch is None:
        scratch, owner = _own_scratch()
    scratch.mkdir(parents=True, exist_ok=True)
    _config = WorkerConfig(database_url, schema, profile, scratch)
    queue = Queue(queue_name or queue_name_for(schema), connection=connection)
    worker_class: type[Worker] | type[SimpleWorker] = ForkingWorker if fork else InProcessWorker
    worker = worker_class(
        [queue],
        connection=connection,
        maintenance_interval=MAINTENANCE_SECONDS,
        work_horse_killed_handler=_horse_killed,
    )
    # The heartbeat `/readyz` reads and RQ's scheduler run in a thread of this process (see
    # rq_liveness), so no scheduler child is forked to outlive a killed worker. The reconciler
    # has a Redis connection of its own: it runs beside the worker's loop.
    duties = WorkerDuties(worker, redis_url, queue)
    reconciler_redis = redis.Redis.from_url(redis_url)
    reconciler = Reconciler(
        database_url, schema, Queue(queue.name, connection=reconciler_redis), RetryPolicy()
    )
    duties.start()
    try:
        # A burst worker's only pass comes before its jobs; a serving worker's passes run on
        # their own thread (the first at once), never in the loop that takes jobs.
        if burst:
            reconciler.run_once()
        else:
            reconciler.start()
        return worker.work(burst=burst, with_scheduler=False, logging_level="WARNING")
    finally:
        reconciler.stop()
        reconciler_redis.close()
        duties.stop()
        connection.close()
        if owner is not None:
            shutil.rmtree(scratch, ignore_errors=True)
            owner.release()


def _own_scratch() -> tuple[Path, OwnerLock]:
    """This worker's scratch folder, ``$TMPDIR/ragspine-worker/<owner>/``, named after a lock
    it holds while it runs (its job processes inherit it). A worker killed with SIGKILL cannot
    remove its folder — the copies of the files it was ingesting — so each worker, starting,
    removes those of the workers whose lock is free: they ended."""
    owner = OwnerLock(Path(tempfile.gettempdir()) / SCRATCH_NAME)
    # A worker killed before it made its folder leaves its lock file alone.
    names = {p.name.removesuffix(".lock") for p in owner.folder.iterdir()}
    for name in sorted(names):
        if not owner.is_alive(name):  # and its lock file is gone
            shutil.rmtree(owner.folder / name, ignore_errors=True)
    return owner.folder / owner.name, owner
