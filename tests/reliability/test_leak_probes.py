"""Leak probes at service scale (docs/reliability.md): every endpoint that returns stored text,
asked for RESTRICTED material by a key without clearance and by one with it, and every sink the
service writes (traces, access log, error log, metrics) read back afterwards.

The canaries come from the workspace itself: the RESTRICTED documents, the values of their
facts that no lower-level fact holds, and declared phrases checked to occur in RESTRICTED text
only. Each probe asserts the canary is absent for the INTERNAL key and present for the
RESTRICTED one, so a probe that stops reaching the material fails instead of passing silently.
"""

from __future__ import annotations

import json
import logging
import random
import re
import shutil
import socket
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response

from ragspine.profile.display import plain_number
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.faq_cache import FaqCache, FaqHit
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from ragspine.storage.facts import ReviewStatus
from ragspine.workspace import Workspace
from tests.reliability.conftest import long_budget
from tests.service.test_api import REF, wait_for
from tests.service.traces import trace_lines
from tests.service_workspace import ServiceKeys

pytestmark = pytest.mark.reliability

# The service tests' session workspace (the demo plus a RESTRICTED board note) and real keys
# come from tests/service_workspace.py, a plugin of tests/conftest.py.

# Phrases of the RESTRICTED documents (the demo's board minutes, the service tests' board
# note); the `canaries` fixture checks each occurs in RESTRICTED text and nowhere lower.
TERMS = (
    "北极星",
    "不超过850百万美元收购",
    "特别股息每股0.38美元",
    "出席董事：9名",
    "discussed the acquisition",
)
# (question, what the RESTRICTED key's answer must hold): direct and indirect, both languages.
QUESTIONS = (
    ("董事会决议收购了什么公司？", "北极星"),
    ("北极星项目是什么", "北极星"),
    ("Tell me about project 北极星", "北极星"),
    ("总结董事会会议纪要", "北极星"),
    ("董事会决议宣派了什么股息", "0.38"),
    ("集团FY2025新业务价值是多少", "2,165"),  # as an answer displays it
    ("What was group NBV in FY2025?", "2,165"),
    ("What was group NBV in FY2024?", "1,933"),
    ("Summarize the board note", "discussed the acquisition"),
    ("What did the board resolve to acquire?", "discussed the acquisition"),
)
# A CONFIDENTIAL FAQ item (above INTERNAL, within RESTRICTED) asked in its own words, and the
# RESTRICTED one, which the FAQ serves to nobody (docs/service.md).
FAQ_ABOVE_INTERNAL = "hk-rbc"
FAQ_RESTRICTED = "board-minutes-access"
ENDPOINTS = ("ask", "ask_stream", "chat", "chat_stream")
# Every probe, by endpoint or sink, for the table in docs/reliability.md.
PROBES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def probe_count(request: pytest.FixtureRequest) -> Iterator[None]:
    """Prints how many probes ran, by endpoint and sink, after the module."""
    yield
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\nleak probes: {sum(PROBES.values())} in all, by endpoint and sink:")
        for name, count in PROBES.items():
            print(f"  {name}: {count}")


@dataclass(frozen=True)
class Canaries:
    docs: tuple[str, ...]
    values: tuple[str, ...]
    terms: tuple[str, ...]
    # (doc, locator, what its preview shows) of every RESTRICTED fact and passage.
    sources: tuple[tuple[str, str, str], ...]

    @property
    def all(self) -> tuple[str, ...]:
        return (*self.docs, *self.values, *self.terms)

    def found_in(self, text: str) -> list[str]:
        """The canaries ``text`` shows, its timestamps aside: a stored time's microseconds
        ("09:19:12.419338") may spell a canary's digits ("1933") without showing anything."""
        shown = _TIMESTAMP.sub("<time>", text)
        return [c for c in self.all if c in shown]


# An ISO-8601 time as the stores write it (``storage.facts.utc_timestamp``) or a log line does.
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?")


def _forms(value: float) -> set[str]:
    return {f"{value:g}", plain_number(value)}


