"""The HTTP app over a real demo workspace, driven through FastAPI's TestClient: keys and
clearance on every text-returning endpoint, the answer shapes (JSON, SSE, OpenAI chat), JSON
errors for bad input, request ids, metrics and readiness."""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ragspine.agent.agent import MAX_QUESTION_CHARS
from ragspine.errors import UsageError
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.faq_cache import FaqCache, FaqHit
from ragspine.service.faq.items import FaqItem
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.service.traces import trace_lines as written_traces
from tests.service_workspace import BOARD_NOTE, INTERNAL, RESTRICTED, ServiceKeys

REF = "2026-11-26"
SECRET = "北极星"
ACQUISITION = "董事会决议收购了什么公司？"
GROUP_NBV = "集团FY2025新业务价值是多少"
COMPOSITE = "为什么香港FY2025收入增长"
STRUCTURED = "中国内地FY2024的收入是多少"


def shipped_faq_item() -> FaqItem:
    """An item of the ACME profile's own FAQ file an INTERNAL key may be served on REF."""
    return next(
        item
        for item in FaqCache.from_profile(load_profile()).items
        if item.enabled
        and Sensitivity.INTERNAL.allows(item.sensitivity)
        and item.valid_on(date.fromisoformat(REF))
    )


FAQ = shipped_faq_item()
FAQ_QUESTION = FAQ.question


@pytest.fixture(scope="module")
def client(service_workspace: Path, service_keys: ServiceKeys) -> Iterator[TestClient]:
    """The app as `ragspine serve` builds it: the workspace's key store, its in-process job
    queue and the profile's FAQ file."""
    with TestClient(create_app(ServiceSettings(workspace=service_workspace))) as test_client:
        yield test_client


def ask(client: TestClient, question: str, headers: dict[str, str] = INTERNAL) -> Any:
    response = client.post(
        "/v1/ask", json={"question": question, "reference_date": REF}, headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def events(body: str) -> list[tuple[str, Any]]:
    """(event, data) pairs of an SSE body."""
    found = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines.get("event", "message"), json.loads(lines["data"])))
    return found


def chat_chunks(body: str) -> list[Any]:
    datas = [line[len("data: ") :] for line in body.splitlines() if line.startswith("data: ")]
    assert datas[-1] == "[DONE]"
    return [json.loads(d) for d in datas[:-1]]


def assert_error(response: Any, status: int) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"type", "message", "request_id"}
    assert error["request_id"] == response.headers["X-Request-ID"]


# --- operations and keys ---------------------------------------------------------------------


def test_health_readiness_metrics_and_openapi_need_no_key(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"store": "ok", "index": "ok", "jobs": "ok"}
    assert client.get("/metrics").status_code == 200
    assert "/v1/ask" in client.get("/openapi.json").json()["paths"]


def test_readiness_names_the_missing_index(service_workspace: Path, tmp_path: Path) -> None:
    copy = tmp_path / "ws"
    shutil.copytree(service_workspace, copy, ignore=shutil.ignore_patterns("corpus"))
    shutil.rmtree(copy / "index")
    with TestClient(create_app(ServiceSettings(workspace=copy))) as fresh:
        response = fresh.get("/readyz")
    assert_error(response, 503)
    assert response.json()["checks"] == {"store": "ok", "index": "missing", "jobs": "ok"}
    assert "index" in response.json()["error"]["message"]


def test_an_empty_workspace_is_ready_for_its_first_upload(tmp_path: Path) -> None:
    Workspace.create(tmp_path / "empty")
    with TestClient(create_app(ServiceSettings(workspace=tmp_path / "empty"))) as fresh:
        response = fresh.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json()["checks"] == {"store": "ok", "index": "ok", "jobs": "ok"}


