"""Soak: a bounded mixed load on loopback against two API replicas and two RQ workers on
PostgreSQL, with the memory and open files of every server process watched.

The deployment of docs/scale-out.md (``ragspine db upgrade``, ``ragspine worker`` ×2,
``ragspine serve --database-url`` ×2, started as in tests/scaleout/test_two_replicas.py, on a
fresh schema and its own RQ queue) is loaded with the demo corpus through an upload. Client
threads then send, for ``LOAD_SECONDS`` (``LONG_LOAD_SECONDS`` under
``RAGSPINE_RELIABILITY=long``, ``make soak``), a mix of every route to a random replica: asks
(structured, narrative, FAQ), the SSE stream, chat completions with and without streaming,
source previews, uploads of small documents that replace their previous version, job status,
review lists and review decisions, models, readiness and metrics.

Every ``SAMPLE_SECONDS`` the resident memory (``VmRSS`` of ``/proc/PID/status``) and the open
file descriptors (``/proc/PID/fd``) of the four processes are sampled. The issue's bound is
asserted: from the baseline after warm-up (the median of the first samples after
``WARMUP_SECONDS``) to the end (the median of the last samples) neither grows by 10 % or more
(descriptors counted in samples taken outside a search-index commit, whose writer lock and new
segment files are open for the commit only: 27 → 33 in a CI run whose last samples fell in
commits);
no answer is a 5xx or a transport error; every upload's job ends done. The samples and the
requests by route go to ``test-artifacts/soak/``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from bench.bench_service import faq_question

from ragspine.demo import corpus_shapes
from ragspine.demo.corpus import generate_corpus
from ragspine.demo.tour import DEMO_QUESTIONS, DEMO_REFERENCE_DATE
from tests.reliability.conftest import long_budget
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

pytestmark = pytest.mark.reliability

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "soak"
LOAD_SECONDS = 60.0
LONG_LOAD_SECONDS = 600.0
WARMUP_FRACTION = 0.25  # of the load: caches, pools and allocator arenas fill first
SAMPLE_SECONDS = 2.0
LONG_SAMPLE_SECONDS = 5.0
WINDOW = 3  # samples whose median is the baseline, and the end
MAX_GROWTH = 0.10  # the bound
INDEX_WRITER_LOCK = ".tantivy-writer.lock"
CLIENTS = 3
KEY_NAME = "soak"
# Each client replaces its own small document (no two jobs write one document at once):
# a table the profile maps (a year the demo corpus never states, so no conflict) and a row it
# does not (a review item each time).
SOAK_YEAR = 2031

# route -> weight in the mix
MIX: dict[str, int] = {
    "ask": 30,
    "ask_faq": 8,
    "ask_stream": 12,
    "chat": 8,
    "chat_stream": 8,
    "preview": 10,
    "review_list": 6,
    "review_decide": 4,
    "upload": 3,
    "job": 5,
    "models": 2,
    "readyz": 2,
    "metrics": 2,
}


@dataclass(frozen=True)
class Sample:
    at: float  # seconds since the load started
    rss_kib: dict[str, int]
    fds: dict[str, int]
    # What each process's descriptors point at, by kind (a socket, a pipe, a file's path).
    fd_kinds: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass
class Load:
    """What the clients sent and got, shared by their threads."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    sources: list[tuple[str, str]] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, route: str, status: int) -> None:
        with self.lock:
            self.statuses[(route, status)] += 1