@dataclass(frozen=True)
class Keys:
    uncleared: dict[str, str]
    cleared: dict[str, str]
    tokens: tuple[str, ...]


@pytest.fixture(scope="module")
def leak_workspace(service_workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A copy (keys included): uploads and the trace file of these probes are this module's.
    copy = tmp_path_factory.mktemp("leak") / "ws"
    shutil.copytree(service_workspace, copy, ignore=shutil.ignore_patterns("corpus"))
    Workspace.open(copy).trace_path.unlink(missing_ok=True)
    return copy


@pytest.fixture(scope="module")
def keys(service_keys: ServiceKeys) -> Keys:
    return Keys(
        {"Authorization": f"Bearer {service_keys.internal}"},
        {"X-API-Key": service_keys.restricted},
        (service_keys.internal, service_keys.restricted, service_keys.revoked),
    )


@pytest.fixture(scope="module")
def canaries(leak_workspace: Path) -> Canaries:
    with Workspace.open(leak_workspace).fact_store(read_only=True) as store:
        docs = tuple(d.doc_id for d in store.list_documents() if d.sensitivity == "RESTRICTED")
        facts = store.list_facts(review_status=ReviewStatus.APPROVED)
        chunks = store.list_chunks()
    restricted = [f for f in facts if f.sensitivity == "RESTRICTED"]
    # Each value as stored ("2165") and as an answer displays it ("2,165").
    lower_values = {v for f in facts if f.sensitivity != "RESTRICTED" for v in _forms(f.value)}
    values = tuple(sorted({v for f in restricted for v in _forms(f.value)} - lower_values))
    for term in TERMS:
        levels = {c.sensitivity for c in chunks if term in c.text}
        assert levels == {"RESTRICTED"}, f"{term!r} is no canary: found at {levels}"
    sources = [(f.source_doc_id, f.source_locator, f"{f.value:g}") for f in restricted]
    sources += [
        (c.doc_id, c.locator, c.text[:40])
        for c in chunks
        if c.sensitivity == "RESTRICTED" and not c.held
    ]
    assert len(docs) >= 2 and len(values) >= 2 and len(sources) >= 4
    return Canaries(docs, values, TERMS, tuple(sources))


class Captured(logging.Handler):
    """Every log record of the process while the probes run, formatted as a sink writes it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def logs() -> Iterator[Captured]:
    handler = Captured()
    root, ours = logging.getLogger(), logging.getLogger("ragspine")
    level = ours.level
    ours.setLevel(logging.INFO)
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)
    ours.setLevel(level)


@pytest.fixture(scope="module")
def client(leak_workspace: Path, keys: Keys, logs: Captured) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceSettings(workspace=leak_workspace))) as test_client:
        yield test_client


# --- reading responses -----------------------------------------------------------------------


def _without(data: Any, fields: set[str]) -> Any:
    if isinstance(data, dict):
        return {k: _without(v, fields) for k, v in data.items() if k not in fields}
    if isinstance(data, list):
        return [_without(v, fields) for v in data]
    return data


def shown(response: Response) -> str:
    """What a response shows its caller, as text: JSON bodies and each SSE event's data,
    without the chat's creation time (a timestamp may hold a canary's digits)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        datas = [
            line.removeprefix("data: ")
            for line in response.text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"
        ]
        parsed: Any = [json.loads(d) for d in datas]
    else:
        parsed = response.json()
    return json.dumps(_without(parsed, {"created"}), ensure_ascii=False)


def asked(
    client: TestClient, endpoint: str, question: str, headers: dict[str, str], rid: str
) -> Response:
    # A fixed request id: a random one may hold a canary's digits.
    headers = {**headers, "X-Request-ID": rid}
    chat = {"messages": [{"role": "user", "content": question}]}
    body, path = {
        "ask": ({"question": question, "reference_date": REF}, "/v1/ask"),
        "ask_stream": ({"question": question, "reference_date": REF}, "/v1/ask/stream"),
        "chat": (chat, "/v1/chat/completions"),
        "chat_stream": ({**chat, "stream": True}, "/v1/chat/completions"),
    }[endpoint]
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response