@pytest.mark.parametrize(
    "presented",
    [
        {},
        {"Authorization": "Bearer not-a-key"},
        {"X-API-Key": "not-a-key"},
        {"Authorization": "Basic {internal}"},
        {"Authorization": "Bearer {revoked}"},
        {"X-API-Key": "{revoked}"},
    ],
)
def test_a_missing_unknown_or_revoked_key_is_401(
    client: TestClient, service_keys: ServiceKeys, presented: dict[str, str]
) -> None:
    tokens = {"internal": service_keys.internal, "revoked": service_keys.revoked}
    headers = {name: value.format(**tokens) for name, value in presented.items()}
    for response in (
        client.post("/v1/ask", json={"question": STRUCTURED}, headers=headers),
        client.get("/v1/models", headers=headers),
        client.get("/v1/review", headers=headers),
    ):
        assert_error(response, 401)
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_either_header_carries_the_key(client: TestClient) -> None:
    assert "2024" in ask(client, STRUCTURED, INTERNAL)["answer"]
    assert ask(client, STRUCTURED, RESTRICTED)["answer"] == ask(client, STRUCTURED)["answer"]


def test_no_auth_mode_uses_its_fixed_clearance_and_only_loopback(
    service_workspace: Path,
) -> None:
    settings = ServiceSettings(
        workspace=service_workspace, no_auth=True, no_auth_clearance="restricted"
    )
    with TestClient(create_app(settings)) as open_client:
        answer = open_client.post(
            "/v1/ask", json={"question": GROUP_NBV, "reference_date": REF}
        ).json()
    assert "2,165" in answer["answer"]
    for host in ("0.0.0.0", "192.168.1.10", "example.com"):
        with pytest.raises(UsageError, match="loopback"):
            ServiceSettings(workspace=service_workspace, no_auth=True, host=host)


# --- answers ---------------------------------------------------------------------------------


def test_ask_answers_with_sources_and_an_empty_cache_block(client: TestClient) -> None:
    body = ask(client, STRUCTURED)
    assert body["route"] == "structured" and body["answer_kind"] == "found"
    assert body["sources"] and all({"doc", "locator"} <= set(s) for s in body["sources"])
    assert body["cache"] == {"hit": False, "faq_id": None, "version": None}
    assert body["tool_results"]


def test_a_faq_hit_short_circuits_the_agent(client: TestClient, service_workspace: Path) -> None:
    traces = service_workspace / "traces.jsonl"

    def trace_lines() -> int:  # the file appears with the first question the agent answers
        return len(written_traces(client, traces))

    before = trace_lines()
    body = ask(client, FAQ_QUESTION)
    assert body["route"] == "faq" and body["answer"] == FAQ.answer
    assert body["cache"] == {"hit": True, "faq_id": FAQ.id, "version": FAQ.version}
    assert body["sources"] == [{"doc": FAQ.source_doc, "locator": FAQ.source_locator}]
    # The agent never ran: it would have appended a trace line.
    assert trace_lines() == before
    ask(client, STRUCTURED)
    assert trace_lines() == before + 1


def test_request_ids_round_trip_to_the_body_and_the_trace(
    client: TestClient, service_workspace: Path
) -> None:
    response = client.post(
        "/v1/ask",
        json={"question": STRUCTURED},
        headers={**INTERNAL, "X-Request-ID": "portal-42.a_b"},
    )
    assert response.headers["X-Request-ID"] == "portal-42.a_b"
    assert response.json()["request_id"] == "portal-42.a_b"
    last = written_traces(client, service_workspace / "traces.jsonl")[-1]
    assert json.loads(last)["request_id"] == "portal-42.a_b"
    for bad in ("x" * 65, "a b", "<script>", "id/with/slashes"):
        response = client.post(
            "/v1/ask",
            json={"question": STRUCTURED},
            headers={**INTERNAL, "X-Request-ID": bad},
        )
        rid = response.headers["X-Request-ID"]
        assert rid != bad and len(rid) == 32 and response.json()["request_id"] == rid