def _proc_sample(pid: int) -> tuple[int, int]:
    """(VmRSS in KiB, open file descriptors) of ``pid``; (0, 0) once it has exited (a zombie
    has no VmRSS)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0, 0
    rss = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")]
    return (rss[0], fds) if rss else (0, 0)


def _soak_document(client: int, version: int) -> tuple[str, tuple[str, bytes]]:
    text = (
        f"# 香港业务简报 {client}\n\n第 {version} 版。\n\n"
        f"| 指标（百万美元） | FY{SOAK_YEAR} |\n|---|---|\n"
        f"| 收入 | {1000 + client * 10 + version} |\n| 杂项备注 | {version} |\n"
    )
    return ("files", (f"soak_client_{client}.md", text.encode("utf-8")))


class Client:
    """One thread of the mix against random replicas until the deadline."""

    def __init__(
        self, number: int, bases: list[str], auth: dict[str, str], faq: str, load: Load
    ) -> None:
        self.number = number
        self.bases = bases
        self.auth = auth
        self.faq = faq
        self.load = load
        self.rng = random.Random(number)
        self.version = 0
        self.http = httpx.Client(headers=auth, timeout=60.0)

    def run(self, deadline: float) -> None:
        routes = list(MIX)
        weights = list(MIX.values())
        with self.http:
            while time.monotonic() < deadline:
                route = self.rng.choices(routes, weights)[0]
                try:
                    status = getattr(self, f"_{route}")(self.rng.choice(self.bases))
                except Exception as exc:  # a transport error, or a body that is not the API's
                    with self.load.lock:
                        self.load.errors.append(f"{route}: {type(exc).__name__}: {exc}")
                    continue
                self.load.record(route, status)

    def _question(self) -> dict[str, str]:
        question = self.rng.choice(DEMO_QUESTIONS).question
        return {"question": question, "reference_date": DEMO_REFERENCE_DATE.isoformat()}

    def _ask(self, base: str) -> int:
        response = self.http.post(f"{base}/v1/ask", json=self._question())
        if response.status_code == 200:
            sources = [(s["doc"], s["locator"]) for s in response.json()["sources"]]
            with self.load.lock:
                self.load.sources = (self.load.sources + sources)[-200:]
        return response.status_code

    def _ask_faq(self, base: str) -> int:
        response = self.http.post(f"{base}/v1/ask", json={"question": self.faq})
        if response.status_code == 200 and response.json()["route"] != "faq":
            with self.load.lock:
                self.load.errors.append(f"ask_faq: answered by {response.json()['route']}")
        return response.status_code

    def _ask_stream(self, base: str) -> int:
        with self.http.stream("POST", f"{base}/v1/ask/stream", json=self._question()) as stream:
            body = "".join(stream.iter_text())
            if stream.status_code == 200 and "event: done" not in body:
                with self.load.lock:
                    self.load.errors.append("ask_stream: no done event")
            return stream.status_code

    def _chat_body(self, stream: bool) -> dict[str, Any]:
        question = self._question()["question"]
        return {"messages": [{"role": "user", "content": question}], "stream": stream}

    def _chat(self, base: str) -> int:
        url = f"{base}/v1/chat/completions"
        return self.http.post(url, json=self._chat_body(False)).status_code

    def _chat_stream(self, base: str) -> int:
        url = f"{base}/v1/chat/completions"
        with self.http.stream("POST", url, json=self._chat_body(True)) as stream:
            body = "".join(stream.iter_text())
            if stream.status_code == 200 and "[DONE]" not in body:
                with self.load.lock:
                    self.load.errors.append("chat_stream: no [DONE]")
            return stream.status_code

    def _preview(self, base: str) -> int:
        with self.load.lock:
            sources = list(self.load.sources)
        doc, locator = self.rng.choice(sources)
        params = {"doc": doc, "locator": locator}
        return self.http.get(f"{base}/v1/sources/preview", params=params).status_code

    def _review_list(self, base: str) -> int:
        return self.http.get(f"{base}/v1/review").status_code

    def _review_decide(self, base: str) -> int:
        listed = self.http.get(f"{base}/v1/review")
        items = listed.json()["items"] if listed.status_code == 200 else []
        if not items:
            return listed.status_code
        item = self.rng.choice(items)
        verb = self.rng.choice(("approve", "reject"))
        url = f"{base}/v1/review/{item['item_id']}/{verb}"
        return self.http.post(url, json={} if verb == "approve" else {"note": "soak"}).status_code

    def _upload(self, base: str) -> int:
        self.version = 1 - self.version
        files = [_soak_document(self.number, self.version)]
        response = self.http.post(f"{base}/v1/ingest/jobs", files=files)
        if response.status_code == 202:
            with self.load.lock:
                self.load.jobs.append(response.json()["job_id"])
        return response.status_code

    def _job(self, base: str) -> int:
        with self.load.lock:
            jobs = list(self.load.jobs)
        return self.http.get(f"{base}/v1/jobs/{self.rng.choice(jobs)}").status_code

    def _models(self, base: str) -> int:
        return self.http.get(f"{base}/v1/models").status_code

    def _readyz(self, base: str) -> int:
        return self.http.get(f"{base}/readyz").status_code

    def _metrics(self, base: str) -> int:
        return self.http.get(f"{base}/metrics").status_code


@dataclass
class Deployment:
    bases: list[str]
    auth: dict[str, str]
    pids: dict[str, int]
    ready_seconds: float  # from the first command until both replicas answer /readyz
    corpus_seconds: float  # the demo corpus's upload until its job is done
    corpus_job: str


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    yield started
    started.stop()


@pytest.fixture
def deployment(
    postgres_url: str,
    postgres_schema: str,
    redis_url: str,
    redis_queue_cleanup: list[str],
    processes: Processes,
    tmp_path: Path,
) -> Deployment:
    began = time.monotonic()
    redis_queue_cleanup.append(f"ragspine-ingest-{postgres_schema}")
    target = ["--database-url", postgres_url, "--schema", postgres_schema]
    subprocess.run(ragspine("db", "upgrade", *target), check=True, capture_output=True)
    pids = {}
    for n in (1, 2):
        worker = processes.start(f"worker-{n}", "worker", *target, "--redis-url", redis_url)
        pids[f"worker-{n}"] = worker.pid
    bases = []
    for n in (1, 2):
        port = free_port()
        api = processes.start(
            f"api-{n}", "serve", *target, "--redis-url", redis_url, "--port", str(port)
        )
        pids[f"api-{n}"] = api.pid
        bases.append(f"http://127.0.0.1:{port}")
    created = subprocess.run(
        ragspine("keys", "create", "--name", KEY_NAME, "--clearance", "CONFIDENTIAL", *target),
        check=True,
        capture_output=True,
        text=True,
    )
    auth = {"Authorization": f"Bearer {created.stdout.strip().splitlines()[-1]}"}
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    for base in bases:
        wait(f"{base} was not ready", lambda base=base: ready(base), START_SECONDS, processes)
    ready_at = time.monotonic()
    # Not the supplement: its scanned page sends the worker to OCR (≈ 30 s and ≈ 1 GB on two
    # busy cores), which the scale-out test already tries; the soak is about the servers.
    scanned = corpus / corpus_shapes.SUPPLEMENT
    files = [p for p in upload_files(corpus) if p != scanned]
    sent = httpx.post(
        f"{bases[0]}/v1/ingest/jobs",
        files=multipart(files),
        headers=auth,
        timeout=120,
    )
    assert sent.status_code == 202, sent.text
    job_id = sent.json()["job_id"]
    job_url = f"{bases[1]}/v1/jobs/{job_id}"
    wait(
        "the corpus upload did not finish", lambda: _job_over(job_url, auth), JOB_SECONDS, processes
    )
    return Deployment(bases, auth, pids, ready_at - began, time.monotonic() - ready_at, job_id)


def _sources(deployment: Deployment) -> list[tuple[str, str]]:
    """(doc, locator) of the sources the demo questions are answered from: what to preview."""
    sources = []
    with httpx.Client(headers=deployment.auth, timeout=60) as http:
        for q in DEMO_QUESTIONS:
            body = {"question": q.question, "reference_date": DEMO_REFERENCE_DATE.isoformat()}
            answer = http.post(f"{deployment.bases[0]}/v1/ask", json=body).json()
            sources += [(s["doc"], s["locator"]) for s in answer["sources"]]
    assert sources, "no demo answer has a source to preview"
    return sources


def _job_over(url: str, auth: dict[str, str]) -> bool:
    state = httpx.get(url, headers=auth, timeout=30).json()["state"]
    assert state != "failed", httpx.get(url, headers=auth, timeout=30).text
    return bool(state == "done")


def _fd_kinds(pid: int) -> dict[str, int]:
    """What ``pid``'s open descriptors point at, counted by kind: ``socket``, ``pipe``,
    ``anon_inode:[eventfd]``, or a file's path."""
    kinds: Counter[str] = Counter()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return {}
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:  # closed since the listing
            continue
        kinds[target.split(":[", 1)[0] if target.endswith("]") else target] += 1
    return dict(kinds)


