"""The RQ job queue against the real PostgreSQL and Redis: uploads submitted by one API
process, ingested by real RQ workers into the PostgreSQL workspace store, their status read
from another; idempotent job ids; a file failing alone; a worker killed mid-job.

Each test has its own PostgreSQL schema and so its own RQ queue (deleted afterwards).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")

from rq.utils import import_attribute

from ragspine.profile.loader import load_profile
from ragspine.service.jobs.owner_lock import OwnerLock
from ragspine.service.jobs.queue import JobFile, JobState, JobStatus
from ragspine.service.jobs.rq_jobs import FAILURE_CALLBACK, JOB_FUNCTION, RetryPolicy, RQJobQueue
from ragspine.service.jobs.rq_worker import SCRATCH_NAME, job_failed, run_ingest_job, run_worker
from ragspine.storage.postgres import PostgresWorkspaceStore

# Retried at once: the tests do not wait out a production backoff.
RETRY_AT_ONCE = RetryPolicy(retries=2, intervals=(0,), timeout=300)
FIGURES = """# ACME Macau

## Key figures FY2025

| | US$m |
|---|---|
| Revenue | 2,710 |
| Operating profit | 455 |

Macau revenue grew on agency sales in FY2025.
"""


@pytest.fixture
def deployment(
    postgres_database: tuple[str, str], redis_url: str, redis_queue_cleanup: list[str]
) -> tuple[str, str, str]:
    """(database url, schema, redis url) of a fresh deployment."""
    url, schema = postgres_database
    from ragspine.service.jobs.rq_jobs import queue_name_for

    redis_queue_cleanup.append(queue_name_for(schema))
    return url, schema, redis_url


@pytest.fixture
def jobs(deployment: tuple[str, str, str]) -> Iterator[RQJobQueue]:
    url, schema, redis_url = deployment
    queue = RQJobQueue(url, redis_url, schema=schema, retry=RETRY_AT_ONCE)
    yield queue
    queue.close()


def upload(folder: Path, name: str, data: bytes, sender: str = "portal") -> JobFile:
    path = folder / "uploads" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return JobFile(name, path, f"uploads/{sender}/{name}")


def work(deployment: tuple[str, str, str], tmp_path: Path) -> None:
    """A real RQ worker (in this process) runs the queued jobs, then returns."""
    url, schema, redis_url = deployment
    run_worker(
        url,
        redis_url,
        load_profile(),
        schema=schema,
        burst=True,
        fork=False,
        scratch=tmp_path / "scratch",
    )


def documents_are_whole(url: str, schema: str) -> dict[str, int]:
    """Each document's chunk count, after checking every document holds exactly the facts
    and text blocks its manifest row counts (no half document)."""
    with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
        counts = {}
        for record in store.list_documents():
            assert len(store.list_blocks(record.doc_id)) == record.n_blocks, record.doc_id
            facts = [f for f in store.list_facts() if f.source_doc_id == record.doc_id]
            assert len(facts) == record.n_facts, record.doc_id
            counts[record.doc_id] = len(store.list_chunks(record.doc_id))
    return counts


def test_redis_names_the_worker_functions_by_the_paths_earlier_versions_queued() -> None:
    """A job sits in Redis as an import path: it must not change when the worker's code moves,
    or a job queued before an upgrade finds no function on an upgraded worker."""
    assert JOB_FUNCTION == "ragspine.service.rq_worker.run_ingest_job"
    assert FAILURE_CALLBACK == "ragspine.service.rq_worker.job_failed"
    assert import_attribute(JOB_FUNCTION) is run_ingest_job
    assert import_attribute(FAILURE_CALLBACK) is job_failed


def test_a_job_runs_on_a_worker_and_its_status_is_read_by_another_api_process(
    deployment: tuple[str, str, str], jobs: RQJobQueue, tmp_path: Path
) -> None:
    url, schema, redis_url = deployment
    memo = upload(tmp_path, "Macau figures.md", FIGURES.encode())
    job_id = jobs.submit([memo], submitter="portal")
    queued = jobs.status(job_id)

    work(deployment, tmp_path)

    other = RQJobQueue(url, redis_url, schema=schema)
    try:
        status = other.status(job_id)
    finally:
        other.close()
    assert queued is not None and queued.state is JobState.QUEUED
    assert status is not None and status.state is JobState.DONE, status
    assert (status.submitter, status.files_total, status.files_done) == ("portal", 1, 1)
    (result,) = status.results
    assert (result.name, result.outcome, result.facts, result.error) == (
        "Macau figures.md",
        "ingested",
        2,
        "",
    )
    assert result.chunks > 0
    with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
        facts = {(f.metric_code, f.entity, f.value, f.source_doc_id) for f in store.list_facts()}
        chunks = store.list_chunks("uploads/portal/Macau figures.md")
    assert facts == {
        ("REVENUE", "ACME_MO", 2710.0, "uploads/portal/Macau figures.md"),
        ("OPERATING_PROFIT", "ACME_MO", 455.0, "uploads/portal/Macau figures.md"),
    }
    assert any("agency sales" in c.text for c in chunks)
    assert not list((tmp_path / "scratch").iterdir())  # the worker's copies are gone


def test_the_same_upload_twice_is_one_job(
    deployment: tuple[str, str, str], jobs: RQJobQueue, tmp_path: Path
) -> None:
    first = jobs.submit([upload(tmp_path, "a.md", b"# A\n\nAlpha text.\n")], submitter="portal")
    again = jobs.submit(
        [upload(tmp_path / "2", "a.md", b"# A\n\nAlpha text.\n")], submitter="portal"
    )
    other_sender = jobs.submit([upload(tmp_path, "a.md", b"# A\n\nAlpha text.\n")], submitter="ci")
    other_bytes = jobs.submit(
        [upload(tmp_path, "a.md", b"# A\n\nBeta text.\n")], submitter="portal"
    )
    queued = _queued(jobs)

    work(deployment, tmp_path)
    after = jobs.submit([upload(tmp_path, "a.md", b"# A\n\nBeta text.\n")], submitter="portal")

    assert first == again
    assert after == other_bytes
    assert len({first, other_sender, other_bytes}) == 3
    assert queued == 3 and _queued(jobs) == 0  # the finished job is not queued again
    status = jobs.status(first)
    assert status is not None and status.state is JobState.DONE
    assert [r.outcome for r in status.results] == ["ingested"]
    # Alpha sent again after Beta was written is the newest upload of a.md now: queued again.
    resent = jobs.submit([upload(tmp_path, "a.md", b"# A\n\nAlpha text.\n")], submitter="portal")
    assert resent == first and _queued(jobs) == 1
    queued_again = jobs.status(first)
    assert queued_again is not None and queued_again.state is JobState.QUEUED


def _queued(jobs: RQJobQueue) -> int:
    from rq import Queue

    return Queue(jobs.queue_name, connection=jobs._redis).count


def test_a_failing_file_fails_alone(
    deployment: tuple[str, str, str], jobs: RQJobQueue, tmp_path: Path
) -> None:
    url, schema, _ = deployment
    good = upload(tmp_path, "memo.md", b"# Memo\n\nHong Kong revenue grew in FY2025.\n")
    bad = upload(tmp_path, "report.pdf", b"this is not a PDF at all")
    job_id = jobs.submit([bad, good], submitter="portal")

    work(deployment, tmp_path)

    status = jobs.status(job_id)
    assert status is not None and status.state is JobState.DONE
    failed, ingested = status.results
    assert (failed.name, failed.outcome) == ("report.pdf", "failed")
    assert "report.pdf" in failed.error and str(tmp_path) not in failed.error
    assert "scratch" not in failed.error
    assert (ingested.name, ingested.outcome) == ("memo.md", "ingested")
    assert set(documents_are_whole(url, schema)) == {"uploads/portal/memo.md"}


def test_a_job_that_cannot_run_is_retried_then_failed_with_its_reason(
    deployment: tuple[str, str, str], jobs: RQJobQueue, tmp_path: Path
) -> None:
    url, schema, _redis_url = deployment
    job_id = jobs.submit([upload(tmp_path, "a.md", b"# A\n\nAlpha.\n")], submitter="portal")
    import psycopg

    # The workspace tables are gone: every attempt fails as a whole, not file by file.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {schema}.chunk_vectors, {schema}.chunks")

    work(deployment, tmp_path)

    status = jobs.status(job_id)
    assert status is not None and status.state is JobState.FAILED
    assert "chunks" in status.error and "Traceback" not in status.error
    assert _attempts(url, schema, job_id) == 1 + RETRY_AT_ONCE.retries
    # Sent again, a failed job is queued again (the same id).
    assert jobs.submit([upload(tmp_path, "a.md", b"# A\n\nAlpha.\n")], submitter="portal") == job_id
    again = jobs.status(job_id)
    assert again is not None and (again.state, again.error) == (JobState.QUEUED, "")
    assert _queued(jobs) == 1


@pytest.mark.parametrize("whole_worker", [True, False], ids=["worker-and-child", "child-only"])
def test_a_worker_killed_mid_job_leaves_no_half_document_and_the_job_converges(
    deployment: tuple[str, str, str], jobs: RQJobQueue, tmp_path: Path, whole_worker: bool
) -> None:
    """SIGKILL mid-job, either of the worker and the child process running the job (the
    machine dies: another worker retries the job) or of the child alone (the OOM killer: its
    worker retries the job at once)."""
    url, schema, redis_url = deployment
    paragraph = "Hong Kong revenue grew on agency sales and bancassurance in FY2025. " * 20
    files = [
        upload(tmp_path, f"memo-{n:03d}.md", f"# Memo {n}\n\n{paragraph}\n\nItem {n}.\n".encode())
        for n in range(120)
    ]
    job_id = jobs.submit(files, submitter="portal")

    first = _worker_process(deployment)
    status = _wait(jobs, job_id, lambda s: s.files_done >= 3, first)
    children = _children(first.pid)
    assert children, "the worker runs its job in a child process"
    for pid in [first.pid, *children] if whole_worker else children:
        os.kill(pid, signal.SIGKILL)
    if whole_worker:
        first.wait()
        killed = jobs.status(job_id)
        whole = documents_are_whole(url, schema)
        _lapse_heartbeats(redis_url, jobs.queue_name)
        second = _worker_process(deployment)
        assert second.wait(timeout=240) == 0, second.stderr.read() if second.stderr else ""
        assert killed is not None and killed.state is JobState.RUNNING
        assert 3 <= killed.files_done < 120 and len(whole) >= killed.files_done
    else:
        assert first.wait(timeout=240) == 0, first.stderr.read() if first.stderr else ""

    done = jobs.status(job_id)
    assert status.state is JobState.RUNNING
    assert done is not None and done.state is JobState.DONE, done
    assert done.files_done == 120 and {r.outcome for r in done.results} <= {"ingested", "skipped"}
    counts = documents_are_whole(url, schema)
    assert sorted(counts) == sorted(f.document for f in files)
    assert len(set(counts.values())) == 1  # the same text gives each the same chunks, once
    assert _attempts(url, schema, job_id) == 2  # it ran again


def _attempts(url: str, schema: str, job_id: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT attempts FROM {schema}.jobs WHERE job_id = %s", (job_id,))
        return int(row.fetchone()[0])  # type: ignore[index]


def _worker_process(deployment: tuple[str, str, str]) -> subprocess.Popen[bytes]:
    url, schema, redis_url = deployment
    command = [sys.executable, "-m", "ragspine", "worker", "--burst"]
    command += ["--database-url", url, "--redis-url", redis_url, "--schema", schema]
    # Its own session, so the kill reaches the worker's forked job process too.
    return subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _wait(
    jobs: RQJobQueue,
    job_id: str,
    ready: object,
    process: subprocess.Popen[bytes],
    seconds: float = 120,
) -> JobStatus:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = jobs.status(job_id)
        if status is not None and ready(status):  # type: ignore[operator]
            return status
        assert process.poll() is None, "the worker ended before the job was half done"
        time.sleep(0.01)
    raise AssertionError(f"job {job_id} did not get there in {seconds} s")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _lapse_heartbeats(redis_url: str, queue_name: str) -> None:
    """Make the killed worker's job look as abandoned as it will after its last heartbeat's
    time to live (at most 90 s): RQ's own maintenance, run by the next worker, then finds it;
    and the worker's own beat as old as it will be 10 s later (its scheduler lock is freed).
    Only the clock is skipped; RQ and the next worker decide what happens."""
    import redis
    from rq.registry import StartedJobRegistry

    from ragspine.service.jobs.rq_liveness import heartbeat_key

    with redis.Redis.from_url(redis_url) as client:
        for key in (
            StartedJobRegistry(queue_name, connection=client).key,
            heartbeat_key(queue_name),
        ):
            for member in client.zrange(key, 0, -1):
                client.zadd(key, {member: 1})


def test_a_worker_removes_the_scratch_folders_killed_workers_left(
    deployment: tuple[str, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed with SIGKILL leaves the copies of the files it was ingesting; the next
    worker starting removes them, and never those of a worker still running."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    base = tmp_path / SCRATCH_NAME
    running = OwnerLock(base)
    (base / running.name).mkdir()
    (base / running.name / "memo.md").write_text("being ingested")
    killed = "0" * 32
    (base / killed).mkdir()
    (base / killed / "deck.pptx").write_bytes(b"half a copy")
    (base / f"{killed}.lock").touch()  # nobody holds it: its worker is gone
    (base / f"{'1' * 32}.lock").touch()  # a worker killed before it made its folder
    url, schema, redis_url = deployment
    try:
        run_worker(url, redis_url, load_profile(), schema=schema, burst=True, fork=False)
        left = sorted(p.name for p in base.iterdir())
    finally:
        running.release()

    assert left == sorted([running.name, f"{running.name}.lock"])
    assert (base / running.name / "memo.md").read_text() == "being ingested"


def test_ready_only_while_a_worker_beats(
    deployment: tuple[str, str, str], jobs: RQJobQueue
) -> None:
    import redis
    from rq import Queue, SimpleWorker

    from ragspine.service.jobs.rq_liveness import WorkerDuties

    alone = jobs.readiness()
    with redis.Redis.from_url(deployment[2]) as client:
        queue = Queue(jobs.queue_name, connection=client)
        worker = SimpleWorker([queue], connection=client)
        # RQ's registration alone is not a live worker: an idle one refreshes it minutes apart.
        worker.register_birth()
        registered = jobs.readiness()
        duties = WorkerDuties(worker, deployment[2], queue)
        duties.start()
        try:
            beating = jobs.readiness()
        finally:
            duties.stop()
            stopped = jobs.readiness()
            worker.register_death()

    assert (alone, registered, beating, stopped) == (
        "no live worker",
        "no live worker",
        "ok",
        "no live worker",
    )


def test_a_beat_registers_a_worker_again_after_redis_lost_it(
    deployment: tuple[str, str, str], jobs: RQJobQueue
) -> None:
    import redis
    from rq import Queue, SimpleWorker, Worker

    from ragspine.service.jobs.rq_liveness import WorkerDuties, heartbeat_key

    with redis.Redis.from_url(deployment[2]) as client:
        queue = Queue(jobs.queue_name, connection=client)
        worker = SimpleWorker([queue], connection=client)
        worker.register_birth()
        duties = WorkerDuties(worker, deployment[2], queue)
        try:
            # What an empty restarted Redis holds of the worker: RQ's next heartbeat writes
            # its hash without the birth, and neither the registration sets nor our beat.
            # (Only this worker's keys: other runs share this Redis.)
            client.delete(worker.key, heartbeat_key(queue.name), f"rq:workers:{queue.name}")
            client.srem("rq:workers", worker.key)
            worker.heartbeat()
            lost = (Worker.count(queue=queue), jobs.readiness())
            duties.beat()
            found = (Worker.count(queue=queue), jobs.readiness())
        finally:
            duties.stop()
            worker.register_death()

    assert (lost, found) == ((0, "no live worker"), (1, "ok"))


def test_a_killed_workers_scheduler_lock_is_taken_once_its_beat_lapses(
    deployment: tuple[str, str, str], jobs: RQJobQueue
) -> None:
    """A worker killed while it schedules leaves RQ's lock for a minute; the next worker frees
    it as soon as the dead one's beat lapses (never a live one's), and a retry due meanwhile
    reaches the queue at once."""
    from datetime import UTC, datetime, timedelta

    import redis
    from rq import Queue, SimpleWorker
    from rq.scheduler import RQScheduler

    from ragspine.service.jobs.rq_liveness import WorkerDuties, heartbeat_key

    with redis.Redis.from_url(deployment[2]) as client:
        queue = Queue(jobs.queue_name, connection=client)
        lock = RQScheduler.get_locking_key(queue.name)
        killed = WorkerDuties(SimpleWorker([queue], connection=client), deployment[2], queue)
        other = SimpleWorker([queue], connection=client)
        duties = WorkerDuties(other, deployment[2], queue)
        try:
            killed.beat()  # schedules, holding the lock; then never beats again
            holder = client.get(lock)
            # A retry whose delay has passed, waiting for the scheduler to queue it.
            queue.enqueue_at(datetime.now(UTC) - timedelta(seconds=1), "builtins.print")
            duties.beat()
            while_it_beats = (client.get(lock), queue.count)
            client.zadd(heartbeat_key(queue.name), {holder.decode(): 1})  # its beat lapsed
            duties.beat()
            after_its_beat_lapsed = (client.get(lock), queue.count)
        finally:
            duties.stop()
            killed.stop()

    assert holder is not None and while_it_beats == (holder, 0)
    assert after_its_beat_lapsed == (other.name.encode(), 1)


def test_worker_command_errors_are_one_line(deployment: tuple[str, str, str]) -> None:
    from typer.testing import CliRunner

    from ragspine.cli import app

    url, schema, redis_url = deployment
    runner = CliRunner()
    args = ["worker", "--burst", "--database-url", url, "--schema", schema, "--redis-url"]

    no_redis = runner.invoke(app, [*args, "redis://127.0.0.1:1/0"])
    not_redis = runner.invoke(app, [*args, "http://127.0.0.1:6379"])
    old_schema = runner.invoke(
        app, [*args[:-3], "--schema", "nothing_here", "--redis-url", redis_url]
    )
    empty = runner.invoke(app, [*args, redis_url])

    # What the worker uses is said first; the error is the one last line.
    *announced, error = no_redis.stderr.splitlines()
    assert no_redis.exit_code == 1 and error.startswith("error: cannot reach Redis")
    assert [line.split(" [")[0] for line in announced] == [
        f"ragspine: using PostgreSQL {url}",
        "ragspine: using Redis redis://127.0.0.1:1/0",
    ]
    assert not_redis.exit_code == 2 and "must be a redis:// URL" in not_redis.stderr
    assert old_schema.exit_code == 1 and "ragspine db upgrade" in old_schema.stderr
    assert empty.exit_code == 0, empty.stderr
