"""Ingestion jobs in PostgreSQL: their state, per-file results and uploaded bytes.

The tables (schema step 4) are what every API process reads a job's status from and what
every RQ worker takes a job's files from; Redis only carries the job's id to a worker.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ragspine.optional import import_optional

import_optional("psycopg", extra="postgres")

# The extra is checked above, so these imports are sure to find it.
import psycopg  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from ragspine.errors import StoreError  # noqa: E402
from ragspine.service.jobs import JobFileResult, JobState, JobStatus  # noqa: E402
from ragspine.storage.facts import utc_timestamp  # noqa: E402
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase  # noqa: E402
from ragspine.storage.postgres.migrations import open_checked  # noqa: E402


@dataclass(frozen=True)
class StoredFile:
    """One file of a job as submitted: display name, document id and bytes."""

    name: str
    doc_id: str
    content: bytes

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass(frozen=True)
class PendingFile:
    """A file of a job not yet ingested, as a worker takes it."""

    position: int
    name: str
    doc_id: str
    content: bytes


def job_id_for(files: Sequence[StoredFile], submitter: str) -> str:
    """The job's id, a digest of who sent which bytes as which documents: the same upload
    sent twice is one job (a retried request does not ingest twice)."""
    digest = hashlib.sha256(f"ragspine-job\0{submitter}".encode())
    for file in files:
        digest.update(f"\0{file.doc_id}\0{file.content_hash}".encode())
    return digest.hexdigest()[:32]


class PostgresJobTable:
    """The ``jobs`` and ``job_files`` tables of one deployment's schema."""

    def __init__(self, url: str, *, schema: str = DEFAULT_SCHEMA) -> None:
        self._db = open_checked(url, schema=schema)

    @property
    def database(self) -> PostgresDatabase:
        return self._db

    def insert(self, job_id: str, files: Sequence[StoredFile], submitter: str) -> bool:
        """Record a new queued job; ``False`` when the job already exists (nothing changes)."""
        now = utc_timestamp()
        with self._transaction("record a job") as conn:
            inserted = conn.execute(
                "INSERT INTO jobs (job_id, state, submitter, created_at, updated_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (job_id) DO NOTHING",
                (job_id, JobState.QUEUED.value, submitter, now, now),
            ).rowcount
            if not inserted:
                return False
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO job_files (job_id, position, name, doc_id, content_hash, "
                    "content) VALUES (%s, %s, %s, %s, %s, %s)",
                    [
                        (job_id, n, f.name, f.doc_id, f.content_hash, f.content)
                        for n, f in enumerate(files)
                    ],
                )
        return True

    def status(self, job_id: str) -> JobStatus | None:
        """The job's state, with the results of the files finished so far in upload order."""
        with self._read("read a job") as conn:
            job = conn.execute(
                "SELECT state, error, created_at, updated_at, submitter FROM jobs "
                "WHERE job_id = %s",
                (job_id,),
            ).fetchone()
            if job is None:
                return None
            files = conn.execute(
                "SELECT name, outcome, facts, chunks, review, warnings, error FROM job_files "
                "WHERE job_id = %s ORDER BY position",
                (job_id,),
            ).fetchall()
        results = tuple(
            JobFileResult(name, outcome, facts, chunks, review, tuple(notes), error)
            for name, outcome, facts, chunks, review, notes, error in files
            if outcome
        )
        state, error, created, updated, submitter = job
        return JobStatus(
            job_id,
            JobState(state),
            len(files),
            len(results),
            results,
            error,
            created,
            updated,
            submitter,
        )

    def start(self, job_id: str) -> list[PendingFile] | None:
        """Mark the job running (one more attempt) and return its unfinished files; ``None``
        when there is no such job or it is already done (a duplicate delivery)."""
        with self._transaction("start a job") as conn:
            row = conn.execute(
                "UPDATE jobs SET state = %s, attempts = attempts + 1, updated_at = %s "
                "WHERE job_id = %s AND state <> %s RETURNING job_id",
                (JobState.RUNNING.value, utc_timestamp(), job_id, JobState.DONE.value),
            ).fetchone()
            if row is None:
                return None
            rows = conn.execute(
                "SELECT position, name, doc_id, content FROM job_files "
                "WHERE job_id = %s AND outcome = '' ORDER BY position",
                (job_id,),
            ).fetchall()
        return [PendingFile(int(p), name, doc_id, bytes(data)) for p, name, doc_id, data in rows]

    def record(self, job_id: str, position: int, result: JobFileResult) -> None:
        """Store one finished file's result."""
        with self._transaction("record a file's result") as conn:
            conn.execute(
                "UPDATE job_files SET outcome = %s, facts = %s, chunks = %s, review = %s, "
                "warnings = %s, error = %s WHERE job_id = %s AND position = %s",
                (
                    result.outcome,
                    result.facts,
                    result.chunks,
                    result.review,
                    Jsonb(list(result.warnings)),
                    result.error,
                    job_id,
                    position,
                ),
            )
            conn.execute(
                "UPDATE jobs SET updated_at = %s WHERE job_id = %s", (utc_timestamp(), job_id)
            )

    def set_state(self, job_id: str, state: JobState, error: str = "") -> None:
        with self._transaction("update a job") as conn:
            conn.execute(
                "UPDATE jobs SET state = %s, error = %s, updated_at = %s WHERE job_id = %s",
                (state.value, error, utc_timestamp(), job_id),
            )

    def requeue_failed(self, job_id: str) -> bool:
        """Queue a failed job again (its finished files stay finished); ``False`` if it was
        not failed."""
        with self._transaction("queue a job again") as conn:
            return bool(
                conn.execute(
                    "UPDATE jobs SET state = %s, error = '', updated_at = %s "
                    "WHERE job_id = %s AND state = %s",
                    (JobState.QUEUED.value, utc_timestamp(), job_id, JobState.FAILED.value),
                ).rowcount
            )

    def ping(self) -> bool:
        try:
            with self._db.connection() as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self, action: str) -> Iterator[psycopg.Connection[Any]]:
        """Run the block as one write transaction; any failure rolls all of it back."""
        try:
            with self._db.transaction() as conn:
                yield conn
        except psycopg.Error as exc:
            raise self._failure(action, exc) from exc

    @contextmanager
    def _read(self, action: str) -> Iterator[psycopg.Connection[Any]]:
        try:
            with self._db.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise self._failure(action, exc) from exc

    def _failure(self, action: str, exc: psycopg.Error) -> StoreError:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"PostgreSQL database {self._db.describe()}: cannot {action}: {reason}")