def test_the_stream_sends_meta_parts_sources_done_with_the_asked_answer(
    client: TestClient,
) -> None:
    plain = ask(client, COMPOSITE)
    response = client.post(
        "/v1/ask/stream", json={"question": COMPOSITE, "reference_date": REF}, headers=INTERNAL
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    sent = events(response.text)
    names = [name for name, _ in sent]
    assert names[0] == "meta" and names[-2:] == ["sources", "done"]
    assert set(names[1:-2]) == {"part"} and len(names[1:-2]) >= 2
    meta = sent[0][1]
    assert (meta["route"], meta["answer_kind"]) == (plain["route"], plain["answer_kind"])
    assert meta["clarification"] == plain["clarification"]
    # The found facts (value, unit, period, entity, source) the web page draws its cards from.
    assert meta["tool_results"] == plain["tool_results"] and meta["tool_results"]
    assert meta["request_id"] == response.headers["X-Request-ID"] == sent[-1][1]["request_id"]
    parts = [data for name, data in sent if name == "part"]
    assert [p["index"] for p in parts] == list(range(len(parts)))
    assert "\n\n".join(p["text"] for p in parts) == plain["answer"]
    assert sent[-2][1]["sources"] == plain["sources"]


def test_the_stream_carries_the_assumption_note_in_meta(client: TestClient) -> None:
    response = client.post(
        "/v1/ask/stream",
        json={"question": "香港的营运利润是多少", "reference_date": REF},
        headers=INTERNAL,
    )
    meta = events(response.text)[0][1]
    assert meta["clarification"]["mode"] == "answer_with_assumptions"
    assert meta["clarification"]["assumption_note"]


def test_chat_completion_names_its_sources(client: TestClient) -> None:
    plain = ask(client, STRUCTURED)
    response = client.post(
        "/v1/chat/completions",
        json={
            "model": "ragspine",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "ignored earlier question"},
                {"role": "assistant", "content": "..."},
                {"role": "user", "content": [{"type": "text", "text": STRUCTURED}]},
            ],
            "temperature": 0.2,
        },
        headers=INTERNAL,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "ragspine"
    (choice,) = body["choices"]
    assert choice["message"]["role"] == "assistant" and choice["finish_reason"] == "stop"
    content = choice["message"]["content"]
    assert content.startswith(plain["answer"])
    assert body["sources"] == plain["sources"]
    for source in plain["sources"]:
        assert f"- {source['doc']} · {source['locator']}" in content
    assert body["request_id"] == response.headers["X-Request-ID"]


