"""Scale-out on one machine: two API replicas over PostgreSQL and RQ ingestion workers.

The deployment of docs/scale-out.md, built in a fresh PostgreSQL schema (dropped afterwards,
its RQ keys deleted): the demo corpus ingested, one ``ragspine worker`` and two
``ragspine serve --database-url … --redis-url …`` processes on free loopback ports, each
with its own followed index. Then:

* **/v1/ask load**: the three questions of ``bench_service.py`` (structured, narrative, FAQ
  hit), each checked once on both replicas, then driven for ``duration`` seconds by two
  ``wrk`` processes at once, one per replica, each with half the connections (wrk hits one
  address; the two runs stand for a load balancer in front). Requests/s and errors are the
  two runs' sums; p50 and p99 are the higher of the two (a merged percentile cannot be
  rebuilt from wrk's summaries, so the figure is the worse replica's). The same load, all
  connections on one port, is run against the embedded default (``ragspine serve
  --workspace … --workers 2``: two processes as well) for comparison (full runs only).
* **ingestion throughput**: generated decks and workbooks (``generate_scaled_corpus``, all
  different) uploaded through the replicas' ``POST /v1/ingest/jobs`` in jobs of 20 files
  (the upload limit), with one running worker, then the next batch of as many files with two;
  files/s is the files of the batch over the time from the first upload until every job of
  the batch reads ``done`` through the API. Every file must come back ``ingested``, else the
  run stops with an error instead of timing failures.

The follower's catch-up from zero and the followed search p50 at 100k chunks are
``bench_pg_bm25.py``'s rows. Needs PostgreSQL (``RAGSPINE_DATABASE_URL``) and Redis
(``RAGSPINE_REDIS_URL``, default the local server); where either cannot be reached the
benchmark reports itself skipped, except under ``CI=true`` where it fails. Timings are wall
clock on the machine that also runs the servers: compare like with like.

    .venv/bin/python bench/bench_scaleout.py [--quick] [--iterations FILES] [--json]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_pg_bm25 import DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL, fresh_schema
from bench.bench_service import (
    QUESTIONS,
    QUICK_CONNECTIONS,
    WORKERS,
    Load,
    build_workspace,
    check_question,
    drive,
    embedded_server,
    faq_question,
    free_port,
    wait_ready,
)

NAME = "scaleout"
REDIS_URL_VARIABLE = "RAGSPINE_REDIS_URL"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
REPLICAS = 2
FILES = 240  # per worker count, as bench_ingest's corpus
QUICK_FILES = 4
QUICK_DURATION_S = 1.0
# The load of the service benchmark before issue 31 (bench_service now drives 16): 50
# connections, 30 s per kind, kept so the scale-out figures stay comparable.
CONNECTIONS = 50
DURATION_S = 30.0
JOB_FILES = 20  # the service's default limit of files per upload
JOB_TIMEOUT_S = 600.0
STOP_TIMEOUT_S = 20.0


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    del warmup  # the load runs are bounded by time; each worker count gets fresh files
    url = os.environ.get(DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL)
    redis_url = os.environ.get(REDIS_URL_VARIABLE, DEFAULT_REDIS_URL)
    problem = _unreachable(url, redis_url)
    if problem:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            raise RuntimeError(f"{problem}; CI must run the scale-out benchmark")
        return {"benchmark": NAME, "skipped": problem, "rows": []}
    duration = QUICK_DURATION_S if quick else DURATION_S
    connections = QUICK_CONNECTIONS if quick else CONNECTIONS
    files = iterations or (QUICK_FILES if quick else FILES)
    questions = {kind: (q or faq_question(), route) for kind, (q, route) in QUESTIONS.items()}
    with (
        tempfile.TemporaryDirectory(prefix="ragspine-bench-scaleout-") as tmp,
        fresh_schema(url) as schema,
        _rq_keys_removed(redis_url, schema),
        Fleet(Path(tmp) / "logs") as fleet,
    ):
        folder = Path(tmp)
        _ingest_demo_corpus(url, schema, folder / "corpus")
        target = ["--database-url", url, "--schema", schema, "--redis-url", redis_url]
        fleet.start("worker-1", "worker", *target)
        bases = [
            fleet.serve(f"api-{n}", *target, "--index-dir", str(folder / f"ix{n}"))
            for n in range(1, REPLICAS + 1)
        ]
        for base in bases:
            for kind, (question, route) in questions.items():
                check_question(base, kind, question, route)
        replicated = {
            kind: _drive_replicas(bases, question, duration, connections)
            for kind, (question, _) in questions.items()
        }
        batches = _scaled_files(folder / "scaled", 2 * files)
        one_worker = _ingest_through(bases, batches[:files])
        fleet.start("worker-2", "worker", *target)
        _wait_for_workers(redis_url, schema, 2)
        two_workers = _ingest_through(bases, batches[files:])
    embedded = None if quick else _embedded_loads(questions, duration, connections)
    return {
        "benchmark": NAME,
        "description": "2 API replicas on PostgreSQL vs the embedded default; RQ workers",
        "params": {
            "duration_s": duration,
            "connections": connections,
            "replicas": REPLICAS,
            "embedded_server_workers": WORKERS,
            "client": next(iter(replicated.values())).client,
            "files_per_worker_count": files,
            "files_per_job": JOB_FILES,
        },
        "replicated": {kind: load.__dict__ for kind, load in replicated.items()},
        "embedded": None if embedded is None else {k: v.__dict__ for k, v in embedded.items()},
        "ingest": {"1 worker": one_worker, "2 workers": two_workers},
        "rows": _rows(replicated, embedded, one_worker, two_workers),
    }


def _rows(
    replicated: dict[str, Load],
    embedded: dict[str, Load] | None,
    one_worker: dict[str, float],
    two_workers: dict[str, float],
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    setups = [(f"{REPLICAS} PG replicas", replicated)]
    if embedded is not None:
        setups.append((f"embedded --workers {WORKERS}", embedded))
    for label, loads in setups:
        for kind, load in loads.items():
            rows.append(_row(f"{label} {kind} requests/s", load.rps, "req/s"))
            rows.append(_row(f"{label} {kind} p50", load.p50_ms, "ms"))
            rows.append(_row(f"{label} {kind} p99", load.p99_ms, "ms"))
            rows.append(_row(f"{label} {kind} errors", float(load.errors), "count"))
    rows.append(_row("ingest through the API, 1 worker", one_worker["files_per_s"], "files/s"))
    rows.append(_row("ingest through the API, 2 workers", two_workers["files_per_s"], "files/s"))
    return rows


def _row(metric: str, value: float, unit: str) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": unit, "target": None, "status": None}


# --------------------------------------------------------------------------- set-up


def _unreachable(url: str, redis_url: str) -> str:
    """Why the benchmark cannot run here ('' when it can)."""
    try:
        import psycopg
        import redis
    except ImportError:
        return "the postgres and scaleout extras are not installed"
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL at {url} is unreachable: {exc}"
    try:
        with redis.Redis.from_url(redis_url, socket_connect_timeout=3) as client:
            client.ping()
    except redis.RedisError as exc:
        return f"Redis at {redis_url} is unreachable: {exc}"
    return ""


def _queue_name(schema: str) -> str:
    from ragspine.service.jobs.rq_jobs import queue_name_for

    return queue_name_for(schema)


@contextmanager
def _rq_keys_removed(redis_url: str, schema: str) -> Iterator[None]:
    """Delete every key RQ made for the deployment's queue at the end."""
    import redis

    try:
        yield
    finally:
        with redis.Redis.from_url(redis_url) as client:
            keys = list(client.scan_iter(match=f"*{_queue_name(schema)}*", count=1000))
            if keys:
                client.delete(*keys)


