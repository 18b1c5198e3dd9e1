"""PostgreSQL is the truth for jobs (docs/scale-out.md, "Faults"): the reconciler queues again
what Redis lost and what a dead worker left running; the newest upload of a document wins
whichever job runs first. Against the real PostgreSQL and Redis, jobs run in this process.

The time-bound versions, with real worker processes killed and a Redis flushed, are in
tests/reliability/test_job_faults.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")

import psycopg
import redis
from rq import Queue

from ragspine.profile.loader import load_profile
from ragspine.service.jobs import rq_worker
from ragspine.service.jobs.job_lease import JobLease
from ragspine.service.jobs.job_reconciler import reconcile
from ragspine.service.jobs.pg_jobs import PostgresJobTable
from ragspine.service.jobs.queue import JobState
from ragspine.service.jobs.rq_jobs import RetryPolicy, RQJobQueue
from ragspine.storage.postgres import PostgresWorkspaceStore
from tests.redis_server import delete_queue_keys
from tests.service.test_rq_jobs import RETRY_AT_ONCE, deployment, documents_are_whole, upload, work

__all__ = ["deployment"]

DOC = "uploads/portal/memo.md"


@pytest.fixture
def jobs(deployment: tuple[str, str, str]) -> Iterator[RQJobQueue]:
    url, schema, redis_url = deployment
    queue = RQJobQueue(url, redis_url, schema=schema, retry=RETRY_AT_ONCE)
    yield queue
    queue.close()


@pytest.fixture
def rq_queue(jobs: RQJobQueue, redis_url: str) -> Iterator[Queue]:
    client = redis.Redis.from_url(redis_url)
    yield Queue(jobs.queue_name, connection=client)
    client.close()


def _age(url: str, schema: str, seconds: int = 60) -> None:
    """Every job's last change moved ``seconds`` into the past: only the clock is skipped."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            f"UPDATE {schema}.jobs SET updated_at = "
            "to_char((updated_at::timestamptz - make_interval(secs => %s)) AT TIME ZONE 'UTC', "
            '\'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"\')',
            (seconds,),
        )


def memo(text: str) -> bytes:
    return f"# Memo\n\n{text}\n".encode()


def test_jobs_queued_in_postgres_that_redis_lost_are_queued_again_and_run(
    deployment: tuple[str, str, str],
    jobs: RQJobQueue,
    rq_queue: Queue,
    tmp_path: Path,
) -> None:
    url, schema, redis_url = deployment
    ids = [
        jobs.submit([upload(tmp_path / str(n), f"m{n}.md", memo(f"Note {n}."))], submitter="p")
        for n in range(2)
    ]
    assert rq_queue.count == 2
    delete_queue_keys(redis_url, jobs.queue_name)  # Redis lost its data
    assert rq_queue.count == 0

    fresh = reconcile(url, schema, rq_queue, RETRY_AT_ONCE)
    assert fresh.leader and fresh.lost == []  # just queued: its API process may be enqueueing
    _age(url, schema)
    done = reconcile(url, schema, rq_queue, RETRY_AT_ONCE)
    assert sorted(done.lost) == sorted(ids) and rq_queue.count == 2
    again = reconcile(url, schema, rq_queue, RETRY_AT_ONCE)
    assert again.lost == [] and rq_queue.count == 2  # what Redis holds is left alone

    work(deployment, tmp_path)
    states = [jobs.status(job_id) for job_id in ids]
    assert [s.state if s else None for s in states] == [JobState.DONE, JobState.DONE]


