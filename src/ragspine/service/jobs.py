"""Ingestion jobs: uploaded files ingested off the request thread, their state kept with the
workspace so a restart loses none.

The app talks to a :class:`JobQueue`; the embedded default runs jobs in-process, the scale-out
path on RQ workers behind the same Protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class JobFile:
    """One upload: the client's file name (display only, never a path) and the stored copy
    inside the workspace."""

    name: str
    path: Path


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

    @property
    def progress(self) -> float:
        """Share of the job's files finished, 0.0 to 1.0."""
        return self.files_done / self.files_total if self.files_total else 1.0


class JobQueue(Protocol):
    """Accepts uploads for ingestion and reports on them."""

    def submit(self, files: list[JobFile]) -> str:
        """Queue the files as one job; returns its id. The files are already in the workspace."""
        ...

    def status(self, job_id: str) -> JobStatus | None: ...

    def healthy(self) -> bool:
        """Whether jobs are being run (for ``/readyz``)."""
        ...

    def close(self) -> None: ...