def _sampler(pids: dict[str, int], every: float, stop: threading.Event, out: list[Sample]) -> None:
    began = time.monotonic()
    while not stop.is_set():
        rss, fds, kinds = {}, {}, {}
        for name, pid in pids.items():
            rss[name], fds[name] = _proc_sample(pid)
            kinds[name] = _fd_kinds(pid)
        out.append(Sample(time.monotonic() - began, rss, fds, kinds))
        stop.wait(every)


def _fd_change(samples: list[Sample], warmup: float, name: str) -> dict[str, int]:
    """The kinds of descriptor ``name`` holds more or fewer of at the end than just after the
    warm-up (for the failure message: which resource grew)."""
    after = [s for s in samples if s.at >= warmup]
    first, last = (
        Counter(after[0].fd_kinds.get(name, {})),
        Counter(after[-1].fd_kinds.get(name, {})),
    )
    return {kind: last[kind] - first[kind] for kind in first | last if last[kind] != first[kind]}


def _committing(sample: Sample, name: str) -> bool:
    """Whether ``name`` was committing its search index when sampled: it then holds the index
    writer's lock and the new segment's files open, for the commit only (up to 8 descriptors
    seen), so such a sample says nothing of what the process keeps open."""
    return any(kind.endswith(INDEX_WRITER_LOCK) for kind in sample.fd_kinds.get(name, {}))


