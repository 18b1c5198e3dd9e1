"""The scale-out deployment through the faults an operator meets (docs/scale-out.md, "Faults
and their bounds"): a PostgreSQL and a Redis of the test's own (``private_servers.py``) are
restarted and killed under one `ragspine serve --database-url` process and `ragspine worker`
processes, as subprocesses.

- PostgreSQL restarted: while it is down every request is answered 503 with ``Retry-After``
  within a few seconds (no 10 s hang), and from 2 s after it is back no request fails.
- Redis killed: ``/readyz`` and uploads answer 503 with ``Retry-After``; an upload leaves no job
  row and no scratch copy. Redis started again, empty: ready within 15 s, a new upload done
  within 60 s.
- A worker's main process killed with SIGKILL mid-job: its job process goes with it, and
  ``/readyz`` reports "jobs: no live worker"; an upload is then accepted, told it waits, and
  done once a worker starts; the killed worker's job is done within 120 s of the kill, every
  document whole.

Each test leaves the deployment as it found it: every server up and one live worker. The
bounds measured are printed (run with ``-s``) for the figures in docs/scale-out.md.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.reliability.private_servers import PrivatePostgres, PrivateRedis
from tests.scaleout.processes import Processes, free_port, ragspine
from tests.service.test_rq_jobs import documents_are_whole

pytestmark = pytest.mark.reliability

SCHEMA = "faults"
KEY_NAME = "portal"
START_SECONDS = 90.0
# A request that waits longer than this for a database that is down counts as a hang (the
# pools give up after 1 s; the rest is the machine's other load).
DOWN_ANSWER_SECONDS = 5.0
# From this long after PostgreSQL is back, no request may fail.
RECOVERY_SECONDS = 2.0
READY_AFTER_REDIS_SECONDS = 15.0
JOB_SECONDS = 60.0
# A worker killed is reported within rq_liveness.LIVE_SECONDS (10 s) and a beat (2 s).
NO_WORKER_SECONDS = 20.0
# The job of a worker killed mid-job is done within this long of the kill.
KILLED_JOB_SECONDS = 120.0
MEMO = "# {title}\n\nThe {title} notes that kiosk sales grew in FY2025.\n"


@dataclass
class Deployment:
    """One API process and its workers over a private PostgreSQL and Redis."""

    pg: PrivatePostgres
    redis: PrivateRedis
    procs: Processes
    base: str
    auth: dict[str, str]
    target: list[str]
    tmp: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def db_url(self) -> str:
        return self.pg.url

    def start_worker(self) -> subprocess.Popen[bytes]:
        proc = self.procs.start(
            f"worker-{len(self.workers) + 1}",
            "worker",
            *self.target,
            "--redis-url",
            self.redis.url,
            env={"TMPDIR": str(self.tmp / "worker-tmp")},
        )
        self.workers.append(proc)
        return proc

    def live_workers(self) -> list[subprocess.Popen[bytes]]:
        return [w for w in self.workers if w.poll() is None]

    def get(self, path: str, timeout: float = 30) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", headers=self.auth, timeout=timeout)

    def ask(self, question: str, timeout: float = 30) -> httpx.Response:
        return httpx.post(
            f"{self.base}/v1/ask", json={"question": question}, headers=self.auth, timeout=timeout
        )

    def upload(self, title: str) -> httpx.Response:
        body = MEMO.format(title=title).encode()
        files = [("files", (f"{title.replace(' ', '_')}.md", body))]
        return httpx.post(f"{self.base}/v1/ingest/jobs", files=files, headers=self.auth, timeout=30)

    def ready(self) -> bool:
        try:
            return self.get("/readyz", timeout=10).status_code == 200
        except httpx.HTTPError:
            return False

    def job_rows(self) -> int:
        import psycopg

        with psycopg.connect(self.db_url) as conn:
            row = conn.execute(f"SELECT count(*) FROM {SCHEMA}.jobs").fetchone()
        assert row is not None
        return int(row[0])

    def scratch_files(self) -> list[Path]:
        """Every file the API process keeps of uploads (its scratch folder is in our TMPDIR)."""
        return [
            p for p in (self.tmp / "serve-tmp").glob("ragspine-serve-*/uploads/**/*") if p.is_file()
        ]

    def until(self, what: str, done: Callable[[], bool], seconds: float) -> float:
        """Seconds until ``done()``; fails with the processes' logs after ``seconds``."""
        start = time.monotonic()
        while not done():
            if time.monotonic() - start > seconds:
                pytest.fail(f"{what} within {seconds} s\n{self.procs.describe()}")
            time.sleep(0.2)
        return time.monotonic() - start

    def job_done(self, job_id: str) -> bool:
        status = self.get(f"/v1/jobs/{job_id}").json()
        assert status["state"] != "failed", status
        return bool(status["state"] == "done")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    tmp = tmp_path_factory.mktemp("faults")
    for name in ("serve-tmp", "worker-tmp"):
        (tmp / name).mkdir()
    pg, redis_server = PrivatePostgres(), PrivateRedis()
    procs = Processes(tmp)
    try:
        pg.start()
        redis_server.start()
        target = ["--database-url", pg.url, "--schema", SCHEMA]
        subprocess.run(ragspine("db", "upgrade", *target), check=True, capture_output=True)
        created = subprocess.run(
            ragspine("keys", "create", "--name", KEY_NAME, "--clearance", "INTERNAL", *target),
            check=True,
            capture_output=True,
            text=True,
        )
        token = created.stdout.strip().splitlines()[-1]
        port = free_port()
        procs.start(
            "api",
            "serve",
            *target,
            "--redis-url",
            redis_server.url,
            "--port",
            str(port),
            env={"TMPDIR": str(tmp / "serve-tmp")},
        )
        found = Deployment(
            pg,
            redis_server,
            procs,
            f"http://127.0.0.1:{port}",
            {"Authorization": f"Bearer {token}"},
            target,
            tmp,
        )
        found.start_worker()
        found.until("the deployment was ready", found.ready, START_SECONDS)
        yield found
    finally:
        procs.stop()
        redis_server.close()
        pg.close()


