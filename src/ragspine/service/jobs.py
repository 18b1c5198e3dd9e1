"""Ingestion jobs: uploaded files ingested off the request thread, their state kept with the
workspace so a restart loses none.

The app talks to a :class:`JobQueue`; the embedded default runs jobs in-process, the scale-out
path on RQ workers behind the same Protocol.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import sqlite3
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from ragspine.errors import RagSpineError, UsageError, withheld
from ragspine.ingestion.pipeline import FileResult, SourceFile, ingest
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.service.service_db import ServiceDb
from ragspine.storage.facts import utc_timestamp
from ragspine.workspace import QUEUES_NAME, Workspace


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class JobFile:
    """One upload: the client's file name (display only, never a path), the stored copy
    inside the workspace and the document id it is ingested as (default: the file's name)."""

    name: str
    path: Path
    doc_id: str = ""

    @property
    def document(self) -> str:
        return self.doc_id or self.path.name


@dataclass(frozen=True)
class JobFileResult:
    """What ingesting one file of a job gave (mirrors the ingest report's per-file line)."""

    name: str
    outcome: str
    facts: int = 0
    chunks: int = 0
    review: int = 0
    warnings: tuple[str, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class JobStatus:
    job_id: str
    state: JobState
    files_total: int
    files_done: int
    results: tuple[JobFileResult, ...] = field(default=())
    error: str = ""
    created_at: str = ""
    updated_at: str = ""
    # The name of the API key that submitted the job ("" when submitted without one).
    submitter: str = ""

    @property
    def progress(self) -> float:
        """Share of the job's files finished, 0.0 to 1.0."""
        return self.files_done / self.files_total if self.files_total else 1.0


class JobQueue(Protocol):
    """Accepts uploads for ingestion and reports on them."""

    def submit(self, files: list[JobFile], *, submitter: str = "") -> str:
        """Queue the files as one job; returns its id. The files are already in the workspace;
        ``submitter`` names the key that sent them (its status is that key's to read)."""
        ...

    def status(self, job_id: str) -> JobStatus | None: ...

    def healthy(self) -> bool:
        """Whether jobs are being run (for ``/readyz``)."""
        ...

    def close(self) -> None: ...


_log = logging.getLogger(__name__)


class InProcessJobQueue:
    """The embedded :class:`JobQueue`: jobs in ``DIR/service.db``, run by worker threads of
    this process, one job at a time per worker.

    A job is ingested as one pipeline call over its files, under the workspace's write lock
    as ``ragspine ingest`` does: conflicts between files of the same job are then found as in
    any batch, and the search index is refreshed once, after the last file. Each finished
    file is recorded at once, so a status shows ``files_done`` growing.

    A job is ``done`` when it ran, whatever its files gave (each file's outcome and error are
    in its result), and ``failed`` only when it could not run (the store could not be
    written, the profile is malformed...), with the reason in ``error``.

    Restarts lose nothing: a job is claimed in one transaction by a live queue, which holds a
    lock file (``DIR/queues/<owner>.lock``) for as long as it runs. A queue, when it starts
    and whenever it is idle, queues again the running jobs whose owner's lock is free — their
    process ended — and they run again, from their first unfinished file. Ingestion skips a
    file it already holds (same bytes), so running one twice is harmless. Several processes
    (server workers) may each run a queue on the same workspace; the write lock serialises
    their ingestion.

    ``on_finished`` is called on the worker thread with each job's final status (the app can
    reopen its search indexes there); ``dense`` is passed to the index refresh as the
    ``--dense`` option of ``ragspine ingest``.
    """

    def __init__(
        self,
        workspace: Workspace,
        *,
        workers: int = 1,
        poll_seconds: float = 1.0,
        on_finished: Callable[[JobStatus], None] | None = None,
        dense: str | None = None,
    ) -> None:
        if workers < 1:
            raise UsageError(f"workers must be at least 1, not {workers}")
        self._workspace = workspace
        self._poll = poll_seconds
        self._on_finished = on_finished
        self._dense = dense
        self._db = ServiceDb(workspace)
        self._owner = OwnerLock(workspace.root / QUEUES_NAME)
        self._stop = threading.Event()
        self._wake = threading.Event()
        try:
            self._requeue_orphans()
        except BaseException:
            self._owner.release()
            self._db.close()
            raise
        self._threads = [
            threading.Thread(target=self._work, name=f"ragspine-jobs-{n}", daemon=True)
            for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, files: list[JobFile], *, submitter: str = "") -> str:
        if not files:
            raise UsageError("a job needs at least one file")
        uploads = self._workspace.uploads_path.resolve()
        names: set[str] = set()
        for file in files:
            path = file.path.resolve()
            if not path.is_relative_to(uploads) or not path.is_file():
                raise UsageError(f"{file.name}: not an upload stored in this workspace")
            if path.name in names:
                raise UsageError(f"two files of the job are stored as {path.name}")
            names.add(path.name)
        job_id = uuid.uuid4().hex
        now = utc_timestamp()
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO jobs (job_id, state, submitter, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (job_id, JobState.QUEUED.value, submitter, now, now),
            )
            conn.executemany(
                "INSERT INTO job_files (job_id, position, name, path, doc_id) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (job_id, n, f.name, str(f.path.resolve()), f.document)
                    for n, f in enumerate(files)
                ],
            )
        self._wake.set()
        return job_id

    def status(self, job_id: str) -> JobStatus | None:
        """The job's state, with the results of the files finished so far in upload order."""
        conn = self._db.connection()
        job = conn.execute(
            "SELECT state, error, created_at, updated_at, submitter FROM jobs WHERE job_id = ?",
            (job_id,),
        ).fetchone()
        if job is None:
            return None
        files = conn.execute(
            "SELECT name, outcome, facts, chunks, review, warnings, error FROM job_files "
            "WHERE job_id = ? ORDER BY position",
            (job_id,),
        ).fetchall()
        results = tuple(
            JobFileResult(name, outcome, facts, chunks, review, tuple(json.loads(notes)), error)
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

    def healthy(self) -> bool:
        return not self._stop.is_set() and all(t.is_alive() for t in self._threads)

    def close(self) -> None:
        """Stop the workers, waiting for the file each is ingesting (its own safety limits
        bound how long that takes); a job cut short is queued again, to finish on the next
        start."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join()
        self._owner.release()
        self._db.close()

    # ----------------------------------------------------------------- worker side

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                job_id = self._claim()
                if job_id is None:
                    self._wake.wait(self._poll)
                    self._wake.clear()
                    self._requeue_orphans()
                else:
                    self._run(job_id)
            except Exception as exc:  # the worker outlives any one failure; /readyz watches it
                _log.error("job worker: unexpected error: %s", withheld(exc))
                self._stop.wait(self._poll)

    def _claim(self) -> str | None:
        """Take the oldest queued job for this queue, or ``None`` when there is none."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT job_id FROM jobs WHERE state = ? ORDER BY created_at, job_id LIMIT 1",
                (JobState.QUEUED.value,),
            ).fetchone()
            if row is None or self._stop.is_set():
                return None
            self._set_state(conn, row[0], JobState.RUNNING, owner=self._owner.name)
        return str(row[0])

    def _run(self, job_id: str) -> None:
        pending = (
            self._db.connection()
            .execute(
                "SELECT position, path, doc_id FROM job_files WHERE job_id = ? AND outcome = '' "
                "ORDER BY position",
                (job_id,),
            )
            .fetchall()
        )
        try:
            finished = self._ingest(
                job_id, [(n, Path(p), d or Path(p).name) for n, p, d in pending]
            )
        except RagSpineError as exc:
            self._finish(job_id, JobState.FAILED, str(exc))
        except Exception as exc:
            self._finish(job_id, JobState.FAILED, f"unexpected {type(exc).__name__}: {exc}")
        else:
            if finished:
                self._finish(job_id, JobState.DONE)
            else:
                with self._db.transaction() as conn:
                    self._set_state(conn, job_id, JobState.QUEUED)

    def _ingest(self, job_id: str, files: list[tuple[int, Path, str]]) -> bool:
        """Ingest the job's unfinished files and refresh the indexes; ``False`` when the queue
        was closed before the last file (what was ingested stays; the rest runs later)."""
        sources = [SourceFile(doc_id, path) for _, path, doc_id in files]
        done = iter(files)

        def record(result: FileResult) -> None:
            position, path, _ = next(done)
            self._record(job_id, position, path, result)
            if self._stop.is_set():
                raise _Stopping

        ws = self._workspace
        with ws.write_lock(), ws.fact_store() as store:
            try:
                ingest([], store, ws.profile(), files=sources, on_file=record)
                finished = True
            except _Stopping:
                finished = False
            # Even a job cut short makes what it ingested answerable now.
            refresh_indexes(ws, store, dense=self._dense)
        return finished

    def _record(self, job_id: str, position: int, path: Path, result: FileResult) -> None:
        def hide(text: str) -> str:
            # The stored path is the server's business: a result names the file only.
            return text.replace(str(path), path.name)

        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE job_files SET outcome = ?, facts = ?, chunks = ?, review = ?, "
                "warnings = ?, error = ? WHERE job_id = ? AND position = ?",
                (
                    result.outcome.value,
                    result.facts,
                    result.blocks,
                    result.review,
                    json.dumps([hide(w) for w in result.warnings], ensure_ascii=False),
                    hide(result.error),
                    job_id,
                    position,
                ),
            )
            conn.execute(
                "UPDATE jobs SET updated_at = ? WHERE job_id = ?", (utc_timestamp(), job_id)
            )

    def _finish(self, job_id: str, state: JobState, error: str = "") -> None:
        with self._db.transaction() as conn:
            self._set_state(conn, job_id, state, error=error)
        if self._on_finished is None:
            return
        status = self.status(job_id)
        try:
            if status is not None:
                self._on_finished(status)
        except Exception:
            _log.exception("job %s: the on_finished callback failed", job_id)

    def _requeue_orphans(self) -> None:
        """Queue again the running jobs whose queue's process has ended."""
        conn = self._db.connection()
        owners = conn.execute(
            "SELECT DISTINCT owner FROM jobs WHERE state = ?", (JobState.RUNNING.value,)
        ).fetchall()
        for (owner,) in owners:
            if self._owner.is_alive(owner):
                continue
            with self._db.transaction() as conn:
                conn.execute(
                    "UPDATE jobs SET state = ?, owner = '', updated_at = ? "
                    "WHERE state = ? AND owner = ?",
                    (JobState.QUEUED.value, utc_timestamp(), JobState.RUNNING.value, owner),
                )
            _log.warning("jobs left running by an ended process were queued again")

    def remove_unqueued_uploads(self) -> None:
        """Delete the uploads no job names: the files of a request whose process ended (a
        kill, a crash) after storing them and before queueing their job, which nothing would
        ever ingest or remove. The service calls it once, before it takes any request; it does
        nothing while another queue runs on this workspace, since that one may be between
        those two steps right now."""
        uploads = self._workspace.uploads_path
        if not uploads.is_dir() or self._owner.others_alive():
            return
        conn = self._db.connection()
        named = {Path(path) for (path,) in conn.execute("SELECT path FROM job_files")}
        stray = [p for p in uploads.rglob("*") if p.is_file() and p.resolve() not in named]
        for path in stray:
            path.unlink(missing_ok=True)
        for folder in sorted((p for p in uploads.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
        if stray:
            _log.warning(
                "removed %d uploaded file(s) whose request ended before its job was queued",
                len(stray),
            )

    @staticmethod
    def _set_state(
        conn: sqlite3.Connection, job_id: str, state: JobState, *, owner: str = "", error: str = ""
    ) -> None:
        conn.execute(
            "UPDATE jobs SET state = ?, owner = ?, error = ?, updated_at = ? WHERE job_id = ?",
            (state.value, owner, error, utc_timestamp(), job_id),
        )


class _Stopping(Exception):
    """Raised from the per-file callback to end a job early when the queue closes."""


class OwnerLock:
    """A lock file ``<folder>/<name>.lock`` held for as long as its holder runs: while it is
    held, what the holder owns (the jobs a queue claimed, a worker's scratch folder) is its
    own; once free (the process ended, even by ``kill -9``), it is an orphan."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(exist_ok=True)
        self.folder = folder
        self.name = uuid.uuid4().hex
        self._fd: int | None = os.open(self._path(self.name), os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def is_alive(self, owner: str) -> bool:
        if owner == self.name and self._fd is not None:
            return True
        if not re.fullmatch(r"[0-9a-f]{32}", owner):
            return False
        try:
            fd = os.open(self._path(owner), os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        self._path(owner).unlink(missing_ok=True)
        return False

    def others_alive(self) -> bool:
        """Whether another holder of a lock in this folder still runs."""
        return any(
            self.is_alive(lock.stem)
            for lock in self.folder.glob("*.lock")
            if lock.stem != self.name
        )

    def release(self) -> None:
        if self._fd is not None:
            self._path(self.name).unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def _path(self, owner: str) -> Path:
        return self.folder / f"{owner}.lock"