def _growth(samples: list[Sample], warmup: float, pick: str) -> dict[str, dict[str, float]]:
    """From the median of the first ``WINDOW`` samples after the warm-up to the median of the
    last ``WINDOW``; for descriptors, of the samples taken outside an index commit."""
    out: dict[str, dict[str, float]] = {}
    for name in samples[0].rss_kib:

        def value(s: Sample, name: str = name) -> int:
            return s.rss_kib[name] if pick == "rss" else s.fds[name]

        after = [
            s for s in samples if s.at >= warmup and (pick == "rss" or not _committing(s, name))
        ]
        assert len(after) >= 2 * WINDOW, f"{name}: {len(after)} {pick} samples to compare"
        base = statistics.median(value(s) for s in after[:WINDOW])
        end = statistics.median(value(s) for s in after[-WINDOW:])
        out[name] = {"start": base, "end": end, "growth": (end - base) / base}
    return out


def test_mixed_load_on_two_replicas_keeps_memory_and_files_flat(
    deployment: Deployment, processes: Processes, capsys: pytest.CaptureFixture[str]
) -> None:
    seconds = LONG_LOAD_SECONDS if long_budget() else LOAD_SECONDS
    every = LONG_SAMPLE_SECONDS if long_budget() else SAMPLE_SECONDS
    warmup = seconds * WARMUP_FRACTION
    load = Load(jobs=[deployment.corpus_job], sources=_sources(deployment))
    faq = faq_question()
    samples: list[Sample] = []
    stop = threading.Event()
    sampler = threading.Thread(
        target=_sampler, args=(deployment.pids, every, stop, samples), daemon=True
    )
    clients = [Client(n, deployment.bases, deployment.auth, faq, load) for n in range(CLIENTS)]
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=c.run, args=(deadline,)) for c in clients]
    sampler.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    sampler.join()
    exited = {name for sample in samples for name, rss in sample.rss_kib.items() if rss == 0}
    assert not exited, f"exited during the soak: {exited}\n{processes.describe()}"

    job_states = _settle_jobs(deployment, load.jobs)
    rss = _growth(samples, warmup, "rss")
    fds = _growth(samples, warmup, "fds")
    summary = _summary(deployment, seconds, load, rss, fds, job_states, samples)
    with capsys.disabled():  # shown even when the test passes
        print(_text(summary))

    server_errors = {k: v for k, v in load.statuses.items() if k[1] >= 500}
    assert not server_errors, server_errors
    assert not load.errors, load.errors[:20]
    assert set(job_states) <= {"done"}, job_states
    for name in deployment.pids:
        assert rss[name]["growth"] < MAX_GROWTH, (name, rss[name], processes.describe())
        assert fds[name]["growth"] < MAX_GROWTH, (
            name,
            fds[name],
            _fd_change(samples, warmup, name),
        )


