"""Redis lost between ``RQJobQueue.submit``'s check and its enqueue (docs/scale-out.md, "Uploads
while Redis does not answer are refused"): a new upload leaves no job row and none of its
bytes; a job sent before stays, failed with the reason, and is queued when sent again.

The fault suite (tests/reliability/test_faults.py) refuses uploads with Redis killed before
the check; this is the window after it, made by an enqueue that raises Redis's own error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")

import psycopg
import redis
from rq import Queue

from ragspine.errors import UnavailableError
from ragspine.service.jobs import rq_jobs
from ragspine.service.jobs.queue import JobFile, JobState
from ragspine.service.jobs.rq_jobs import RQJobQueue, queue_name_for


@pytest.fixture
def jobs(
    postgres_database: tuple[str, str], redis_url: str, redis_queue_cleanup: list[str]
) -> Iterator[RQJobQueue]:
    url, schema = postgres_database
    redis_queue_cleanup.append(queue_name_for(schema))
    queue = RQJobQueue(url, redis_url, schema=schema)
    yield queue
    queue.close()


@pytest.fixture
def memo(tmp_path: Path) -> JobFile:
    path = tmp_path / "Macau.md"
    path.write_text("# Macau\n\nMacau revenue grew in FY2025.\n", encoding="utf-8")
    return JobFile("Macau.md", path, "uploads/portal/Macau.md")


def _redis_gone(*args: object, **kwargs: object) -> None:
    raise redis.ConnectionError("Connection refused")


def _rows(postgres_database: tuple[str, str]) -> tuple[int, int]:
    url, schema = postgres_database
    with psycopg.connect(url) as conn:
        counts = [
            conn.execute(f"SELECT count(*) FROM {schema}.{table}").fetchone()
            for table in ("jobs", "job_files")
        ]
    assert counts[0] is not None and counts[1] is not None
    return int(counts[0][0]), int(counts[1][0])


def _queued(redis_url: str, schema: str) -> list[str]:
    with redis.Redis.from_url(redis_url) as client:
        return Queue(queue_name_for(schema), connection=client).job_ids


def test_a_new_upload_refused_at_the_enqueue_leaves_no_row_and_no_bytes(
    jobs: RQJobQueue,
    memo: JobFile,
    postgres_database: tuple[str, str],
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rq_jobs, "enqueue", _redis_gone)
    with pytest.raises(UnavailableError, match="queue is unavailable"):
        jobs.submit([memo], submitter="portal")

    assert _rows(postgres_database) == (0, 0)
    monkeypatch.undo()
    job_id = jobs.submit([memo], submitter="portal")  # sent again, Redis back: a new job
    assert _rows(postgres_database) == (1, 1)
    assert _queued(redis_url, postgres_database[1]) == [jobs.rq_job_id(job_id)]


def test_a_job_sent_again_and_refused_at_the_enqueue_stays_failed_then_is_queued(
    jobs: RQJobQueue,
    memo: JobFile,
    postgres_database: tuple[str, str],
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, schema = postgres_database
    job_id = jobs.submit([memo], submitter="portal")
    with psycopg.connect(url) as conn:  # it failed (a worker's attempts used up)
        conn.execute(f"UPDATE {schema}.jobs SET state = 'failed' WHERE job_id = %s", (job_id,))
    with redis.Redis.from_url(redis_url) as client:
        Queue(queue_name_for(schema), connection=client).empty()

    monkeypatch.setattr(rq_jobs, "enqueue", _redis_gone)
    with pytest.raises(UnavailableError, match="queue is unavailable"):
        jobs.submit([memo], submitter="portal")
    status = jobs.status(job_id)
    assert status is not None and status.state is JobState.FAILED
    assert "the ingestion queue was unavailable" in status.error
    assert _rows(postgres_database) == (1, 1)  # its bytes kept, to be sent again

    monkeypatch.undo()
    assert jobs.submit([memo], submitter="portal") == job_id
    status = jobs.status(job_id)
    assert status is not None and status.state is JobState.QUEUED
    assert _queued(redis_url, schema) == [jobs.rq_job_id(job_id)]
