"""Concurrency at service scale (docs/reliability.md): uploads, re-ingests, review decisions
and questions at once, through (i) `ragspine serve --workspace` with two worker processes on
one embedded workspace and (ii) two `ragspine serve --database-url` replicas with two
`ragspine worker` processes on PostgreSQL + Redis.

Checked: no 5xx and no "locked" in any response or server log; the fact table at the end
equals a clean, sequential run of the same uploads and winning decisions (nothing lost or
doubled); every answer given while a document is re-ingested is exactly the answer of its old
or its new version; every review decision a client was told it made is in the audit exactly
once, and racing contradictory decisions leave one winner and one 409. The operations and the
anomalies (0) are printed and saved under ``test-artifacts/reliability/``.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragspine.ingestion import review
from ragspine.ingestion.pipeline import SourceFile, ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.service.http.uploads import upload_doc_id
from ragspine.service.keys.store import KeyStore
from ragspine.storage.documents import ReviewState
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.workspace import Workspace
from tests.reliability.conftest import long_budget
from tests.reliability.test_crash_trials import SENDER, fresh_schema, trial_corpus
from tests.reliability.trials import ARTIFACTS, ENV, Run, ragspine_command
from tests.scaleout.processes import free_port

pytestmark = pytest.mark.reliability

LONG = long_budget()
REINGESTS = 40 if LONG else 6
NEW_UPLOADS = 24 if LONG else 6
ASKERS = 3
START_SECONDS = 120
JOB_SECONDS = 240

# The document re-ingested again and again, in two versions that differ in a figure and in
# the passage explaining it, about an entity and year nothing else in the workspace mentions.
OUTLOOK = "Macau_outlook.md"
OUTLOOK_TEXT = """# ACME Macau outlook

## Key figures FY2031

| | US$m |
|---|---|
| Revenue | {revenue} |
| Operating profit | 655 |

Macau revenue in FY2031 rose on the new {animal}-class bancassurance partnership.
"""
VERSIONS = (
    OUTLOOK_TEXT.format(revenue="4,210", animal="zebra").encode(),
    OUTLOOK_TEXT.format(revenue="4,390", animal="okapi").encode(),
)
QUESTIONS = ("What was ACME Macau revenue in FY2031?", "Why did Macau revenue rise in FY2031?")
MEMO_TEXT = """# ACME {city} plan {n}

## Key figures FY{year}

| | US$m |
|---|---|
| Revenue | {value} |