def test_a_running_job_whose_lease_is_free_is_queued_again_and_one_held_is_not(
    deployment: tuple[str, str, str],
    jobs: RQJobQueue,
    rq_queue: Queue,
    tmp_path: Path,
) -> None:
    url, schema, _ = deployment
    held = jobs.submit([upload(tmp_path / "a", "a.md", memo("Alpha."))], submitter="p")
    dead = jobs.submit([upload(tmp_path / "b", "b.md", memo("Beta."))], submitter="p")
    rq_queue.empty()
    table = PostgresJobTable(url, schema=schema)
    try:
        with JobLease(url, schema) as lease:
            assert lease.take_job(held)
            assert table.start(held) is not None and table.start(dead) is not None
            # `dead` is running with no process holding its lease: its worker died.
            done = reconcile(url, schema, rq_queue, RETRY_AT_ONCE)
            assert done.orphaned == [dead] and rq_queue.job_ids == [f"{jobs.queue_name}-{dead}"]
            held_status = table.status(held)
            assert held_status is not None and held_status.state is JobState.RUNNING
        dead_status = table.status(dead)
        assert dead_status is not None and dead_status.state is JobState.QUEUED
    finally:
        table.close()


def test_a_job_whose_worker_dies_on_every_attempt_ends_failed(
    deployment: tuple[str, str, str], jobs: RQJobQueue, rq_queue: Queue, tmp_path: Path
) -> None:
    url, schema, _ = deployment
    job_id = jobs.submit([upload(tmp_path, "a.md", memo("Alpha."))], submitter="p")
    policy = RetryPolicy(retries=1, intervals=(0,), timeout=60)
    table = PostgresJobTable(url, schema=schema)
    try:
        for attempt in (1, 2):
            assert table.start(job_id) is not None  # a worker takes it, and dies
            done = reconcile(url, schema, rq_queue, policy)
            assert (done.orphaned, done.failed) == (
                ([job_id], []) if attempt == 1 else ([], [job_id])
            )
        status = table.status(job_id)
    finally:
        table.close()
    assert status is not None and status.state is JobState.FAILED
    assert "on each of its 2 attempts" in status.error


@pytest.fixture
def worker_config(
    deployment: tuple[str, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This process configured as `ragspine worker` is, so jobs run here in a chosen order."""
    url, schema, _ = deployment
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    config = rq_worker.WorkerConfig(url, schema, load_profile(), scratch)
    monkeypatch.setattr(rq_worker, "_config", config)


def _text(url: str, schema: str) -> str:
    with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
        return " ".join(c.text for c in store.list_chunks(DOC))


@pytest.mark.parametrize("newer_first", [True, False], ids=["newer-runs-first", "older-first"])
def test_the_newest_upload_of_a_document_wins_whichever_job_runs_first(
    deployment: tuple[str, str, str],
    jobs: RQJobQueue,
    worker_config: None,
    tmp_path: Path,
    newer_first: bool,
) -> None:
    url, schema, _ = deployment
    older = jobs.submit([upload(tmp_path / "1", "memo.md", memo("Older draft."))], submitter="p")
    newer = jobs.submit([upload(tmp_path / "2", "memo.md", memo("Newer text."))], submitter="p")

    for job_id in (newer, older) if newer_first else (older, newer):
        rq_worker.run_ingest_job(job_id)

    assert "Newer text" in _text(url, schema) and "Older draft" not in _text(url, schema)
    old, new = jobs.status(older), jobs.status(newer)
    assert old is not None and new is not None
    assert new.state is JobState.DONE and [r.outcome for r in new.results] == ["ingested"]
    if newer_first:
        assert old.state is JobState.SUPERSEDED
        assert [r.outcome for r in old.results] == ["superseded"]
        assert "newer upload of uploads/portal/memo.md" in old.results[0].error
    else:  # written, then replaced by the newer one: it did its work
        assert old.state is JobState.DONE
    documents_are_whole(url, schema)


def test_a_second_delivery_of_a_job_a_live_process_runs_does_nothing(
    deployment: tuple[str, str, str], jobs: RQJobQueue, worker_config: None, tmp_path: Path
) -> None:
    url, schema, _ = deployment
    job_id = jobs.submit([upload(tmp_path, "memo.md", memo("Only once."))], submitter="p")
    with JobLease(url, schema) as lease:
        assert lease.take_job(job_id)
        assert rq_worker.run_ingest_job(job_id) == "running in another worker"
        status = jobs.status(job_id)
        assert status is not None and status.state is JobState.QUEUED
    assert rq_worker.run_ingest_job(job_id) == "done"
    assert rq_worker.run_ingest_job(job_id) == "nothing to do"
