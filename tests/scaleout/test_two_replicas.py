"""End to end, as documented in docs/scale-out.md: `ragspine db upgrade`, two `ragspine worker`
processes and two `ragspine serve --database-url` processes over one fresh schema; the demo
corpus uploaded through the first API process as one job per file, both workers taking some,
each job awaited through the second; then each API process, and one started late, answers the
demo questions, and previews their sources, exactly as the embedded workspace does when the
same files are uploaded to it the same way.

What the documents leave stored depends on the order they arrive in: of two disagreeing
figures the first stays approved (the later waits in review as a conflict), and of two agreeing
ones the most recently ingested is cited. Two workers racing over jobs sent at once finish
them in either order, so each job is awaited before the next is sent, here and in the
reference; the idle workers still take turns.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ragspine.demo.corpus import generate_corpus
from ragspine.demo.tour import DEMO_QUESTIONS, DEMO_REFERENCE_DATE
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.app import create_app
from ragspine.service.keys.store import KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.scaleout.processes import (
    JOB_SECONDS,
    START_SECONDS,
    Processes,
    free_port,
    multipart,
    ragspine,
    ready,
    upload_files,
    wait,
)

KEY_NAME = "portal"


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    yield started
    started.stop()


def _workers(redis_url: str, schema: str) -> int:
    from redis import Redis
    from rq import Queue, Worker

    from ragspine.service.jobs.rq_jobs import queue_name_for

    with Redis.from_url(redis_url) as connection:
        return Worker.count(queue=Queue(queue_name_for(schema), connection=connection))


def _answers(
    post: Callable[[str, dict[str, str]], Any], get: Callable[[str, dict[str, str]], Any]
) -> list[dict[str, Any]]:
    """What matters of each demo answer: its text, route, kind and sources, and the preview
    of each source (its cells and passages, read from the process's store)."""
    out = []
    for q in DEMO_QUESTIONS:
        body = post(
            "/v1/ask",
            {"question": q.question, "reference_date": DEMO_REFERENCE_DATE.isoformat()},
        )
        sources = [{"doc": s["doc"], "locator": s["locator"]} for s in body["sources"]]
        out.append(
            {
                "question": q.question,
                "answer": body["answer"],
                "route": body["route"],
                "kind": body["answer_kind"],
                "sources": sources,
                "previews": [get("/v1/sources/preview", s) for s in sources],
            }
        )
    return out


def _embedded_answers(root: Path, files: list[Path]) -> list[dict[str, Any]]:
    """The reference: the same files uploaded, the same way, to `serve --workspace`'s app."""
    workspace = Workspace.create(root)
    with KeyStore(workspace) as keys:
        _, token = keys.create(KEY_NAME, Sensitivity.INTERNAL)
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(ServiceSettings(workspace=root))) as client:
        for file in files:
            job = client.post("/v1/ingest/jobs", files=multipart([file]), headers=auth).json()
            deadline = time.monotonic() + JOB_SECONDS
            while client.get(f"/v1/jobs/{job['job_id']}", headers=auth).json()["state"] != "done":
                assert time.monotonic() < deadline, "the embedded job did not finish"
                time.sleep(0.05)

        def get(path: str, params: dict[str, str]) -> Any:
            response = client.get(path, params=params, headers=auth)
            assert response.status_code == 200, response.text
            return response.json()

        return _answers(lambda path, body: client.post(path, json=body, headers=auth).json(), get)


def _http_answers(base: str, auth: dict[str, str]) -> list[dict[str, Any]]:
    def post(path: str, body: dict[str, str]) -> Any:
        response = httpx.post(f"{base}{path}", json=body, headers=auth, timeout=60)
        response.raise_for_status()
        return response.json()

    def get(path: str, params: dict[str, str]) -> Any:
        response = httpx.get(f"{base}{path}", params=params, headers=auth, timeout=60)
        response.raise_for_status()
        return response.json()

    return _answers(post, get)


def _workers_that_ran(
    redis_url: str, postgres_url: str, schema: str, job_ids: list[str]
) -> set[str]:
    """The names of the RQ workers that ran the jobs (RQ keeps a finished job's worker)."""
    from redis import Redis
    from rq.job import Job

    from ragspine.service.jobs.rq_jobs import RQJobQueue

    queue = RQJobQueue(postgres_url, redis_url, schema=schema)
    try:
        with Redis.from_url(redis_url) as connection:
            jobs = [Job.fetch(queue.rq_job_id(j), connection=connection) for j in job_ids]
            return {str(job.worker_name) for job in jobs}
    finally:
        queue.close()


def test_two_api_processes_and_two_workers_answer_as_the_embedded_workspace(
    postgres_url: str,
    postgres_schema: str,
    redis_url: str,
    redis_queue_cleanup: list[str],
    processes: Processes,
    tmp_path: Path,
) -> None:
    redis_queue_cleanup.append(f"ragspine-ingest-{postgres_schema}")
    target = ["--database-url", postgres_url, "--schema", postgres_schema]
    subprocess.run(ragspine("db", "upgrade", *target), check=True, capture_output=True)
    for n in (1, 2):
        processes.start(f"worker-{n}", "worker", *target, "--redis-url", redis_url)
    bases = []
    for n in (1, 2):
        port = free_port()
        processes.start(f"api-{n}", "serve", *target, "--redis-url", redis_url, "--port", str(port))
        bases.append(f"http://127.0.0.1:{port}")
    created = subprocess.run(
        ragspine("keys", "create", "--name", KEY_NAME, "--clearance", "INTERNAL", *target),
        check=True,
        capture_output=True,
        text=True,
    )
    auth = {"Authorization": f"Bearer {created.stdout.strip().splitlines()[-1]}"}
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    files = upload_files(corpus)
    for base in bases:
        wait(f"{base} was not ready", lambda base=base: ready(base), START_SECONDS, processes)

    # Both workers listen before anything is queued, so each can take a job.
    wait(
        "two workers did not serve the queue",
        lambda: _workers(redis_url, postgres_schema) == 2,
        START_SECONDS,
        processes,
    )
    job_ids = []
    for file in files:  # one job per file, in order: the two workers take turns
        sent = httpx.post(f"{bases[0]}/v1/ingest/jobs", files=multipart([file]), headers=auth)
        assert sent.status_code == 202, sent.text
        job_id = sent.json()["job_id"]
        job_ids.append(job_id)

        def finished(job_id: str = job_id) -> bool:
            status = httpx.get(f"{bases[1]}/v1/jobs/{job_id}", headers=auth).json()
            assert status["state"] != "failed", status
            return bool(status["state"] == "done")

        wait(f"the job of {file.name} did not finish", finished, JOB_SECONDS, processes)
    for job_id in job_ids:
        status = httpx.get(f"{bases[1]}/v1/jobs/{job_id}", headers=auth).json()
        assert [r["outcome"] for r in status["results"]] == ["ingested"], status
    assert len(_workers_that_ran(redis_url, postgres_url, postgres_schema, job_ids)) == 2

    expected = _embedded_answers(tmp_path / "embedded", files)
    assert any(a["sources"] for a in expected)
    for base in bases:
        assert _http_answers(base, auth) == expected, base

    port = free_port()
    late = f"http://127.0.0.1:{port}"
    processes.start("api-late", "serve", *target, "--redis-url", redis_url, "--port", str(port))
    wait("the late replica was not ready", lambda: ready(late), START_SECONDS, processes)
    assert _http_answers(late, auth) == expected