def _settle_jobs(deployment: Deployment, jobs: list[str]) -> Counter[str]:
    """The final state of every upload's job (waiting for the last ones to finish)."""
    states: Counter[str] = Counter()
    deadline = time.monotonic() + JOB_SECONDS
    with httpx.Client(headers=deployment.auth, timeout=30) as http:
        for job in jobs:
            while True:
                state = http.get(f"{deployment.bases[0]}/v1/jobs/{job}").json()["state"]
                if state in ("done", "failed") or time.monotonic() > deadline:
                    states[state] += 1
                    break
                time.sleep(0.5)
    return states


def _summary(
    deployment: Deployment,
    seconds: float,
    load: Load,
    rss: dict[str, dict[str, float]],
    fds: dict[str, dict[str, float]],
    jobs: Counter[str],
    samples: list[Sample],
) -> dict[str, Any]:
    requests: dict[str, dict[str, int]] = {}
    for (route, status), count in sorted(load.statuses.items()):
        requests.setdefault(route, {})[str(status)] = count
    summary = {
        "load_seconds": seconds,
        "ready_seconds": round(deployment.ready_seconds, 1),
        "corpus_seconds": round(deployment.corpus_seconds, 1),
        "clients": CLIENTS,
        "requests": requests,
        "requests_total": sum(load.statuses.values()),
        "transport_errors": len(load.errors),
        "jobs": dict(jobs),
        "rss": rss,
        "fds": fds,
        "samples": [s.__dict__ for s in samples],
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "soak-long.json" if long_budget() else "soak-ci.json"
    (ARTIFACTS / name).write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _text(summary: dict[str, Any]) -> str:
    lines = [
        f"\nsoak: {summary['load_seconds']:.0f} s of load after {summary['ready_seconds']} s to "
        f"ready and {summary['corpus_seconds']} s for the corpus; "
        f"{summary['requests_total']} requests, {summary['transport_errors']} transport errors, "
        f"jobs {summary['jobs']}",
        "requests by route: "
        + ", ".join(f"{route} {codes}" for route, codes in summary["requests"].items()),
    ]
    for name in summary["rss"]:
        rss, fds = summary["rss"][name], summary["fds"][name]
        lines.append(
            f"{name}: RSS {rss['start'] / 1024:.1f} -> {rss['end'] / 1024:.1f} MiB "
            f"({rss['growth']:+.1%}), fds {fds['start']:.0f} -> {fds['end']:.0f} "
            f"({fds['growth']:+.1%})"
        )
    return "\n".join(lines)