@pytest.fixture
def healthy(deployment: Deployment) -> Deployment:
    """The deployment with every server up and a live worker, as each test starts."""
    if not deployment.live_workers():
        deployment.start_worker()
    deployment.until("the deployment was ready", deployment.ready, START_SECONDS)
    return deployment


def _unavailable(response: httpx.Response) -> bool:
    return response.status_code == 503 and response.headers.get("Retry-After", "").isdigit()


def _requests(d: Deployment, job_id: str) -> list[Callable[[], httpx.Response]]:
    """One of each kind of database use: the key, a question's snapshot and facts, a job's
    rows, the review queue, the readiness checks."""
    return [
        lambda: d.ask("What did the first memo note about kiosk sales?"),
        lambda: d.get(f"/v1/jobs/{job_id}"),
        lambda: d.get("/v1/review"),
        lambda: d.get("/readyz"),
    ]


def _memo_requests(d: Deployment) -> list[Callable[[], httpx.Response]]:
    """The requests of ``_requests`` over an ingested memo, each answered once, so every pool
    holds a connection a restart will end."""
    sent = d.upload("first memo")
    assert sent.status_code == 202, sent.text
    job_id = sent.json()["job_id"]
    d.until("the memo's job was done", lambda: d.job_done(job_id), JOB_SECONDS)
    requests = _requests(d, job_id)
    for request in requests:
        assert request().status_code == 200
    return requests


def _failures_from(
    requests: list[Callable[[], httpx.Response]], back: float, seconds: float
) -> list[tuple[float, int]]:
    """Each request in turn until ``seconds`` after ``back``: (when, status) of each failure."""
    failures = []
    while time.monotonic() - back < seconds:
        for request in requests:
            at = time.monotonic() - back
            status = request().status_code
            if status != 200:
                failures.append((round(at, 2), status))
    return failures


def test_a_postgresql_restart_leaves_no_stale_connection_to_fail_a_request(
    healthy: Deployment,
) -> None:
    d = healthy
    requests = _memo_requests(d)

    d.pg.stop("fast")  # what an operator's restart does: every session is ended
    d.pg.start()
    back = time.monotonic()
    # No request in between: each pool still holds the connections the server ended.
    time.sleep(RECOVERY_SECONDS)
    assert _failures_from(requests, back, RECOVERY_SECONDS + 5) == []


def test_with_postgresql_down_requests_answer_503_at_once_and_none_fails_once_it_is_back(
    healthy: Deployment,
) -> None:
    d = healthy
    requests = _memo_requests(d)

    d.pg.stop("fast")
    slowest_down = 0.0
    # Long enough for a pool backing off between reconnection attempts to wait past the
    # server's return (psycopg_pool doubles its delay: 1, 2, 4, 8 s...).
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        for request in requests:
            start = time.monotonic()
            response = request()
            took = time.monotonic() - start
            slowest_down = max(slowest_down, took)
            assert _unavailable(response), (response.status_code, response.text)
            assert took < DOWN_ANSWER_SECONDS, f"a request waited {took:.1f} s"
    d.pg.start()
    back = time.monotonic()
    failures = _failures_from(requests, back, RECOVERY_SECONDS + 8)
    late = [(at, status) for at, status in failures if at >= RECOVERY_SECONDS]
    print(
        f"\nPostgreSQL down: slowest answer {slowest_down:.2f} s; after it was back, "
        f"failures at {failures}"
    )
    assert late == []
    # And ingestion goes on: a new upload is done.
    again = d.upload("memo after the database restart")
    assert again.status_code == 202, again.text
    d.until(
        "an upload after the restart was done",
        lambda: d.job_done(again.json()["job_id"]),
        JOB_SECONDS,
    )