def probe(
    endpoint: str, uncleared: Response, cleared: Response, canaries: Canaries, want: str
) -> None:
    """The uncleared key sees no canary; the cleared one sees ``want``."""
    PROBES[endpoint] += 2
    assert canaries.found_in(shown(uncleared)) == [], (endpoint, shown(uncleared))
    assert want in shown(cleared), (endpoint, want, shown(cleared))


# --- answers: ask, stream, chat, chat stream, FAQ -----------------------------------------------


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_answers_hold_restricted_material_only_for_a_cleared_key(
    client: TestClient, keys: Keys, canaries: Canaries, endpoint: str
) -> None:
    for n, (question, want) in enumerate(QUESTIONS):
        probe(
            endpoint,
            asked(client, endpoint, question, keys.uncleared, f"probe-u-{endpoint}-{n}"),
            asked(client, endpoint, question, keys.cleared, f"probe-c-{endpoint}-{n}"),
            canaries,
            want,
        )


def faq_wordings(item_id: str) -> tuple[str, ...]:
    (item,) = [i for i in FaqCache.from_profile(load_profile()).items if i.id == item_id]
    return item.texts


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_faq_items_above_the_clearance_are_never_served(
    client: TestClient, keys: Keys, canaries: Canaries, endpoint: str
) -> None:
    (restricted,) = [
        i for i in FaqCache.from_profile(load_profile()).items if i.id == FAQ_RESTRICTED
    ]
    assert restricted.sensitivity is Sensitivity.RESTRICTED
    first_sentence = restricted.answer.split(".")[0]
    for n, wording in enumerate(faq_wordings(FAQ_ABOVE_INTERNAL)):
        uncleared = shown(asked(client, endpoint, wording, keys.uncleared, f"probe-u-faq-{n}"))
        cleared = shown(asked(client, endpoint, wording, keys.cleared, f"probe-c-faq-{n}"))
        PROBES["faq"] += 2
        assert FAQ_ABOVE_INTERNAL not in uncleared and '"hit": true' not in uncleared
        if endpoint in ("ask", "ask_stream"):  # the chat shapes carry no cache block
            assert FAQ_ABOVE_INTERNAL in cleared
    # RESTRICTED material is never served from the FAQ, whoever asks.
    for n, wording in enumerate(restricted.texts):
        for who, headers in (("u", keys.uncleared), ("c", keys.cleared)):
            text = shown(asked(client, endpoint, wording, headers, f"probe-{who}-faqr-{n}"))
            PROBES["faq"] += 1
            assert FAQ_RESTRICTED not in text and first_sentence not in text
            if who == "u":
                assert canaries.found_in(text) == []


# --- previews, jobs, review ----------------------------------------------------------------------


def test_previews_of_restricted_sources_exist_only_for_a_cleared_key(
    client: TestClient, keys: Keys, canaries: Canaries
) -> None:
    never = client.get(
        "/v1/sources/preview",
        params={"doc": "memos/never_ingested.docx", "locator": "section=1,para=1"},
        headers=keys.uncleared,
    )
    assert never.status_code == 404
    for doc, locator, witness in canaries.sources:
        params = {"doc": doc, "locator": locator}
        hidden = client.get("/v1/sources/preview", params=params, headers=keys.uncleared)
        seen = client.get("/v1/sources/preview", params=params, headers=keys.cleared)
        PROBES["sources preview"] += 2
        assert (
            hidden.status_code == 404
            and hidden.json()["error"]["message"] == (never.json()["error"]["message"])
        )
        assert canaries.found_in(hidden.text) == [] and witness not in hidden.text
        assert seen.status_code == 200, seen.text
        assert witness in shown(seen)


