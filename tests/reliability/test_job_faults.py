"""Faults of a scale-out deployment's jobs (docs/scale-out.md, "Faults"), with real `ragspine
worker` processes configured by the environment alone, the shared PostgreSQL and a Redis
server of the test's own (it is flushed):

- Redis loses its data with jobs queued: every job is done, without sending it again;
- a worker killed with SIGKILL mid-job: the job is done by another, every document whole;
- two uploads of one document 150 ms apart on two workers: the newer content wins, the older
  job ends ``superseded`` — in every trial.

Each bound is measured and saved under ``test-artifacts/reliability/job_faults.json``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")

import redis
from rq import Queue, Worker

from ragspine.demo.corpus import generate_corpus
from ragspine.service.jobs.queue import FINAL_STATES, JobFile, JobState, JobStatus
from ragspine.service.jobs.rq_jobs import RQJobQueue, queue_name_for
from ragspine.storage.postgres import PostgresWorkspaceStore
from tests.reliability.trials import ARTIFACTS, ENV
from tests.scaleout.processes import START_SECONDS, Processes, free_port, upload_files
from tests.service.test_rq_jobs import documents_are_whole

pytestmark = pytest.mark.reliability

# The bounds docs/scale-out.md states (measured figures are printed and saved).
FLUSH_SECONDS = 90
KILL_SECONDS = 120
RACE_TRIALS = 4
FIGURES: dict[str, object] = {}


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    """A Redis server of this test's own, so flushing it touches nobody else's keys."""
    port = free_port()
    server = subprocess.Popen(
        [
            *("redis-server", "--port", str(port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", str(tmp_path)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 20
    while True:
        try:
            with redis.Redis.from_url(url) as client:
                client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "the test's Redis server did not start"
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture
def deployment(
    postgres_database: tuple[str, str], own_redis: str, tmp_path: Path
) -> Iterator[tuple[str, str, str, Processes]]:
    url, schema = postgres_database
    procs = Processes(tmp_path)
    yield url, schema, own_redis, procs
    procs.stop()


def start_workers(deployment: tuple[str, str, str, Processes], count: int, scratch: Path) -> None:
    """`ragspine worker` with no option at all: the deployment comes from the variables."""
    url, schema, redis_url, procs = deployment
    scratch.mkdir(exist_ok=True)
    env = {
        **ENV,
        "RAGSPINE_DATABASE_URL": url,
        "RAGSPINE_DATABASE_SCHEMA": schema,
        "RAGSPINE_REDIS_URL": redis_url,
        "TMPDIR": str(scratch),
    }
    for n in range(count):
        procs.start(f"worker{n + 1}", "worker", env=env)
    with redis.Redis.from_url(redis_url) as client:
        queue = Queue(queue_name_for(schema), connection=client)
        wait_for(f"{count} workers serving", lambda: Worker.count(queue=queue) == count, procs)


def wait_for(what: str, done: Callable[[], bool], procs: Processes, seconds: float = 90) -> float:
    """Seconds until ``done()``; fails after ``seconds``."""
    start = time.monotonic()
    while not done():
        if time.monotonic() - start > seconds:
            pytest.fail(f"{what}: not within {seconds} s\n{procs.describe()}")
        time.sleep(0.1)
    return time.monotonic() - start


def states(jobs: RQJobQueue, ids: list[str]) -> list[JobStatus]:
    found = [jobs.status(job_id) for job_id in ids]
    assert all(s is not None for s in found)
    return [s for s in found if s is not None]


def memo(folder: Path, name: str, text: str) -> JobFile:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Memo {name}\n\n{text}\n", encoding="utf-8")
    return JobFile(name, path, f"uploads/portal/{name}")


def record(name: str, value: object) -> None:
    FIGURES[name] = value
    print(f"{name}: {value}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "job_faults.json").write_text(json.dumps(FIGURES, indent=2) + "\n")


def test_jobs_queued_when_redis_loses_its_data_are_done_without_sending_them_again(
    deployment: tuple[str, str, str, Processes], tmp_path: Path
) -> None:
    url, schema, redis_url, procs = deployment
    start_workers(deployment, 2, tmp_path / "tmp")
    jobs = RQJobQueue(url, redis_url, schema=schema)
    try:
        files = [memo(tmp_path / "in", f"note-{n}.md", f"Note number {n}.") for n in range(6)]
        ids = [jobs.submit([file], submitter="portal") for file in files]
        with redis.Redis.from_url(redis_url) as client:
            client.flushall()  # every queued job, registration and registry is gone
        took = wait_for(
            "every job queued when Redis lost its data done",
            lambda: all(s.state is JobState.DONE for s in states(jobs, ids)),
            procs,
            FLUSH_SECONDS,
        )
    finally:
        jobs.close()
    record("jobs done after Redis lost its data (s)", round(took, 1))
    assert sorted(documents_are_whole(url, schema)) == sorted(f.doc_id for f in files)


def test_a_job_whose_worker_is_killed_mid_job_is_done_by_another_with_documents_whole(
    deployment: tuple[str, str, str, Processes], tmp_path: Path
) -> None:
    url, schema, redis_url, procs = deployment
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    sources = [p for p in upload_files(corpus) if p.suffix.lower() != ".pdf"]
    files = [
        JobFile(f"{copy}-{p.name}", p, f"uploads/portal/{copy}-{p.name}")
        for copy in ("a", "b")
        for p in sources
    ]
    start_workers(deployment, 2, tmp_path / "tmp")
    jobs = RQJobQueue(url, redis_url, schema=schema)
    try:
        job_id = jobs.submit(files, submitter="portal")

        def midway() -> bool:
            status = jobs.status(job_id)
            assert status is not None and status.state not in FINAL_STATES, "ran to its end"
            return status.state is JobState.RUNNING and status.files_done >= 1

        wait_for("the job running, a file done", midway, procs, START_SECONDS)
        pid = running_worker(redis_url, schema)
        os.killpg(pid, signal.SIGKILL)  # the worker, its job process and its scheduler
        killed_at = jobs.status(job_id)
        took = wait_for(
            "the killed worker's job done",
            lambda: states(jobs, [job_id])[0].state is JobState.DONE,
            procs,
            KILL_SECONDS,
        )
        status = states(jobs, [job_id])[0]
    finally:
        jobs.close()
    assert killed_at is not None and killed_at.files_done < len(files)
    record("job done after its worker was killed mid-job (s)", round(took, 1))
    assert len(status.results) == len(files)
    assert {r.outcome for r in status.results} <= {"ingested", "skipped"}, status.results
    assert sorted(documents_are_whole(url, schema)) == sorted(f.doc_id for f in files)


def running_worker(redis_url: str, schema: str) -> int:
    """The pid of the worker whose job process runs a job now."""
    with redis.Redis.from_url(redis_url) as client:
        queue = Queue(queue_name_for(schema), connection=client)
        busy = [w for w in Worker.all(queue=queue) if w.get_current_job_id()]
    assert len(busy) == 1, [w.name for w in busy]
    return int(busy[0].pid)


def test_of_two_uploads_150_ms_apart_the_newer_wins_on_two_workers(
    deployment: tuple[str, str, str, Processes], tmp_path: Path
) -> None:
    url, schema, redis_url, procs = deployment
    start_workers(deployment, 2, tmp_path / "tmp")
    # The older upload is long to read, so it reaches its write after the newer one.
    paragraphs = "\n\n".join(f"Older paragraph {n} of the first draft." for n in range(6000))
    jobs = RQJobQueue(url, redis_url, schema=schema)
    outcomes: list[str] = []
    try:
        for trial in range(RACE_TRIALS):
            name = f"race-{trial}.md"
            older = jobs.submit([memo(tmp_path / f"{trial}a", name, paragraphs)], submitter="p")
            time.sleep(0.15)
            newer = jobs.submit(
                [memo(tmp_path / f"{trial}b", name, "The newer text, sent last.")], submitter="p"
            )
            wait_for(
                f"trial {trial}: both jobs ended",
                lambda o=older, n=newer: all(s.state in FINAL_STATES for s in states(jobs, [o, n])),
                procs,
            )
            old, new = states(jobs, [older, newer])
            with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
                text = " ".join(c.text for c in store.list_chunks(f"uploads/portal/{name}"))
            assert "newer text" in text and "Older paragraph" not in text, trial
            assert new.state is JobState.DONE, new
            outcomes.append(old.state.value)
    finally:
        jobs.close()
    record("older of two uploads 150 ms apart, per trial", outcomes)
    assert outcomes == [JobState.SUPERSEDED.value] * RACE_TRIALS
    documents_are_whole(url, schema)