The {city} plan for FY{year} keeps its agency channel.
"""


def new_memos(folder: Path) -> list[Path]:
    """Documents uploaded once each during the mix (Hong Kong and China, years apart)."""
    folder.mkdir(parents=True, exist_ok=True)
    memos = []
    for n in range(NEW_UPLOADS):
        city, year = ("Hong Kong", 2040 + n) if n % 2 == 0 else ("China", 2040 + n)
        path = folder / f"plan_{n:02d}.md"
        path.write_text(MEMO_TEXT.format(city=city, n=n, year=year, value=1000 + n))
        memos.append(path)
    return memos


@dataclass
class Outcome:
    """What the mix did (operations by kind) and what went wrong (anomalies)."""

    scenario: str
    operations: dict[str, int] = field(default_factory=dict)
    anomalies: list[str] = field(default_factory=list)
    decisions: list[tuple[int, str, int, bool]] = field(default_factory=list)
    facts_checked: int = 0
    lock = threading.Lock()

    def count(self, kind: str) -> None:
        with self.lock:
            self.operations[kind] = self.operations.get(kind, 0) + 1

    def anomaly(self, what: str) -> None:
        with self.lock:
            self.anomalies.append(what)

    def report(self, seconds: float) -> None:
        figures = {
            "scenario": self.scenario,
            "operations": self.operations,
            "total operations": sum(self.operations.values()),
            "facts checked": self.facts_checked,
            "anomalies": self.anomalies,
            "seconds": round(seconds, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = self.scenario.replace(" ", "-")
        (ARTIFACTS / f"concurrency-{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
        print(json.dumps(figures, ensure_ascii=False))


class Client:
    """HTTP calls spread over the service's API processes, each response checked for a 5xx
    or a lock error before it is used."""

    def __init__(self, bases: list[str], token: str, outcome: Outcome) -> None:
        self.bases = bases
        self.auth = {"Authorization": f"Bearer {token}"}
        self.outcome = outcome

    def call(self, n: int, method: str, path: str, **kwargs: Any) -> httpx.Response:
        base = self.bases[n % len(self.bases)]
        response = httpx.request(method, f"{base}{path}", headers=self.auth, timeout=120, **kwargs)
        if response.status_code >= 500 or "locked" in response.text.lower():
            self.outcome.anomaly(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response

    def upload(self, n: int, name: str, data: bytes) -> str:
        response = self.call(n, "POST", "/v1/ingest/jobs", files=[("files", (name, data))])
        assert response.status_code == 202, response.text
        self.outcome.count("uploads")
        return str(response.json()["job_id"])

    def wait_done(self, n: int, job_id: str) -> None:
        deadline = time.monotonic() + JOB_SECONDS
        while True:
            body = self.call(n, "GET", f"/v1/jobs/{job_id}").json()
            if body.get("state") == "done":
                outcomes = {r["outcome"] for r in body["results"]}
                if not outcomes <= {"ingested", "skipped"}:
                    self.outcome.anomaly(f"job {job_id}: {body['results']}")
                return
            if body.get("state") not in ("queued", "running"):
                self.outcome.anomaly(f"job {job_id}: {body}")
                return
            assert time.monotonic() < deadline, f"job {job_id} did not finish"
            time.sleep(0.2)

    def answer(self, n: int, question: str) -> tuple[object, ...]:
        response = self.call(n, "POST", "/v1/ask", json={"question": question})
        assert response.status_code == 200, response.text
        self.outcome.count("asks")
        body = response.json()
        sources = tuple((s["doc"], s["locator"]) for s in body["sources"])
        return body["answer"], body["route"], body["answer_kind"], sources


def run_mix(client: Client, memos: list[Path]) -> dict[str, bytes]:
    """The concurrent operations; returns each uploaded document's last bytes (by name)."""
    outcome = client.outcome
    expected: dict[str, set[tuple[object, ...]]] = {q: set() for q in QUESTIONS}
    for version in VERSIONS:
        client.wait_done(0, client.upload(0, OUTLOOK, version))
        for q in QUESTIONS:
            expected[q].add(settled_answer(client, q, expected[q]))
    assert all(len(answers) == 2 for answers in expected.values()), expected
    open_items = client.call(0, "GET", "/v1/review?state=open").json()["items"]
    reingesting = threading.Event()
    reingesting.set()
    errors: list[BaseException] = []

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        return run

    def reingest() -> None:
        try:
            for k in range(REINGESTS):
                client.wait_done(k, client.upload(k, OUTLOOK, VERSIONS[k % 2]))
                outcome.count("re-ingests")
        finally:
            reingesting.clear()

    def upload_new(share: list[Path]) -> Callable[[], None]:
        def work() -> None:
            jobs = [client.upload(k, p.name, p.read_bytes()) for k, p in enumerate(share)]
            for k, job_id in enumerate(jobs):
                client.wait_done(k, job_id)

        return work

    def ask(n: int) -> Callable[[], None]:
        def work() -> None:
            k = n
            while reingesting.is_set():
                question = QUESTIONS[k % 2]
                given = client.answer(k, question)
                if given not in expected[question]:
                    outcome.anomaly(f"{question!r} answered {given}, neither version's answer")
                k += 1

        return work

    barrier = threading.Barrier(2)

    def decide(side: int) -> Callable[[], None]:
        def work() -> None:
            for item in open_items:
                # Both sides decide each item at once, through different API processes: the
                # same decision on even items, contradictory ones on odd items.
                action = "approve" if side == 0 or item["item_id"] % 2 == 0 else "reject"
                barrier.wait(timeout=60)
                response = client.call(side, "POST", f"/v1/review/{item['item_id']}/{action}")
                outcome.count("review decisions")
                changed = response.status_code == 200 and bool(response.json()["changed"])
                with outcome.lock:
                    outcome.decisions.append(
                        (item["item_id"], action, response.status_code, changed)
                    )

        return work

    workers = [reingest, decide(0), decide(1), *(ask(n) for n in range(ASKERS))]
    workers += [upload_new(memos[0::2]), upload_new(memos[1::2])]
    threads = [threading.Thread(target=guarded(w)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOB_SECONDS * 2)
    assert not any(t.is_alive() for t in threads), "an operation hung"
    assert not errors, errors
    last = {OUTLOOK: VERSIONS[(REINGESTS - 1) % 2]}
    return last | {p.name: p.read_bytes() for p in memos}


def settled_answer(
    client: Client, question: str, before: set[tuple[object, ...]]
) -> tuple[object, ...]:
    """The answer once every API process gives the same new one twice a second apart (a
    replica's index follows PostgreSQL within a second or two)."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        answers = {client.answer(n, question) for n in range(len(client.bases)) for _ in (0, 1)}
        if len(answers) == 1 and not answers & before:
            time.sleep(1)
            again = {client.answer(n, question) for n in range(len(client.bases))}
            if again == answers:
                return answers.pop()
        assert time.monotonic() < deadline, f"{question!r} did not settle: {answers}"
        time.sleep(0.3)


def check_decisions(outcome: Outcome, store: WorkspaceStoreProtocol) -> dict[int, str]:
    """Every decision a client was told it made (200, changed) is in the audit once, and the
    item's state is the one decided; returns the winning decision of each item."""
    winners: dict[int, str] = {}
    by_item: dict[int, list[tuple[str, int, bool]]] = {}
    for item_id, action, status, changed in outcome.decisions:
        by_item.setdefault(item_id, []).append((action, status, changed))
        if status not in (200, 409):
            outcome.anomaly(f"review item {item_id}: {action} answered {status}")
    for item_id, answers in by_item.items():
        made = [a for a, status, changed in answers if changed]
        audit = [e.action for e in store.audit_log(item_id)]
        item = store.get_review(item_id)
        assert item is not None
        if len(made) > 1 or audit != [_STATE[a] for a in made]:
            outcome.anomaly(f"review item {item_id}: decisions {answers}, audit {audit}")
        if made and item.state.value != _STATE[made[0]]:
            outcome.anomaly(f"review item {item_id} is {item.state.value}; {made[0]} was made")
        if made:
            winners[item_id] = made[0]
    return winners


_STATE = {"approve": ReviewState.APPROVED.value, "reject": ReviewState.REJECTED.value}


def expected_facts(
    root: Path, corpus: Path, uploads: dict[str, bytes], winners: dict[int, str]
) -> list[dict[str, object]]:
    """The facts of a clean, sequential run: the corpus, each upload's last bytes, then the
    winning review decisions, in an embedded workspace of its own."""
    workspace = Workspace.create(root)
    folder = root / "uploads"
    folder.mkdir()
    sources = []
    for name, data in uploads.items():
        (folder / name).write_bytes(data)
        sources.append(SourceFile(upload_doc_id(SENDER, name), folder / name))
    with workspace.write_lock(), workspace.fact_store() as store:
        ingest([corpus], store, workspace.profile())
        ingest([], store, workspace.profile(), files=sources)
        for item_id, action in sorted(winners.items()):
            if action == "approve":
                review.approve(store, item_id)
            else:
                review.reject(store, item_id)
        return fact_rows(store)


def fact_rows(store: WorkspaceStoreProtocol) -> list[dict[str, object]]:
    return sorted(
        ({k: v for k, v in asdict(f).items() if k != "ingested_at"} for f in store.list_facts()),
        key=lambda row: json.dumps(row, sort_keys=True, default=str),
    )


def check_logs(outcome: Outcome, logs: list[Path]) -> None:
    for log in logs:
        text = log.read_text(errors="replace")
        for bad in ("locked", "Traceback", " 500 ", " 502 ", " 503 "):
            if bad in text:
                at = text.index(bad)
                outcome.anomaly(f"{log.name}: {text[max(0, at - 300) : at + 300]}")


def ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


class Services:
    """API processes and workers of one scenario, each in its own process group, their logs
    kept; stopped (SIGTERM, then SIGKILL) at the end."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.runs: list[Run] = []

    def start(self, name: str, *args: str) -> Run:
        run = Run(ragspine_command(*args), self.logs / f"{name}.log", ENV)
        self.runs.append(run)
        return run

    def wait_ready(self, bases: list[str]) -> None:
        deadline = time.monotonic() + START_SECONDS
        while not all(ready(b) for b in bases):
            assert all(r.process.poll() is None for r in self.runs), self.describe()
            assert time.monotonic() < deadline, f"not ready\n{self.describe()}"
            time.sleep(0.3)

    def describe(self) -> str:
        return "\n".join(f"--- {r.log.name}\n{r.tail()}" for r in self.runs)

    def stop(self) -> None:
        for run in self.runs:
            if run.process.poll() is None:
                os.killpg(run.process.pid, signal.SIGTERM)
        for run in self.runs:
            if not run.finished_within(30):
                run.stop()


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    started = Services(tmp_path)
    yield started
    started.stop()


def _base_workspace(root: Path, corpus: Path) -> str:
    """A workspace holding the corpus (and its review items), with a key; the key's token."""
    workspace = Workspace.create(root)
    with workspace.write_lock(), workspace.fact_store() as store:
        ingest([corpus], store, workspace.profile())
        refresh_indexes(workspace, store)
    with KeyStore(workspace) as keys:
        _, token = keys.create(SENDER, Sensitivity.CONFIDENTIAL)
    return token


def _finish(
    outcome: Outcome,
    store: WorkspaceStoreProtocol,
    expected_root: Path,
    corpus: Path,
    uploads: dict[str, bytes],
    started: float,
) -> None:
    winners = check_decisions(outcome, store)
    found = fact_rows(store)
    expected = expected_facts(expected_root, corpus, uploads, winners)
    if found != expected:
        extra = [f for f in found if f not in expected][:3]
        missing = [f for f in expected if f not in found][:3]
        outcome.anomaly(f"facts differ from a sequential run: extra {extra}, missing {missing}")
    keys = [tuple(f[k] for k in _FACT_KEY) for f in found]
    if len(keys) != len(set(keys)):
        outcome.anomaly("a fact is stored twice")
    outcome.facts_checked = len(found)
    outcome.report(time.monotonic() - started)
    assert not outcome.anomalies, outcome.anomalies


_FACT_KEY = ("metric_code", "entity", "period_type", "period", "channel", "source_doc_id")


def test_uploads_reingests_decisions_and_asks_at_once_on_the_embedded_workspace(
    services: Services, tmp_path: Path
) -> None:
    """One `ragspine serve --workspace` with two worker processes (each its own job queue and
    answering threads) over one SQLite workspace."""
    started = time.monotonic()
    outcome = Outcome("embedded workspace")
    corpus = trial_corpus(tmp_path / "corpus")
    ws = tmp_path / "ws"
    token = _base_workspace(ws, corpus)
    port = free_port()
    services.start("serve", "serve", "--workspace", str(ws), "--port", str(port), "--workers", "2")
    bases = [f"http://127.0.0.1:{port}"]
    services.wait_ready(bases)

    uploads = run_mix(Client(bases, token, outcome), new_memos(tmp_path / "memos"))

    services.stop()
    check_logs(outcome, [r.log for r in services.runs])
    with Workspace.open(ws).fact_store(read_only=True) as store:
        _finish(outcome, store, tmp_path / "expected", corpus, uploads, started)


def test_uploads_reingests_decisions_and_asks_at_once_on_two_postgresql_replicas(
    services: Services,
    postgres_url: str,
    redis_url: str,
    redis_queue_cleanup: list[str],
    tmp_path: Path,
) -> None:
    """Two `ragspine serve --database-url` replicas and two `ragspine worker` processes on
    one PostgreSQL schema and Redis queue; decisions on one item race through both replicas."""
    from ragspine.service.keys.pg_keys import PostgresKeyStore
    from ragspine.storage.postgres import PostgresWorkspaceStore

    started = time.monotonic()
    outcome = Outcome("postgresql replicas")
    corpus = trial_corpus(tmp_path / "corpus")
    with fresh_schema(postgres_url, redis_queue_cleanup) as schema:
        target = ["--database-url", postgres_url, "--schema", schema]
        with PostgresWorkspaceStore(postgres_url, schema=schema) as store:
            ingest([corpus], store, load_profile(None))
        with PostgresKeyStore(postgres_url, schema=schema) as keys:
            _, token = keys.create(SENDER, Sensitivity.CONFIDENTIAL)
        for n in (1, 2):
            services.start(f"worker-{n}", "worker", *target, "--redis-url", redis_url)
        bases = []
        for n in (1, 2):
            port = free_port()
            services.start(
                f"api-{n}", "serve", *target, "--redis-url", redis_url, "--port", str(port)
            )
            bases.append(f"http://127.0.0.1:{port}")
        services.wait_ready(bases)

        uploads = run_mix(Client(bases, token, outcome), new_memos(tmp_path / "memos"))

        services.stop()
        check_logs(outcome, [r.log for r in services.runs])
        with PostgresWorkspaceStore(postgres_url, schema=schema, read_only=True) as store:
            _finish(outcome, store, tmp_path / "expected", corpus, uploads, started)
