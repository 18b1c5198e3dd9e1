"""The FAQ short-circuit at the HTTP edge, with the real ``FaqCache``: a vetted hit answers from
its own source without running the agent, and every exclusion of the request flow falls
through to the agent over ``/v1/ask``.

Apps serve the session's demo workspace without keys (the clearance is the app's fixed one),
so each clearance level is its own app; keys are tested in test_api.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ragspine.agent.llm_provider import MockProvider
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.faq_cache import FaqCache
from ragspine.service.faq.items import FaqItem
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service.traces import trace_lines as written_traces

REF = "2026-11-26"
PROFILE = load_profile()
SHIPPED = FaqCache.from_profile(PROFILE)


def item(item_id: str, question: str, **changes: Any) -> FaqItem:
    fields: dict[str, Any] = {
        "id": item_id,
        "question": question,
        "answer": f"vetted answer {item_id}",
        "source_doc": "memos/CN_Regulation_Update.md",
        "source_locator": "section=2,para=1-2",
        "version": "1",
        "sensitivity": Sensitivity.INTERNAL,
        "owner": "tests",
    }
    return FaqItem(**{**fields, **changes})


# Wordings that trip an exclusion: they match an item, yet the agent must answer them.
TRIPPING = FaqCache(
    PROFILE,
    [
        item("structured", "香港FY2024的收入是多少"),
        item("slot", "香港的股息政策是什么"),
        item("competitor", "竞安保险的股息政策是什么"),
        item("realtime-zh", "最新的股息政策是什么"),
        item("realtime-en", "What is the current dividend policy?"),
    ],
)


class Counting(MockProvider):
    """The offline provider, counting its calls (a FAQ hit must make none)."""


@pytest.fixture(scope="module")
def apps(service_workspace: Path) -> Iterator[dict[tuple[str, Sensitivity], TestClient]]:
    clients: dict[tuple[str, Sensitivity], TestClient] = {}
    opened = []
    for name, faq in (("shipped", SHIPPED), ("tripping", TRIPPING)):
        for level in Sensitivity:
            settings = ServiceSettings(
                workspace=service_workspace, no_auth=True, no_auth_clearance=level
            )
            app = create_app(settings, faq=faq, provider=Counting())
            client = TestClient(app)
            client.__enter__()
            opened.append(client)
            clients[(name, level)] = client
    yield clients
    for client in opened:
        client.__exit__(None, None, None)


def ask(client: TestClient, question: str) -> Any:
    response = client.post("/v1/ask", json={"question": question, "reference_date": REF})
    assert response.status_code == 200, response.text
    return response.json()


def trace_lines(client: TestClient, path: Path) -> int:
    return len(written_traces(client, path))


def provider_calls(client: TestClient) -> int:
    return int(client.app.state.service.answerer._provider.calls)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "question", ["什么是报行合一", "报行合一是什么意思?", "ＷＨＡＴ does 报行合一 mean"]
)
def test_a_vetted_wording_is_answered_from_its_own_source(
    apps: dict[tuple[str, Sensitivity], TestClient], service_workspace: Path, question: str
) -> None:
    client = apps[("shipped", Sensitivity.INTERNAL)]
    traces = service_workspace / "traces.jsonl"
    lines_before, calls_before = trace_lines(client, traces), provider_calls(client)

    body = ask(client, question)

    assert body["route"] == "faq"
    assert body["cache"] == {"hit": True, "faq_id": "cn-commission-alignment", "version": "1"}
    assert body["sources"] == [
        {"doc": "memos/CN_Regulation_Update.md", "locator": "section=2,para=1-2"}
    ]
    assert "报行合一" in body["answer"]
    # Neither the agent (its trace line) nor the provider ran.
    assert trace_lines(client, traces) == lines_before
    assert provider_calls(client) == calls_before


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("What does RBC mean?", "CONFIDENTIAL item, INTERNAL caller"),
        ("Who can read the board minutes?", "RESTRICTED items are never served"),
        ("What are the strategic priorities?", "disabled"),
        ("What are compliance's next steps?", "expired on 2025-12-31"),
    ],
)
def test_shipped_items_that_must_not_short_circuit(
    apps: dict[tuple[str, Sensitivity], TestClient], question: str, why: str
) -> None:
    body = ask(apps[("shipped", Sensitivity.INTERNAL)], question)
    assert body["route"] != "faq", why
    assert body["cache"]["hit"] is False


def test_restricted_items_miss_even_for_restricted_callers(
    apps: dict[tuple[str, Sensitivity], TestClient],
) -> None:
    body = ask(apps[("shipped", Sensitivity.RESTRICTED)], "Who can read the board minutes?")
    assert body["route"] != "faq"
    body = ask(apps[("shipped", Sensitivity.CONFIDENTIAL)], "What does RBC mean?")
    assert body["route"] == "faq" and body["cache"]["faq_id"] == "hk-rbc"


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("香港FY2024的收入是多少", "structured"),
        ("香港的股息政策是什么", None),
        ("竞安保险的股息政策是什么", None),
        ("最新的股息政策是什么", None),
        ("What is the current dividend policy?", None),
    ],
)
def test_each_exclusion_falls_through_to_the_agent(
    apps: dict[tuple[str, Sensitivity], TestClient], question: str, route: str | None
) -> None:
    client = apps[("tripping", Sensitivity.CONFIDENTIAL)]
    body = ask(client, question)
    assert body["route"] != "faq" and body["cache"]["hit"] is False
    assert "vetted answer" not in body["answer"]
    if route:
        assert body["route"] == route


def test_the_stream_and_chat_completions_serve_the_same_hit(
    apps: dict[tuple[str, Sensitivity], TestClient],
) -> None:
    client = apps[("shipped", Sensitivity.PUBLIC)]
    asked = ask(client, "股息政策是什么")
    assert asked["route"] == "faq" and asked["cache"]["faq_id"] == "dividend-policy"

    chat = client.post(
        "/v1/chat/completions",
        json={"model": "ragspine", "messages": [{"role": "user", "content": "股息政策是什么"}]},
    ).json()
    assert asked["answer"] in chat["choices"][0]["message"]["content"]
    assert chat["sources"] == asked["sources"]

    stream = client.post("/v1/ask/stream", json={"question": "股息政策是什么"}).text
    assert '"route":"faq"' in stream.replace(" ", "") and "event: done" in stream