def test_chat_completion_streams_chunks_that_add_up_to_the_reply(client: TestClient) -> None:
    request = {"messages": [{"role": "user", "content": COMPOSITE}]}
    whole = client.post("/v1/chat/completions", json=request, headers=INTERNAL).json()
    response = client.post(
        "/v1/chat/completions", json={**request, "stream": True}, headers=INTERNAL
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = chat_chunks(response.text)
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == whole["choices"][0]["message"]["content"]
    assert [c["choices"][0]["finish_reason"] for c in chunks][-1] == "stop"
    assert chunks[-1]["sources"] == whole["sources"]


def test_models_lists_one_model(client: TestClient) -> None:
    body = client.get("/v1/models", headers=INTERNAL).json()
    assert body["object"] == "list" and [m["id"] for m in body["data"]] == ["ragspine"]


# --- clearance isolation ---------------------------------------------------------------------


def test_an_internal_key_never_sees_restricted_text(client: TestClient) -> None:
    # A fixed request id: a random one may hold the digits looked for.
    headers = {**INTERNAL, "X-Request-ID": "leak-check"}
    for question in (ACQUISITION, GROUP_NBV):
        request = {"question": question, "reference_date": REF}
        chat = {"messages": [{"role": "user", "content": question}]}
        seen = [
            client.post("/v1/ask", json=request, headers=headers).text,
            client.post("/v1/ask/stream", json=request, headers=headers).text,
            client.post("/v1/chat/completions", json=chat, headers=headers).text,
            client.post(
                "/v1/chat/completions", json={**chat, "stream": True}, headers=headers
            ).text,
        ]
        for text in seen:
            # Not the chat's creation time either: a timestamp may hold the digits too.
            decoded = re.sub(r'"created": ?\d+', "", json.dumps(text, ensure_ascii=False))
            assert SECRET not in decoded and "board_minutes" not in decoded
            assert "2165" not in decoded and "2,165" not in decoded
    # The same questions with a RESTRICTED key do reach the board minutes.
    assert SECRET in ask(client, ACQUISITION, RESTRICTED)["answer"]
    assert "2,165" in ask(client, GROUP_NBV, RESTRICTED)["answer"]


def test_a_preview_outside_the_clearance_is_the_same_404_as_no_source(
    client: TestClient,
) -> None:
    cell = {"doc": "memos/board_minutes_2025.docx", "locator": "table=1,row=2,col=3"}
    passage = {"doc": "memos/board_minutes_2025.docx", "locator": "section=2,para=1-2"}
    missing = {"doc": "memos/never_ingested.docx", "locator": "table=1,row=2,col=3"}
    answers = [
        client.get("/v1/sources/preview", params=p, headers=INTERNAL)
        for p in (cell, passage, missing)
    ]
    for response in answers:
        assert_error(response, 404)
    assert len({r.json()["error"]["message"] for r in answers}) == 1
    fact = client.get("/v1/sources/preview", params=cell, headers=RESTRICTED).json()
    assert [(f["value"], f["unit"], f["metric"], f["entity"]) for f in fact["facts"]] == [
        (2165.0, "USD_M", "NBV", "ACME_GROUP")
    ]
    text = client.get("/v1/sources/preview", params=passage, headers=RESTRICTED).json()
    assert SECRET in text["passages"][0]["text"]


def test_a_preview_shows_the_source_an_answer_cites(client: TestClient) -> None:
    found = ask(client, STRUCTURED)
    source = found["sources"][0]
    cell = client.get("/v1/sources/preview", params={**source, "lang": "zh"}, headers=INTERNAL)
    assert cell.status_code == 200, cell.text
    (fact,) = cell.json()["facts"]
    assert f"{fact['value_display']}（来源：" in found["answer"]
    assert (fact["value"], fact["unit"], fact["currency"], fact["scale"]) == (
        1320.0,
        "USD_M",
        "USD",
        6,
    )
    assert (fact["entity_display"], fact["metric_display"]) == ("中国内地", "收入")
    english = client.get("/v1/sources/preview", params=source, headers=INTERNAL).json()
    assert english["facts"][0]["value_display"] == "US$ 1,320 m"
    narrative = ask(client, "香港监管动态")
    shown = client.get("/v1/sources/preview", params=narrative["sources"][0], headers=INTERNAL)
    assert shown.status_code == 200, shown.text
    (passage,) = shown.json()["passages"]
    # The answer's first sentence (before its citation mark) is quoted from the passage.
    assert narrative["answer"].split(" [")[0] in passage["text"]


def test_review_items_above_the_clearance_do_not_exist(client: TestClient) -> None:
    internal = client.get("/v1/review", headers=INTERNAL).json()["items"]
    restricted = client.get("/v1/review", headers=RESTRICTED).json()["items"]
    assert BOARD_NOTE not in json.dumps(internal)
    (board,) = [i for i in restricted if i["doc"] == BOARD_NOTE]
    assert board["sensitivity"] == "RESTRICTED" and board["state"] == "open"
    assert len(restricted) == len(internal) + 1
    item = board["item_id"]
    for verb in ("approve", "reject"):
        assert_error(client.post(f"/v1/review/{item}/{verb}", headers=INTERNAL), 404)
    assert_error(client.post("/v1/review/99999/reject", headers=RESTRICTED), 404)
    decided = client.post(
        f"/v1/review/{item}/reject", json={"note": "instruction-like"}, headers=RESTRICTED
    )
    assert decided.status_code == 200, decided.text
    assert decided.json()["changed"] is True and decided.json()["item"]["state"] == "rejected"
    # Decided the other way already: a conflict, not a server error.
    assert_error(client.post(f"/v1/review/{item}/approve", headers=RESTRICTED), 409)
    states = client.get("/v1/review", params={"state": "rejected"}, headers=RESTRICTED).json()
    assert [i["item_id"] for i in states["items"]] == [item]


# --- uploads and jobs ------------------------------------------------------------------------


def test_an_uploaded_file_becomes_answerable(client: TestClient, tmp_path: Path) -> None:
    question = "What does the Macau harbour memo say about ferry licences?"
    before = ask(client, question)
    assert "ferry licences were renewed" not in before["answer"]
    memo = (
        "# Macau harbour memo\n\n"
        "ACME Macau notes that ferry licences were renewed for five years in 2025.\n"
    )
    response = client.post(
        "/v1/ingest/jobs",
        files=[("files", ("q4/macau_harbour_memo.md", memo.encode(), "text/markdown"))],
        headers=INTERNAL,
    )
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]
    deadline = time.monotonic() + 30
    while (status := client.get(f"/v1/jobs/{job_id}", headers=INTERNAL).json())["state"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert status["state"] == "done" and status["progress"] == 1.0
    assert status["files_total"] == status["files_done"] == 1
    assert [r["name"] for r in status["results"]] == ["macau_harbour_memo.md"]
    after = ask(client, question)
    assert "ferry licences were renewed" in after["answer"]
    assert "uploads/analyst/macau_harbour_memo.md" in {s["doc"] for s in after["sources"]}
    assert_error(client.get("/v1/jobs/no-such-job", headers=INTERNAL), 404)
    # A job is its submitter's: for another key, even a more cleared one, it does not exist.
    assert_error(client.get(f"/v1/jobs/{job_id}", headers=RESTRICTED), 404)


def wait_for(client: TestClient, job_id: str, headers: dict[str, str]) -> Any:
    deadline = time.monotonic() + 30
    while (status := client.get(f"/v1/jobs/{job_id}", headers=headers).json())["state"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return status


def test_an_upload_never_replaces_a_document_it_does_not_own(
    client: TestClient, service_workspace: Path
) -> None:
    # The RESTRICTED board note was ingested from a folder as `board_notes.md`; an INTERNAL
    # key uploading a file of that name adds its own document and leaves the note alone.
    forged = b"# Board notes\n\nThe board approved nothing at all.\n"
    response = client.post(
        "/v1/ingest/jobs",
        files=[("files", (BOARD_NOTE, forged, "text/markdown"))],
        headers=INTERNAL,
    )
    assert response.status_code == 202, response.text
    status = wait_for(client, response.json()["job_id"], INTERNAL)
    assert status["state"] == "done"
    assert [r["outcome"] for r in status["results"]] == ["ingested"]
    board = {"doc": BOARD_NOTE, "locator": "section=1,para=2"}
    note = client.get("/v1/sources/preview", params=board, headers=RESTRICTED)
    assert note.status_code == 200, note.text
    assert "acquisition" in note.json()["passages"][0]["text"]
    # The upload is a document of its own (RESTRICTED too: the profile's file-name rule for
    # board papers applies to uploads as to any file, so its sender does not see it either).
    own = {"doc": f"uploads/analyst/{BOARD_NOTE}", "locator": "section=1,para=1"}
    assert_error(client.get("/v1/sources/preview", params=own, headers=INTERNAL), 404)
    upload = client.get("/v1/sources/preview", params=own, headers=RESTRICTED)
    assert upload.status_code == 200, upload.text
    assert "approved nothing" in upload.json()["passages"][0]["text"]


def test_a_restricted_keys_job_does_not_exist_for_an_internal_key(client: TestClient) -> None:
    memo = b"# Board agenda\n\nThe board will review the Macau licence.\n"
    response = client.post(
        "/v1/ingest/jobs",
        files=[("files", ("board_agenda.md", memo, "text/markdown"))],
        headers=RESTRICTED,
    )
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]
    assert wait_for(client, job_id, RESTRICTED)["results"][0]["name"] == "board_agenda.md"
    hidden = client.get(f"/v1/jobs/{job_id}", headers=INTERNAL)
    unknown = client.get("/v1/jobs/0123456789abcdef0123456789abcdef", headers=INTERNAL)
    for answer in (hidden, unknown):
        assert_error(answer, 404)
    assert hidden.json()["error"]["message"] == unknown.json()["error"]["message"]
    assert "board_agenda" not in hidden.text


def test_a_request_with_one_bad_file_stores_nothing(
    client: TestClient, service_workspace: Path
) -> None:
    uploads = service_workspace / "uploads"
    before = sorted(p.name for p in uploads.iterdir()) if uploads.exists() else []
    response = client.post(
        "/v1/ingest/jobs",
        files=[
            ("files", ("fine.md", b"# Fine\n\nA fine memo.\n", "text/markdown")),
            ("files", ("tool.exe", b"MZ", "application/octet-stream")),
        ],
        headers=INTERNAL,
    )
    assert_error(response, 400)
    assert "tool.exe" in response.json()["error"]["message"]
    after = sorted(p.name for p in uploads.iterdir()) if uploads.exists() else []
    assert after == before


# --- bad input is 4xx, never 500 -------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"question": STRUCTURED, "reference_date": "2025-13-40"}, 422),
        ({"question": STRUCTURED, "reference_date": "yesterday"}, 422),
        ({"question": STRUCTURED, "reference_date": "0001-01-01"}, 400),
        ({"question": STRUCTURED, "reference_date": "9999-12-31"}, 400),
        ({"question": ""}, 422),
        ({"question": "   \n\t"}, 400),
        ({"question": "收" * (MAX_QUESTION_CHARS + 1)}, 422),
        ({"question": 42}, 422),
        ({}, 422),
        ({"question": STRUCTURED, "extra": 1}, 422),
        ([STRUCTURED], 422),
    ],
)
def test_bad_ask_bodies_are_4xx(client: TestClient, body: Any, status: int) -> None:
    for path in ("/v1/ask", "/v1/ask/stream"):
        assert_error(client.post(path, json=body, headers=INTERNAL), status)


