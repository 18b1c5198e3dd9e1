"""Ingestion jobs: what every queue reports and the Protocol the app talks to.

The app talks to a :class:`JobQueue`; the embedded default runs jobs in-process
(``service.jobs.in_process``), the scale-out path on RQ workers (``service.jobs.rq_jobs``)
behind the same Protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from ragspine.ingestion.model import hidden_note
from ragspine.ingestion.pipeline import FileResult
from ragspine.profile.sensitivity import Sensitivity


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    # Ran, but a newer upload of one of its documents had been written first: that file was
    # left alone (its result says ``superseded``), since the newest upload wins.
    SUPERSEDED = "superseded"
    # Withdrawn by an operator before it ran (``ragspine jobs cancel``).
    CANCELED = "canceled"


# The states a job ends in: nothing runs it again unless it is sent (or requeued) again.
FINAL_STATES = frozenset({JobState.DONE, JobState.FAILED, JobState.SUPERSEDED, JobState.CANCELED})
# The outcome of a file a newer upload of its document overtook.
SUPERSEDED_OUTCOME = "superseded"


def superseded_result(name: str, doc_id: str) -> JobFileResult:
    """The result of a file left alone because a newer upload of its document was written."""
    return JobFileResult(
        name,
        SUPERSEDED_OUTCOME,
        error=f"a newer upload of {doc_id} was ingested first; this older one was not",
    )


def final_state(outcomes: list[str]) -> JobState:
    """A job that ran: ``superseded`` when a newer upload overtook any of its files."""
    return JobState.SUPERSEDED if SUPERSEDED_OUTCOME in outcomes else JobState.DONE


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

    def submit(
        self,
        files: list[JobFile],
        *,
        submitter: str = "",
        clearance: Sensitivity = Sensitivity.RESTRICTED,
        include_hidden: bool = False,
    ) -> str:
        """Queue the files as one job; returns its id. The files are already in the workspace;
        ``submitter`` names the key that sent them (its status is that key's to read), and
        ``clearance`` is that key's: the job is ingested with it as the writer's clearance,
        so a conflict with a fact above it is resolved per clearance (see ``ingest``).
        ``include_hidden`` is ``ingest``'s: the worker reads the files' hidden content too."""
        ...

    def status(self, job_id: str) -> JobStatus | None: ...

    def readiness(self) -> str:
        """ "ok" when jobs are being run, why not otherwise (``/readyz``'s jobs check)."""
        ...

    def close(self) -> None: ...


def status_of(
    job_id: str,
    job: Sequence[Any],
    files: Sequence[Sequence[Any]],
    notes: Callable[[Any], tuple[str, ...]],
) -> JobStatus:
    """A job's status from its row (state, error, created, updated, submitter) and its files'
    rows (name, outcome, facts, chunks, review, warnings, error) in upload order; ``notes``
    reads a stored warnings value (JSON text in SQLite, a JSON array in PostgreSQL)."""
    results = tuple(
        JobFileResult(name, outcome, facts, chunks, review, notes(warnings), error)
        for name, outcome, facts, chunks, review, warnings, error in files
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


def result_notes(path: Path, result: FileResult) -> tuple[str, ...]:
    """A file's warnings as its job result shows them: the ingest report's, and what hidden
    content was skipped ("3 hidden cells skipped")."""
    skipped = hidden_note(path.suffix.lower().lstrip("."), result.hidden)
    return (*result.warnings, *((skipped,) if skipped else ()))