def test_another_keys_job_does_not_exist(client: TestClient, keys: Keys) -> None:
    upload = [
        ("files", ("board_pack_q4.md", "# Board pack\n\n北极星 closing plan.\n", "text/markdown"))
    ]
    jobs = {}
    for who, headers in (("cleared", keys.cleared), ("uncleared", keys.uncleared)):
        response = client.post("/v1/ingest/jobs", files=upload, headers=headers)
        assert response.status_code == 202, response.text
        jobs[who] = response.json()["job_id"]
        assert wait_for(client, jobs[who], headers)["results"][0]["name"] == "board_pack_q4.md"
    for owner, other in (("cleared", keys.uncleared), ("uncleared", keys.cleared)):
        hidden = client.get(f"/v1/jobs/{jobs[owner]}", headers=other)
        PROBES["jobs"] += 1
        assert hidden.status_code == 404 and "board_pack" not in hidden.text


def test_review_items_of_restricted_documents_exist_only_for_a_cleared_key(
    client: TestClient, keys: Keys, canaries: Canaries
) -> None:
    listed = {
        who: client.get("/v1/review", params={"state": "all"}, headers=headers)
        for who, headers in (("u", keys.uncleared), ("c", keys.cleared))
    }
    PROBES["review"] += 2
    text = listed["u"].text
    assert canaries.found_in(text) == [], [
        text[max(0, text.index(c) - 200) : text.index(c) + 60] for c in canaries.found_in(text)
    ]
    items = [i for i in listed["c"].json()["items"] if i["doc"] in canaries.docs]
    assert items != []
    missing = client.post("/v1/review/999999/reject", headers=keys.uncleared).json()
    for item in items:
        for verb in ("approve", "reject"):
            refused = client.post(f"/v1/review/{item['item_id']}/{verb}", headers=keys.uncleared)
            PROBES["review"] += 1
            assert refused.status_code == 404
            assert refused.json()["error"]["message"] == missing["error"]["message"].replace(
                "999999", str(item["item_id"])
            )


# --- path traversal: uploads, sidecar names, preview ids -----------------------------------------

HOSTILE_UPLOAD_NAMES = (
    "../x.md",
    "../../etc/passwd.md",
    "/etc/passwd",
    "/tmp/x.md",
    "..\\x.md",
    "..\\..\\windows\\x.md",
    "x\x00.md",
    "x.md\x00.pdf",
    "%2e%2e%2fx.md",
    "..%2fx.md",
    "%2e%2e%5cx.md",
    "x.md.meta.json",
    "board_notes.md.meta.json",
    "../board_notes.md.meta.json",
    "X.MD.META.JSON",
)