def test_wrong_content_types_are_415(client: TestClient) -> None:
    form = client.post("/v1/ask", data={"question": STRUCTURED}, headers=INTERNAL)
    assert_error(form, 415)
    text = client.post(
        "/v1/chat/completions",
        content=b"hello",
        headers={**INTERNAL, "Content-Type": "text/plain"},
    )
    assert_error(text, 415)
    upload = client.post("/v1/ingest/jobs", json={"files": []}, headers=INTERNAL)
    assert_error(upload, 415)


def test_malformed_json_and_chats_without_a_question_are_4xx(client: TestClient) -> None:
    broken = client.post(
        "/v1/ask",
        content=b'{"question": ',
        headers={**INTERNAL, "Content-Type": "application/json"},
    )
    assert_error(broken, 422)
    for messages in ([{"role": "system", "content": "hi"}], []):
        response = client.post(
            "/v1/chat/completions", json={"messages": messages}, headers=INTERNAL
        )
        assert response.status_code in (400, 422)
        assert_error(response, response.status_code)
    assert_error(client.get("/v1/review", params={"state": "maybe"}, headers=INTERNAL), 422)
    assert_error(client.post("/v1/review/not-a-number/approve", headers=INTERNAL), 422)
    assert_error(client.get("/v1/sources/preview", headers=INTERNAL), 422)


