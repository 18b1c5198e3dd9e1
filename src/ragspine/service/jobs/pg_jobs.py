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
from ragspine.profile.sensitivity import Sensitivity  # noqa: E402
from ragspine.service.jobs.queue import (  # noqa: E402
    JobFileResult,
    JobState,
    JobStatus,
    final_state,
    status_of,
)
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
    # The file's place in the order uploads arrived (the higher, the newer upload).
    upload_seq: int = 0

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def job_id_for(files: Sequence[StoredFile], submitter: str, include_hidden: bool = False) -> str:
    """The job's id, a digest of who sent which bytes as which documents, and how they are
    read: the same upload sent twice is one job (a retried request does not ingest twice),
    and sent again to read its hidden content another."""
    digest = hashlib.sha256(f"ragspine-job\0{submitter}".encode())
    if include_hidden:
        digest.update(b"\0include_hidden")
    for file in files:
        digest.update(f"\0{file.doc_id}\0{file.content_hash}".encode())
    return digest.hexdigest()[:32]


class PostgresJobTable:
    """The ``jobs`` and ``job_files`` tables of one deployment's schema."""

    def __init__(
        self, url: str, *, schema: str = DEFAULT_SCHEMA, database: PostgresDatabase | None = None
    ) -> None:
        # ``database``: a pool this process already holds on the schema (its owner closes it).
        self._owns_db = database is None
        self._db = open_checked(url, schema=schema) if database is None else database

    @property
    def database(self) -> PostgresDatabase:
        return self._db

    def insert(
        self,
        job_id: str,
        files: Sequence[StoredFile],
        submitter: str,
        clearance: Sensitivity = Sensitivity.RESTRICTED,
        include_hidden: bool = False,
    ) -> bool:
        """Record a new queued job; ``False`` when the job already exists (nothing changes)."""
        now = utc_timestamp()
        level = Sensitivity.parse(clearance).value
        with self._transaction("record a job") as conn:
            inserted = conn.execute(
                "INSERT INTO jobs (job_id, state, submitter, clearance, include_hidden, "
                "created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (job_id) DO NOTHING",
                (job_id, JobState.QUEUED.value, submitter, level, include_hidden, now, now),
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
        return status_of(job_id, job, files, tuple)

    def clearance(self, job_id: str) -> Sensitivity:
        """The clearance the job was submitted with (PUBLIC for an unknown job)."""
        with self._read("read a job") as conn:
            row = conn.execute("SELECT clearance FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
        return Sensitivity.parse(row[0]) if row is not None else Sensitivity.PUBLIC

    def include_hidden(self, job_id: str) -> bool:
        """Whether the job reads hidden content (``False`` for an unknown job)."""
        with self._read("read a job") as conn:
            row = conn.execute(
                "SELECT include_hidden FROM jobs WHERE job_id = %s", (job_id,)
            ).fetchone()
        return row is not None and bool(row[0])

    def start(self, job_id: str) -> list[PendingFile] | None:
        """Mark the job running (one more attempt) and return its unfinished files; ``None``
        when there is no such job or it is no longer to run (a duplicate delivery of a job
        that ended). The caller holds the job's lease (``service.jobs.job_lease``)."""
        with self._transaction("start a job") as conn:
            row = conn.execute(
                "UPDATE jobs SET state = %s, attempts = attempts + 1, updated_at = %s "
                "WHERE job_id = %s AND state IN (%s, %s) RETURNING job_id",
                (
                    JobState.RUNNING.value,
                    utc_timestamp(),
                    job_id,
                    JobState.QUEUED.value,
                    JobState.RUNNING.value,
                ),
            ).fetchone()
            if row is None:
                return None
            rows = conn.execute(
                "SELECT position, name, doc_id, content, upload_seq FROM job_files "
                "WHERE job_id = %s AND outcome = '' ORDER BY position",
                (job_id,),
            ).fetchall()
        return [
            PendingFile(int(p), name, doc_id, bytes(data), int(seq))
            for p, name, doc_id, data, seq in rows
        ]

    def finish(self, job_id: str) -> JobState:
        """End a job that ran: ``superseded`` when a newer upload overtook any of its files,
        ``done`` otherwise."""
        with self._transaction("finish a job") as conn:
            outcomes = [
                str(outcome)
                for (outcome,) in conn.execute(
                    "SELECT outcome FROM job_files WHERE job_id = %s", (job_id,)
                )
            ]
            state = final_state(outcomes)
            conn.execute(
                "UPDATE jobs SET state = %s, error = '', updated_at = %s WHERE job_id = %s",
                (state.value, utc_timestamp(), job_id),
            )
        return state

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

    def forget(self, job_id: str) -> None:
        """Remove a job that was never queued (its queue refused it), with its files' bytes."""
        with self._transaction("remove a job") as conn:
            conn.execute("DELETE FROM job_files WHERE job_id = %s", (job_id,))
            conn.execute("DELETE FROM jobs WHERE job_id = %s", (job_id,))

    def requeue_failed(self, job_id: str) -> bool:
        """Queue again a job sent again: one that failed or was canceled (its finished files
        stay finished), or one that ended while a newer upload of one of its documents has
        been written since — sent again, it is the newest upload, so it takes a new place in
        the upload order and all its files run again. ``False`` when none of these holds."""
        now = utc_timestamp()
        with self._transaction("queue a job again") as conn:
            if conn.execute(
                "UPDATE jobs SET state = %s, error = '', attempts = 0, updated_at = %s "
                "WHERE job_id = %s AND state IN (%s, %s)",
                (
                    JobState.QUEUED.value,
                    now,
                    job_id,
                    JobState.FAILED.value,
                    JobState.CANCELED.value,
                ),
            ).rowcount:
                return True
            overtaken = conn.execute(
                "SELECT 1 FROM jobs j WHERE j.job_id = %s AND j.state IN (%s, %s) AND EXISTS "
                "(SELECT 1 FROM job_files f JOIN document_uploads u USING (doc_id) "
                "WHERE f.job_id = j.job_id AND u.upload_seq > f.upload_seq) FOR UPDATE",
                (job_id, JobState.DONE.value, JobState.SUPERSEDED.value),
            ).fetchone()
            if overtaken is None:
                return False
            conn.execute(
                "UPDATE job_files SET upload_seq = nextval('upload_order'), outcome = '', "
                "facts = 0, chunks = 0, review = 0, warnings = '[]', error = '' "
                "WHERE job_id = %s",
                (job_id,),
            )
            conn.execute(
                "UPDATE jobs SET state = %s, error = '', attempts = 0, updated_at = %s "
                "WHERE job_id = %s",
                (JobState.QUEUED.value, now, job_id),
            )
        return True

    def ping(self) -> bool:
        try:
            with self._db.connection() as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def close(self) -> None:
        if self._owns_db:
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