def files_of(root: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", HOSTILE_UPLOAD_NAMES)
def test_upload_names_with_a_path_or_of_a_sidecar_are_refused(
    client: TestClient, keys: Keys, leak_workspace: Path, name: str
) -> None:
    outside = leak_workspace.parent
    before = files_of(outside)
    files = [("files", (name, b"# x\n\nplanted text.\n", "text/markdown"))]
    response = client.post("/v1/ingest/jobs", files=files, headers=keys.cleared)
    PROBES["upload names"] += 1
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"]["message"]
    changed = {p for p, t in files_of(outside).items() if before.get(p) != t}
    # A refused request may touch the service's own logs and databases, nothing else.
    assert {p for p in changed if leak_workspace not in p.parents or "uploads" in p.parts} == set()


# Windows paths never reach the service: the multipart parser keeps only their last part (its
# fix for browsers that sent the whole path), so they are stored by their base name.
@pytest.mark.parametrize("name", ["C:\\Users\\me\\x.md", "\\\\server\\share\\x.md"])
def test_windows_paths_arrive_as_their_base_name(
    client: TestClient, keys: Keys, leak_workspace: Path, name: str
) -> None:
    before = files_of(leak_workspace.parent)
    files = [("files", (name, b"# x\n\nplanted text.\n", "text/markdown"))]
    response = client.post("/v1/ingest/jobs", files=files, headers=keys.cleared)
    PROBES["upload names"] += 1
    assert response.status_code == 202, response.text
    status = wait_for(client, response.json()["job_id"], keys.cleared)
    assert [r["name"] for r in status["results"]] == ["x.md"]
    new = set(files_of(leak_workspace.parent)) - set(before)
    uploads = Workspace.open(leak_workspace).uploads_path
    assert [p for p in new if p.suffix == ".md"] != []
    assert all(uploads in p.parents for p in new if p.suffix == ".md")


PREVIEW_IDS = (
    "../ragspine.db",
    "../../service.db",
    "/etc/passwd",
    "..\\ragspine.db",
    "%2e%2e%2fragspine.db",
    "memos/../memos/board_minutes_2025.docx",
    "./memos/board_minutes_2025.docx",
    "memos/board_minutes_2025.docx\x00",
)


@pytest.mark.parametrize("doc", PREVIEW_IDS)
def test_preview_ids_with_a_path_are_not_found(client: TestClient, keys: Keys, doc: str) -> None:
    for headers in (keys.uncleared, keys.cleared):
        response = client.get(
            "/v1/sources/preview",
            params={"doc": doc, "locator": "section=2,para=1-2"},
            headers=headers,
        )
        PROBES["preview ids"] += 1
        assert response.status_code in (404, 422), response.text
        assert "root:" not in response.text and "北极星" not in response.text


# --- timing ------------------------------------------------------------------------------------

ABSENT = "集团FY2026新业务价值是多少"
HIDDEN = "集团FY2025新业务价值是多少"
WARMUP = 20
PAIRS = 1_000 if long_budget() else 150


def test_not_found_takes_as_long_for_a_restricted_fact_as_for_an_absent_one(
    client: TestClient, keys: Keys, capsys: pytest.CaptureFixture[str]
) -> None:
    def timed(question: str) -> tuple[float, str]:
        started = time.perf_counter()
        response = client.post(
            "/v1/ask",
            json={"question": question, "reference_date": REF},
            headers={**keys.uncleared, "X-Request-ID": "probe-u-timing"},
        )
        elapsed = time.perf_counter() - started
        return elapsed, response.json()["answer"]

    # The same words, one period apart: nothing but the time could tell them apart.
    assert timed(HIDDEN)[1] == timed(ABSENT)[1].replace("FY2026", "FY2025")
    for _ in range(WARMUP):
        timed(ABSENT), timed(HIDDEN)
    samples: dict[str, list[float]] = {ABSENT: [], HIDDEN: []}
    rng = random.Random(15)
    for _ in range(PAIRS):
        for question in rng.sample([ABSENT, HIDDEN], 2):
            samples[question].append(timed(question)[0])
    absent, hidden = (statistics.median(samples[q]) for q in (ABSENT, HIDDEN))
    PROBES["not-found timing"] += 2 * PAIRS
    with capsys.disabled():
        print(
            f"\nnot-found medians over {PAIRS} interleaved pairs: absent {absent * 1000:.2f} ms, "
            f"RESTRICTED {hidden * 1000:.2f} ms (ratio {hidden / absent:.3f})"
        )
    assert max(absent, hidden) / min(absent, hidden) <= 1.2


# --- sinks: trace, access log, error log, metrics, OpenAPI ---------------------------------------


def questions_asked() -> list[str]:
    return [q for q, _ in QUESTIONS] + list(faq_wordings(FAQ_ABOVE_INTERNAL)) + [ABSENT, HIDDEN]


# Request ids the service made up (32 hex digits) may hold a canary's digits by chance.
_MADE_UP_ID = re.compile(r"\b[0-9a-f]{32}\b")


def secrets_in(text: str, canaries: Canaries, keys: Keys, *, docs: bool = True) -> list[str]:
    text = _MADE_UP_ID.sub("<id>", text)
    found = [
        c for c in (canaries.all if docs else (*canaries.values, *canaries.terms)) if c in text
    ]
    found += [f"key {t[:8]}…" for t in keys.tokens if t in text or t[4:16] in text]
    found += [f"question {q!r}" for q in questions_asked() if q in text]
    return found


def test_traces_hold_no_restricted_text_question_or_key(
    client: TestClient, leak_workspace: Path, keys: Keys, canaries: Canaries
) -> None:
    lines = trace_lines(client, Workspace.open(leak_workspace).trace_path)
    events = [json.loads(line) for line in lines]
    probed = [e for e in events if str(e["request_id"]).startswith("probe-")]
    assert len(probed) >= len(QUESTIONS) * len(ENDPOINTS) * 2
    for event in events:
        PROBES["trace"] += 1
        # ts and duration are clock readings: digits of any kind may turn up there.
        text = json.dumps(_without(event, {"ts", "duration_ms"}), ensure_ascii=False)
        uncleared = str(event["request_id"]).startswith("probe-u-")
        assert secrets_in(text, canaries, keys, docs=uncleared) == [], text
    # The cleared key's events do name the RESTRICTED passages it was given: the check reads
    # the right file.
    cleared_chunks = {
        c for e in probed if e["request_id"].startswith("probe-c-") for c in e["chunk_ids"]
    }
    assert any(c.startswith(canaries.docs) for c in cleared_chunks)


def test_logs_hold_no_restricted_text_question_or_key(
    client: TestClient, logs: Captured, keys: Keys, canaries: Canaries
) -> None:
    access = [line for line in logs.lines if line.startswith("ragspine.access")]
    assert len(access) >= len(QUESTIONS) * len(ENDPOINTS) * 2
    for line in logs.lines:
        PROBES["access log"] += 1
        assert secrets_in(line, canaries, keys) == [], line


@contextmanager
def served(app: FastAPI) -> Iterator[str]:
    """``app`` under uvicorn on a free loopback port, in a thread: the server's own logging
    (``uvicorn.error``) runs, as it does under ``ragspine serve``."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # log_config=None: uvicorn's loggers propagate to the root, where the probes listen.
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_the_error_log_holds_no_question_or_key(
    leak_workspace: Path, keys: Keys, canaries: Canaries, logs: Captured
) -> None:
    class Failing:
        """A bug below the edge whose message quotes the question, as bugs do."""

        def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
            raise ValueError(f"cannot match {question!r}")

    app = create_app(ServiceSettings(workspace=leak_workspace), faq=Failing())
    written_from = len(logs.lines)
    with served(app) as base, httpx.Client(base_url=base, timeout=30) as failing:
        for n, (question, _) in enumerate(QUESTIONS):
            for headers in (keys.uncleared, keys.cleared):
                response = failing.post(
                    "/v1/ask",
                    json={"question": question},
                    headers={**headers, "X-Request-ID": f"probe-error-{n}"},
                )
                assert response.status_code == 500
                assert response.headers["X-Request-ID"] == f"probe-error-{n}"
                assert secrets_in(response.text, canaries, keys) == []
    written = logs.lines[written_from:]
    errors = [line for line in written if " ERROR " in line]
    # One line per failure, ours: the server logs nothing of its own about them.
    assert len(errors) == 2 * len(QUESTIONS), errors
    assert all(line.startswith("ragspine.service ERROR request probe-error-") for line in errors)
    assert all("ValueError (message withheld)" in line for line in errors)
    for line in written:
        PROBES["error log"] += 1
        assert secrets_in(line, canaries, keys) == [], line


def test_metrics_and_openapi_hold_no_restricted_text_question_or_key(
    client: TestClient, keys: Keys, canaries: Canaries
) -> None:
    metrics = client.get("/metrics").text
    # Sample values are numbers (a latency sum may hold any digits); names and labels are text.
    labelled = [re.sub(r" [-+0-9.e]+(\s[0-9]+)?$", "", line) for line in metrics.splitlines()]
    assert any('route="/v1/ask"' in line for line in labelled)
    for line in labelled:
        PROBES["metrics"] += 1
        assert secrets_in(line, canaries, keys) == [], line
    for path in ("/openapi.json", "/docs", "/redoc"):
        page = client.get(path)
        PROBES["OpenAPI"] += 1
        assert page.status_code == 200
        assert secrets_in(page.text, canaries, keys) == []