def test_bodies_over_the_limit_are_413(service_workspace: Path) -> None:
    settings = ServiceSettings(workspace=service_workspace, max_body_bytes=200)
    app = create_app(settings)
    big = json.dumps({"question": "x" * 500}).encode()
    with TestClient(app) as small:
        declared = small.post(
            "/v1/ask", content=big, headers={**INTERNAL, "Content-Type": "application/json"}
        )
        assert_error(declared, 413)

        def chunked() -> Iterator[bytes]:
            yield big[:100]
            yield big[100:]

        streamed = small.post(
            "/v1/ask",
            content=chunked(),
            headers={**INTERNAL, "Content-Type": "application/json"},
        )
        assert "content-length" not in {k.lower() for k in streamed.request.headers}
        assert_error(streamed, 413)
        fits = small.post("/v1/ask", json={"question": STRUCTURED}, headers=INTERNAL)
        assert fits.status_code == 200


def test_unpaired_surrogates_in_a_question_are_a_400(client: TestClient) -> None:
    # JSON may escape them ("\ud800"); no text is made of them and nothing can encode them.
    bodies = {
        "/v1/chat/completions": [
            b'{"messages": [{"role": "user", "content": "\\ud800 FY2024"}]}',
            b'{"messages": [{"role": "user", "content": [{"type": "text", "text": "\\udfff"}]}]}',
        ],
        "/v1/ask": [b'{"question": "\\ud800 FY2024"}'],
    }
    for path, sent in bodies.items():
        for body in sent:
            response = client.post(
                path, content=body, headers={**INTERNAL, "Content-Type": "application/json"}
            )
            assert 400 <= response.status_code < 500, response.text