def _ingest_demo_corpus(url: str, schema: str, corpus: Path) -> None:
    from ragspine.demo.corpus import generate_corpus
    from ragspine.facade import RAGSpine

    generate_corpus(corpus)
    with RAGSpine.open_server(url, schema=schema) as rag:
        rag.ingest(corpus)


class Fleet:
    """The benchmark's ``ragspine`` subprocesses, each in its own process group (a worker
    forks a child per job), logging to a file; all stopped at the end."""

    def __init__(self, logs: Path) -> None:
        self._logs = logs
        self._started: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Fleet:
        self._logs.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self._started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self._started:
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        with (self._logs / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "ragspine", *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self._started.append(process)
        return process

    def serve(self, name: str, *args: str) -> str:
        """Start ``ragspine serve --no-auth`` on a free port; its base URL once ready."""
        port = free_port()
        process = self.start(name, "serve", *args, "--port", str(port), "--no-auth")
        base_url = f"http://127.0.0.1:{port}"
        with (self._logs / f"{name}.log").open("rb") as log:
            wait_ready(base_url, process, log)
        return base_url


def _die_with_parent() -> None:
    """In the child, before it runs ragspine: a SIGTERM when the benchmark dies, even by
    SIGKILL, so no server or worker outlives it on a shared machine (Linux only)."""
    if sys.platform == "linux":
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _wait_for_workers(redis_url: str, schema: str, count: int) -> None:
    import redis
    from rq import Queue, Worker

    deadline = time.monotonic() + JOB_TIMEOUT_S
    with redis.Redis.from_url(redis_url) as connection:
        queue = Queue(_queue_name(schema), connection=connection)
        while Worker.count(queue=queue) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{count} workers did not start serving {queue.name}")
            time.sleep(0.2)


def _scaled_files(folder: Path, count: int) -> list[Path]:
    """``count`` different generated decks and workbooks."""
    from ragspine.demo.corpus import generate_scaled_corpus
    from ragspine.ingestion.readers import SUPPORTED_SUFFIXES

    generate_scaled_corpus(folder, count)
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in SUPPORTED_SUFFIXES)
    if len(files) != count:
        raise RuntimeError(f"generate_scaled_corpus wrote {len(files)} files, not {count}")
    return files