def test_an_upload_while_redis_is_down_is_refused_and_leaves_nothing_then_redis_returns(
    healthy: Deployment,
) -> None:
    d = healthy
    rows = d.job_rows()
    d.redis.kill()
    try:
        refused = d.upload(f"memo {uuid.uuid4().hex[:8]}")
        readiness = d.get("/readyz")
    finally:
        d.redis.start()
    restarted = time.monotonic()

    assert _unavailable(refused), (refused.status_code, refused.text)
    assert "queue is unavailable" in refused.json()["error"]["message"]
    assert d.job_rows() == rows
    assert d.scratch_files() == []
    assert _unavailable(readiness)
    assert readiness.json()["checks"]["jobs"].startswith("queue unavailable")

    # Redis is back, empty: the worker beats (and registers) again, and takes new jobs.
    ready_after = d.until(
        "/readyz was ready after Redis restarted", d.ready, READY_AFTER_REDIS_SECONDS
    )
    sent = d.upload("memo after the redis restart")
    assert sent.status_code == 202, sent.text
    assert sent.json()["note"] == ""
    d.until(
        "an upload after Redis restarted was done",
        lambda: d.job_done(sent.json()["job_id"]),
        JOB_SECONDS,
    )
    print(
        f"\nRedis restart: ready {ready_after:.1f} s after it was back; a new upload done "
        f"{time.monotonic() - restarted:.1f} s after it was back"
    )


def _children(pid: int) -> set[int]:
    """The processes ``pid`` forked, read from /proc (Linux)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found |= {int(p) for p in text.split()}
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_worker_killed_mid_job_leaves_no_process_and_readiness_says_no_live_worker(
    healthy: Deployment,
) -> None:
    import psycopg

    d = healthy
    for worker in d.live_workers():  # one worker, that the test is about to kill
        worker.terminate()
        worker.wait(timeout=60)
    d.until(
        "/readyz reported no live worker after the workers stopped",
        lambda: d.get("/readyz").json().get("checks", {}).get("jobs") == "no live worker",
        NO_WORKER_SECONDS,
    )
    waiting = d.upload("memo for the killed worker")
    assert waiting.status_code == 202, waiting.text
    assert waiting.json()["note"].startswith("queued, no live worker")

    # The job's process blocks on the jobs table until the test lets go: it is mid-job.
    with psycopg.connect(d.db_url) as blocker:
        blocker.execute(f"LOCK TABLE {SCHEMA}.jobs IN ACCESS EXCLUSIVE MODE")
        worker = d.start_worker()
        children: set[int] = set()

        def forked() -> bool:
            children.update(_children(worker.pid))
            return bool(children)

        d.until("the worker forked a process for the job", forked, START_SECONDS)
        os.kill(worker.pid, signal.SIGKILL)  # the main process only, not its group
        worker.wait()
        killed = time.monotonic()
        ended = d.until(
            "the killed worker's processes ended",
            lambda: not any(_alive(pid) for pid in children),
            10,
        )
        blocker.rollback()
    d.until(
        "/readyz reported no live worker after the kill",
        lambda: d.get("/readyz").json().get("checks", {}).get("jobs") == "no live worker",
        NO_WORKER_SECONDS,
    )
    print(
        f"\nworker SIGKILL: its {len(children)} child process(es) ended {ended:.2f} s after; "
        f"/readyz said no live worker {time.monotonic() - killed:.1f} s after"
    )

    # A worker started later does the killed worker's job (the reconciler or RQ's retry puts
    # it back on the queue: docs/scale-out.md) and takes new uploads.
    d.start_worker()
    d.until("the deployment was ready with a new worker", d.ready, START_SECONDS)
    sent = d.upload("memo after the kill")
    assert sent.status_code == 202, sent.text
    d.until(
        "an upload after the kill was done", lambda: d.job_done(sent.json()["job_id"]), JOB_SECONDS
    )
    d.until(
        "the killed worker's job was done",
        lambda: d.job_done(waiting.json()["job_id"]),
        KILLED_JOB_SECONDS - (time.monotonic() - killed),
    )
    print(f"worker SIGKILL: its job done {time.monotonic() - killed:.1f} s after")
    # Every document whole, the killed job's among them, written by its one file.
    assert f"uploads/{KEY_NAME}/memo_for_the_killed_worker.md" in documents_are_whole(
        d.db_url, SCHEMA
    )
    results = d.get(f"/v1/jobs/{waiting.json()['job_id']}").json()["results"]
    assert [r["outcome"] for r in results] == ["ingested"], results


def test_readiness_names_each_failing_part(healthy: Deployment) -> None:
    body: dict[str, Any] = healthy.get("/readyz").json()
    assert body["checks"] == {"store": "ok", "index": "ok", "jobs": "ok"}
