"""One behaviour suite for every :class:`~ragspine.service.jobs.queue.JobQueue`: the embedded
in-process queue and the RQ queue over PostgreSQL and Redis (which needs both test servers:
skipped without them, except under CI).

A harness gives each backend's way to store an upload where its workers read it and to let
its workers run what is queued; the tests then hold both queues to the same contract.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pytest

from ragspine.errors import UsageError
from ragspine.service.http.uploads import new_batch_name, store_upload
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobFile, JobQueue, JobState, JobStatus
from ragspine.workspace import Workspace

MEMO = b"# Hong Kong review\n\nHong Kong revenue grew on agency sales in FY2025.\n"
FIGURES = b"""# ACME Macau

## Key figures FY2025

| | US$m |
|---|---|
| Revenue | 2,710 |
| Operating profit | 455 |
"""


class Harness(Protocol):
    queue: JobQueue

    def store(self, name: str, data: bytes) -> JobFile:
        """Keep one upload where this backend's workers read it."""
        ...

    def finish(self, job_id: str) -> JobStatus:
        """Let the workers run until the job is done or failed; its final status."""
        ...


@dataclass
class InProcess:
    workspace: Workspace
    queue: InProcessJobQueue = field(init=False)

    def __post_init__(self) -> None:
        self.queue = InProcessJobQueue(self.workspace, poll_seconds=0.05)

    def store(self, name: str, data: bytes) -> JobFile:
        return store_upload(self.workspace, new_batch_name(), name, data, sender="portal")

    def finish(self, job_id: str) -> JobStatus:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = self.queue.status(job_id)
            if status is not None and status.state in (JobState.DONE, JobState.FAILED):
                return status
            time.sleep(0.02)
        raise AssertionError(f"job {job_id} did not finish")


@dataclass
class OnRQ:
    url: str
    schema: str
    redis_url: str
    folder: Path
    queue: JobQueue = field(init=False)

    def __post_init__(self) -> None:
        from ragspine.service.jobs.rq_jobs import RetryPolicy, RQJobQueue

        retry = RetryPolicy(retries=1, intervals=(0,))
        self.queue = RQJobQueue(self.url, self.redis_url, schema=self.schema, retry=retry)

    def store(self, name: str, data: bytes) -> JobFile:
        path = self.folder / new_batch_name() / name
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        return JobFile(name, path, f"uploads/portal/{name}")

    def finish(self, job_id: str) -> JobStatus:
        from ragspine.profile.loader import load_profile
        from ragspine.service.jobs.rq_worker import run_worker

        run_worker(
            self.url,
            self.redis_url,
            load_profile(),
            schema=self.schema,
            burst=True,
            fork=False,
            scratch=self.folder / "scratch",
        )
        status = self.queue.status(job_id)
        assert status is not None
        return status


@pytest.fixture(params=["in-process", "rq"])
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    if request.param == "in-process":
        chosen: Harness = InProcess(Workspace.create(tmp_path / "ws"))
    else:
        from ragspine.service.jobs.rq_jobs import queue_name_for

        url, schema = request.getfixturevalue("postgres_database")
        redis_url = request.getfixturevalue("redis_url")
        request.getfixturevalue("redis_queue_cleanup").append(queue_name_for(schema))
        chosen = OnRQ(url, schema, redis_url, tmp_path)
    yield chosen
    chosen.queue.close()


def test_a_job_is_queued_at_once_then_done_with_each_files_result(harness: Harness) -> None:
    files = [harness.store("Macau.md", FIGURES), harness.store("HK review.md", MEMO)]

    job_id = harness.queue.submit(files, submitter="portal")
    status = harness.finish(job_id)

    assert status.job_id == job_id and status.submitter == "portal"
    assert (status.state, status.error) == (JobState.DONE, "")
    assert (status.files_total, status.files_done, status.progress) == (2, 2, 1.0)
    assert [(r.name, r.outcome, r.facts, r.error) for r in status.results] == [
        ("Macau.md", "ingested", 2, ""),
        ("HK review.md", "ingested", 0, ""),
    ]
    assert all(r.chunks > 0 for r in status.results)
    assert status.created_at and status.updated_at >= status.created_at


def test_a_corrupt_file_fails_alone_and_its_error_shows_no_server_path(
    harness: Harness, tmp_path: Path
) -> None:
    files = [harness.store("broken.pdf", b"%PDF-1.7 not really"), harness.store("HK.md", MEMO)]

    status = harness.finish(harness.queue.submit(files))

    assert status.state is JobState.DONE
    bad, good = status.results
    assert (bad.name, bad.outcome, good.outcome) == ("broken.pdf", "failed", "ingested")
    assert "broken.pdf" in bad.error and str(tmp_path) not in bad.error


def test_an_unknown_job_has_no_status_and_an_empty_job_is_refused(harness: Harness) -> None:
    assert harness.queue.status("0" * 32) is None
    with pytest.raises(UsageError, match="at least one file"):
        harness.queue.submit([])