def test_an_unexpected_failure_is_a_500_that_leaks_nothing(service_workspace: Path) -> None:
    class BrokenFaq:
        def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
            raise RuntimeError("secret internal detail /etc/passwd")

    app = create_app(ServiceSettings(workspace=service_workspace), faq=BrokenFaq())
    with TestClient(app, raise_server_exceptions=False) as broken:
        response = broken.post("/v1/ask", json={"question": STRUCTURED}, headers=INTERNAL)
    assert_error(response, 500)
    assert "secret" not in response.text and "passwd" not in response.text
    assert response.json()["error"]["type"] == "internal_error"


# --- metrics ---------------------------------------------------------------------------------


def test_metrics_count_requests_and_answers_without_any_text(client: TestClient) -> None:
    ask(client, STRUCTURED)
    ask(client, FAQ_QUESTION)
    text = client.get("/metrics").text
    assert 'ragspine_http_requests_total{method="POST",route="/v1/ask",status="200"}' in text
    assert (
        'ragspine_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/v1/ask"}'
        in text
    )
    assert 'ragspine_answers_total{answer_kind="found",endpoint="ask",route="structured"}' in text
    assert 'ragspine_answers_total{answer_kind="found",endpoint="ask",route="faq"}' in text
    for question in (STRUCTURED, FAQ_QUESTION, "收入"):
        assert question not in text
    for key in INTERNAL.values():
        assert key.removeprefix("Bearer ") not in text
    for key in RESTRICTED.values():
        assert key not in text


def test_the_access_log_has_one_line_without_key_or_question(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="ragspine.access"):
        response = client.post(
            "/v1/ask",
            json={"question": STRUCTURED},
            headers={**INTERNAL, "X-Request-ID": "log-check-1"},
        )
    lines = [r.getMessage() for r in caplog.records if r.name == "ragspine.access"]
    assert len(lines) == 1
    (line,) = lines
    assert line.startswith("POST /v1/ask 200 ")
    assert "request_id=log-check-1" in line and "key=analyst" in line
    token = INTERNAL["Authorization"].removeprefix("Bearer ")
    assert token not in line and token[:12] not in line and STRUCTURED not in line
    assert response.status_code == 200


def test_concurrent_questions_on_the_pool_all_get_the_same_answer(client: TestClient) -> None:
    questions = [STRUCTURED, COMPOSITE, "香港监管动态"] * 8
    expected = {q: ask(client, q)["answer"] for q in set(questions)}
    with ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(lambda q: (q, ask(client, q)["answer"]), questions))
    assert all(answer == expected[q] for q, answer in answers)


def test_a_burst_beyond_the_pending_limit_is_a_503_with_retry_after(
    service_workspace: Path, service_keys: ServiceKeys
) -> None:
    entered, release = threading.Event(), threading.Event()

    class SlowFaq:
        """Holds the only slot until released (and then matches nothing)."""

        def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
            entered.set()
            release.wait(timeout=30)
            return None

    settings = ServiceSettings(
        workspace=service_workspace, ask_threads=1, max_pending=1, ask_inline=False
    )
    with (
        TestClient(create_app(settings, faq=SlowFaq())) as busy,
        ThreadPoolExecutor(max_workers=1) as pool,
    ):
        first = pool.submit(busy.post, "/v1/ask", json={"question": STRUCTURED}, headers=INTERNAL)
        assert entered.wait(timeout=30)
        refused = busy.post("/v1/ask", json={"question": STRUCTURED}, headers=INTERNAL)
        release.set()
        assert first.result(timeout=60).status_code == 200
        assert_error(refused, 503)
        assert refused.headers["Retry-After"] == "1"
        assert refused.json()["error"]["type"] == "overloaded"
        # The slot is free again: the next question is answered.
        assert busy.post("/v1/ask", json={"question": STRUCTURED}, headers=INTERNAL).is_success
