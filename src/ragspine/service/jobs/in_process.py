"""The embedded job queue: uploaded files ingested off the request thread by worker threads of
this process, their state kept in the workspace's ``service.db`` so a restart loses none."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from ragspine.errors import RagSpineError, UsageError, withheld
from ragspine.ingestion.pipeline import FileResult, Outcome, SourceFile, ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.service.jobs.owner_lock import OwnerLock
from ragspine.service.jobs.queue import (
    JobFile,
    JobState,
    JobStatus,
    final_state,
    result_notes,
    status_of,
    superseded_result,
)
from ragspine.service.service_db import ServiceDb
from ragspine.storage.facts import utc_timestamp
from ragspine.workspace import QUEUES_NAME, Workspace

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

    def submit(
        self,
        files: list[JobFile],
        *,
        submitter: str = "",
        clearance: Sensitivity = Sensitivity.RESTRICTED,
        include_hidden: bool = False,
    ) -> str:
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
                "INSERT INTO jobs (job_id, state, submitter, clearance, include_hidden, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    job_id,
                    JobState.QUEUED.value,
                    submitter,
                    Sensitivity.parse(clearance).value,
                    int(include_hidden),
                    now,
                    now,
                ),
            )
            # Each file's place in the order uploads arrived (the write lock orders them).
            (last,) = conn.execute("SELECT coalesce(max(upload_seq), 0) FROM job_files").fetchone()
            conn.executemany(
                "INSERT INTO job_files (job_id, position, name, path, doc_id, upload_seq) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (job_id, n, f.name, str(f.path.resolve()), f.document, int(last) + 1 + n)
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
        return status_of(job_id, job, files, lambda notes: tuple(json.loads(notes)))

    def readiness(self) -> str:
        running = not self._stop.is_set() and all(t.is_alive() for t in self._threads)
        return "ok" if running else "not running"

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
        conn = self._db.connection()
        pending = conn.execute(
            "SELECT position, path, doc_id, upload_seq FROM job_files "
            "WHERE job_id = ? AND outcome = '' ORDER BY position",
            (job_id,),
        ).fetchall()
        clearance, include_hidden = conn.execute(
            "SELECT clearance, include_hidden FROM jobs WHERE job_id = ?", (job_id,)
        ).fetchone()
        try:
            finished = self._ingest(
                job_id,
                [(n, Path(p), d or Path(p).name, int(seq)) for n, p, d, seq in pending],
                Sensitivity.parse(clearance),
                include_hidden=bool(include_hidden),
            )
        except RagSpineError as exc:
            self._finish(job_id, JobState.FAILED, str(exc))
        except Exception as exc:
            self._finish(job_id, JobState.FAILED, f"unexpected {type(exc).__name__}: {exc}")
        else:
            if finished:
                outcomes = [
                    str(outcome)
                    for (outcome,) in conn.execute(
                        "SELECT outcome FROM job_files WHERE job_id = ?", (job_id,)
                    )
                ]
                self._finish(job_id, final_state(outcomes))
            else:
                with self._db.transaction() as conn:
                    self._set_state(conn, job_id, JobState.QUEUED)

    def _ingest(
        self,
        job_id: str,
        files: list[tuple[int, Path, str, int]],
        clearance: Sensitivity,
        *,
        include_hidden: bool,
    ) -> bool:
        """Ingest the job's unfinished files and refresh the indexes; ``False`` when the queue
        was closed before the last file (what was ingested stays; the rest runs later).

        Under the write lock, a file whose document already holds a newer upload is left
        alone (``superseded``): whichever job runs first, the newest upload wins."""
        ws = self._workspace
        with ws.write_lock(), ws.fact_store() as store:
            current = [f for f in files if not self._overtaken(job_id, f)]
            sources = [SourceFile(doc_id, path) for _, path, doc_id, _ in current]
            done = iter(current)

            def record(result: FileResult) -> None:
                position, path, doc_id, seq = next(done)
                self._record(job_id, position, path, result, (doc_id, seq))
                if self._stop.is_set():
                    raise _Stopping

            try:
                ingest(
                    [],
                    store,
                    ws.profile(),
                    files=sources,
                    on_file=record,
                    clearance=clearance,
                    include_hidden=include_hidden,
                )
                finished = True
            except _Stopping:
                finished = False
            # Even a job cut short makes what it ingested answerable now.
            refresh_indexes(ws, store, dense=self._dense)
        return finished

    def _overtaken(self, job_id: str, file: tuple[int, Path, str, int]) -> bool:
        """Record the file as superseded when its document holds a newer upload already."""
        position, path, doc_id, seq = file
        row = (
            self._db.connection()
            .execute("SELECT upload_seq FROM document_uploads WHERE doc_id = ?", (doc_id,))
            .fetchone()
        )
        if row is None or int(row[0]) <= seq:
            return False
        result = superseded_result(path.name, doc_id)
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE job_files SET outcome = ?, error = ? WHERE job_id = ? AND position = ?",
                (result.outcome, result.error, job_id, position),
            )
        return True

    def _record(
        self,
        job_id: str,
        position: int,
        path: Path,
        result: FileResult,
        upload: tuple[str, int],
    ) -> None:
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
                    json.dumps([hide(w) for w in result_notes(path, result)], ensure_ascii=False),
                    hide(result.error),
                    job_id,
                    position,
                ),
            )
            conn.execute(
                "UPDATE jobs SET updated_at = ? WHERE job_id = ?", (utc_timestamp(), job_id)
            )
            if result.outcome is not Outcome.FAILED:
                # The document holds this upload now (or already did: same bytes).
                conn.execute(
                    "INSERT INTO document_uploads (doc_id, upload_seq, job_id) VALUES (?, ?, ?) "
                    "ON CONFLICT (doc_id) DO UPDATE SET upload_seq = excluded.upload_seq, "
                    "job_id = excluded.job_id WHERE upload_seq < excluded.upload_seq",
                    (*upload, job_id),
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