# --------------------------------------------------------------------------- measurements


def _drive_replicas(bases: list[str], question: str, duration: float, connections: int) -> Load:
    """One load generator per replica at once, the connections split between them."""
    share = max(1, connections // len(bases))
    with ThreadPoolExecutor(len(bases)) as pool:
        loads = list(pool.map(lambda base: drive(base, question, duration, share), bases))
    return Load(
        sum(load.requests for load in loads),
        sum(load.rps for load in loads),
        max(load.p50_ms for load in loads),
        max(load.p99_ms for load in loads),
        sum(load.errors for load in loads),
        loads[0].client,
    )


def _ingest_through(bases: list[str], files: list[Path]) -> dict[str, float]:
    """Upload ``files`` in jobs of ``JOB_FILES``, spread over the replicas, and wait for every
    job through the next replica; files/s from the first upload to the last job done."""
    import httpx

    started = time.perf_counter()
    jobs: list[tuple[str, str]] = []
    for number, first in enumerate(range(0, len(files), JOB_FILES)):
        batch = files[first : first + JOB_FILES]
        sent = httpx.post(
            f"{bases[number % len(bases)]}/v1/ingest/jobs",
            files=[("files", (p.name, p.read_bytes())) for p in batch],
            timeout=60.0,
        )
        if sent.status_code != 202:
            raise RuntimeError(f"upload refused: HTTP {sent.status_code} {sent.text}")
        jobs.append((bases[(number + 1) % len(bases)], sent.json()["job_id"]))
    outcomes: list[str] = []
    deadline = time.monotonic() + JOB_TIMEOUT_S
    for base, job_id in jobs:
        while (status := httpx.get(f"{base}/v1/jobs/{job_id}", timeout=30.0).json())[
            "state"
        ] not in ("done", "failed"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"job {job_id} did not finish within {JOB_TIMEOUT_S:.0f} s")
            time.sleep(0.05)
        outcomes.extend(r["outcome"] for r in status["results"])
    seconds = time.perf_counter() - started
    if outcomes.count("ingested") != len(files):
        raise RuntimeError(f"{len(files)} files uploaded, outcomes {sorted(set(outcomes))}")
    return {
        "files": float(len(files)),
        "jobs": float(len(jobs)),
        "wall_s": seconds,
        "files_per_s": len(files) / seconds,
    }


def _embedded_loads(
    questions: dict[str, tuple[str, str]], duration: float, connections: int
) -> dict[str, Load]:
    """The same load on the embedded default: one workspace, ``serve --workers 2``."""
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-scaleout-ws-") as tmp:
        workspace = Path(tmp) / "ws"
        build_workspace(workspace)
        with embedded_server(workspace, WORKERS) as base_url:
            for kind, (question, route) in questions.items():
                check_question(base_url, kind, question, route)
            return {
                kind: drive(base_url, question, duration, connections)
                for kind, (question, _) in questions.items()
            }


if __name__ == "__main__":
    from bench.run_all import standalone

    sys.exit(standalone(run, description=__doc__))
