"""Follow-ups over HTTP: the OpenAI SDK's message history and ``/v1/ask``'s ``history`` carry
the previous turn's slots into the next, re-answered under the current key's clearance.

Expected figures come from the demo corpus's ground truth, never from the engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from ragspine.demo.corpus import GroundTruth, load_ground_truth
from ragspine.demo.tour import CORPUS_DIR
from ragspine.eval.answer_values import stated_values
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import INTERNAL, RESTRICTED, ServiceKeys

REF = "2026-11-26"


@pytest.fixture(scope="module")
def client(service_workspace: Path, service_keys: ServiceKeys) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceSettings(workspace=service_workspace))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def truth(service_workspace: Path) -> GroundTruth:
    return load_ground_truth(service_workspace / CORPUS_DIR)


def values(
    truth: GroundTruth, metric: str, entity: str, year: str, *, restricted: bool
) -> set[str]:
    """The figure as an answer writes it, for every document stating the fact."""
    return {
        f"{f.value:g}"
        for f in truth.facts
        if f.key == (metric, entity, "FY", year, "TOTAL")
        and (restricted or f.sensitivity != "RESTRICTED")
    }


def sdk(client: TestClient, key: str) -> OpenAI:
    """The OpenAI SDK speaking to the app in-process (TestClient is an httpx client)."""
    return OpenAI(base_url="http://testserver/v1", api_key=key, http_client=client, max_retries=0)


def chat(openai: OpenAI, messages: list[dict[str, str]]) -> tuple[str, Any]:
    completion = openai.chat.completions.create(model="ragspine", messages=messages)  # type: ignore[arg-type]
    return completion.choices[0].message.content or "", completion.model_extra or {}


def figure(text: str) -> str:
    """The value of the answer's one found fact line ("<subject>: <value> <unit> (source…")."""
    (line,) = [line for line in text.splitlines() if "(source:" in line or "（来源：" in line]
    shown = line.split(": " if "(source:" in line else "：", 1)[1]
    return f"{stated_values(shown)[0].value:g}"  # "US$ 2,165 m" -> "2165"


def test_entity_metric_and_period_carry_over_and_a_named_slot_replaces_only_itself(
    client: TestClient, service_keys: ServiceKeys, truth: GroundTruth
) -> None:
    openai = sdk(client, service_keys.internal)
    messages = [{"role": "user", "content": "What was Hong Kong's operating profit in FY2024?"}]
    text, _ = chat(openai, messages)
    assert figure(text) in values(truth, "OPERATING_PROFIT", "ACME_HK", "2024", restricted=False)
    assert "previous question" not in text
    turns = [
        ("And in FY2023?", ("OPERATING_PROFIT", "ACME_HK", "2023"), "Operating profit, Hong Kong"),
        ("What about Macau?", ("OPERATING_PROFIT", "ACME_MO", "2023"), "Operating profit, FY2023"),
        ("那收入呢？", ("REVENUE", "ACME_MO", "2023"), "澳门，FY2023"),
    ]
    for question, (metric, entity, year), inherited in turns:
        messages += [{"role": "assistant", "content": text}, {"role": "user", "content": question}]
        text, extra = chat(openai, messages)
        assert extra["answer_kind"] == "found", text
        assert figure(text) in values(truth, metric, entity, year, restricted=False), text
        assert inherited in text.splitlines()[0]
        assert extra["sources"]


def test_no_history_is_a_stand_alone_question(
    client: TestClient, service_keys: ServiceKeys
) -> None:
    text, extra = chat(
        sdk(client, service_keys.internal), [{"role": "user", "content": "And in FY2023?"}]
    )
    assert "previous question" not in text
    assert extra["answer_kind"] != "found"


def test_assistant_messages_are_never_read_as_the_conversation(
    client: TestClient, service_keys: ServiceKeys
) -> None:
    """Only user messages settle slots: an assistant message naming a unit and a metric does not."""
    messages = [
        {"role": "assistant", "content": "What was Hong Kong's operating profit in FY2024?"},
        {"role": "user", "content": "And in FY2023?"},
    ]
    text, extra = chat(sdk(client, service_keys.internal), messages)
    assert "previous question" not in text and extra["answer_kind"] != "found"


def test_a_restricted_fact_of_an_earlier_turn_never_reaches_a_less_cleared_key(
    client: TestClient, service_keys: ServiceKeys, truth: GroundTruth
) -> None:
    first = "集团FY2025新业务价值是多少"
    restricted = values(truth, "NBV", "ACME_GROUP", "2025", restricted=True)
    earlier = values(truth, "NBV", "ACME_GROUP", "2024", restricted=True)
    assert (
        restricted and earlier and not values(truth, "NBV", "ACME_GROUP", "2024", restricted=False)
    )
    board = sdk(client, service_keys.restricted)
    answer, _ = chat(board, [{"role": "user", "content": first}])
    assert figure(answer) in restricted
    # The board's conversation, its RESTRICTED answer included, replayed by an INTERNAL key.
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "那FY2024呢？"},
    ]
    text, extra = chat(sdk(client, service_keys.internal), messages)
    assert extra["answer_kind"] == "not_found"
    assert not any(v in text for v in restricted | earlier)
    assert "board_minutes" not in str(extra["sources"])
    # The same conversation for the board key is answered from the board minutes.
    text, extra = chat(board, messages)
    assert extra["answer_kind"] == "found" and figure(text) in earlier


def test_ask_takes_the_web_pages_history(client: TestClient, truth: GroundTruth) -> None:
    body = {
        "question": "那FY2023呢？",
        "history": ["香港FY2024的营运利润是多少"],
        "reference_date": REF,
    }
    answer = client.post("/v1/ask", json=body, headers=INTERNAL).json()
    assert answer["answer_kind"] == "found"
    assert answer["answer"].startswith("【假设】营运利润，香港")
    (found,) = answer["tool_results"]
    assert f"{found['value']:g}" in values(
        truth, "OPERATING_PROFIT", "ACME_HK", "2023", restricted=False
    )
    stream = client.post("/v1/ask/stream", json=body, headers=RESTRICTED)
    assert stream.status_code == 200 and "沿用上一个问题" in stream.text
    without = client.post("/v1/ask", json={**body, "history": []}, headers=INTERNAL).json()
    assert without["answer_kind"] != "found"


def test_a_period_counted_from_the_previous_quarter_over_ask(
    client: TestClient, truth: GroundTruth
) -> None:
    """The follow-up "上一年呢？" after a quarter is that quarter a year earlier, never a
    full year's figure."""

    def stated(period_type: str, year: str) -> set[str]:
        key = ("REVENUE", "ACME_HK", period_type, year, "TOTAL")
        return {f"{f.value:g}" for f in truth.facts if f.key == key}

    body = {
        "question": "上一年呢？",
        "history": ["香港2025年第三季度收入是多少"],
        "reference_date": REF,
    }
    answer = client.post("/v1/ask", json=body, headers=INTERNAL).json()
    assert answer["answer_kind"] == "found", answer["answer"]
    assert answer["answer"].startswith("【假设】收入，香港，2024Q3，沿用上一个问题")
    (found,) = answer["tool_results"]
    assert f"{found['value']:g}" in stated("Q3", "2024")
    full_years = stated("FY", "2025") | stated("FY", "2024")
    assert full_years and not any(f"{float(v):,.0f}" in answer["answer"] for v in full_years)


def test_a_history_longer_than_the_limit_is_refused(client: TestClient) -> None:
    body = {"question": "那FY2023呢？", "history": ["香港FY2024的营运利润是多少"] * 21}
    assert client.post("/v1/ask", json=body, headers=INTERNAL).status_code == 422


def test_a_follow_up_to_a_ranking_keeps_the_ranking_over_the_sdk(
    client: TestClient, service_keys: ServiceKeys, truth: GroundTruth
) -> None:
    """ "And in FY2023?" after a ranking ranks the same units for FY2023, each figure the
    corpus's truth for that unit and year, in order, with its source."""
    openai = sdk(client, service_keys.internal)
    first = "Which region had the highest revenue in FY2024?"
    answer, _ = chat(openai, [{"role": "user", "content": first}])
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "And in FY2023?"},
    ]
    text, extra = chat(openai, messages)
    assert extra["answer_kind"] == "found", text
    assert text.splitlines()[0].startswith("[Assumption] Revenue, ")
    assert "the ranking (highest first), from your previous question" in text.splitlines()[0]
    ranked = [line for line in text.splitlines() if line[:1].isdigit() and line[1:3] == ". "]
    regions = ("ACME_HK", "ACME_CN", "ACME_MO")
    truth_2023 = {e: values(truth, "REVENUE", e, "2023", restricted=False) for e in regions}
    assert all(len(v) == 1 for v in truth_2023.values())  # one figure per unit in the corpus
    order = sorted(regions, key=lambda e: -float(next(iter(truth_2023[e]))))
    assert len(ranked) == len(order)
    for line, entity in zip(ranked, order, strict=True):
        assert figure(line) in truth_2023[entity] and "(source: " in line


def test_a_follow_up_asking_for_a_share_is_not_computed_on_every_http_surface(
    client: TestClient, service_keys: ServiceKeys, truth: GroundTruth
) -> None:
    """ "and its share?" after a figure keeps the figure's slots and says the share is not
    computed — the same answer over the OpenAI SDK's history and the web page's ``history``
    (``/v1/ask`` and ``/v1/ask/stream``); "why?" after it stays a prose question."""
    first = "What was Hong Kong revenue in FY2024?"
    hidden = values(truth, "REVENUE", "ACME_HK", "2024", restricted=True)
    assert hidden  # the corpus states the figure the answer must not give in its place
    openai = sdk(client, service_keys.internal)
    answer, _ = chat(openai, [{"role": "user", "content": first}])
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "and its share?"},
    ]
    text, extra = chat(openai, messages)
    assert extra["answer_kind"] == "clarify", text
    assert text.startswith("Not answered: the question asks for 'share'"), text
    assert not extra["sources"] and not any(v in text for v in hidden)
    body = {"question": "and its share?", "history": [first], "reference_date": REF}
    page = client.post("/v1/ask", json=body, headers=INTERNAL).json()
    assert page["answer_kind"] == "clarify"
    assert text.startswith(page["answer"]) and page["answer"].endswith("with their sources.")
    assert page["tool_results"] == []
    stream = client.post("/v1/ask/stream", json=body, headers=INTERNAL)
    assert stream.status_code == 200 and "asks for 'share'" in stream.text
    why = client.post("/v1/ask", json={**body, "question": "why?"}, headers=INTERNAL).json()
    assert why["answer_kind"] != "clarify" and "Not answered" not in why["answer"]
    assert why["tool_results"] == []


@pytest.mark.parametrize(
    ("first", "follow"),
    [
        ("What was Group revenue in FY2024?", "and excluding Macau?"),
        ("集团FY2024的收入是多少", "除澳门以外呢？"),
    ],
)
def test_an_exclusion_follow_up_never_answers_the_excluded_units_figure_over_the_sdk(
    client: TestClient, service_keys: ServiceKeys, truth: GroundTruth, first: str, follow: str
) -> None:
    """The previous turn's revenue and FY2024 without Macau: the other regions' sum or the
    group's figure minus Macau's, from the corpus's truth — never Macau's own figure."""
    openai = sdk(client, service_keys.internal)
    answer, _ = chat(openai, [{"role": "user", "content": first}])
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": answer},
        {"role": "user", "content": follow},
    ]
    text, extra = chat(openai, messages)
    one = {e: values(truth, "REVENUE", e, "2024", restricted=False) for e in _UNITS}
    assert all(len(v) == 1 for v in one.values()), one
    of = {e: float(next(iter(v))) for e, v in one.items()}
    expected = {
        f"{of['ACME_HK'] + of['ACME_CN']:,.1f}".removesuffix(".0"),
        f"{of['ACME_GROUP'] - of['ACME_MO']:,.1f}".removesuffix(".0"),
    }
    computed = text.splitlines()[1]
    assert any(value in computed for value in expected), text
    assert "Macau" in computed or "澳门" in computed
    assert extra["answer_kind"] in ("found", "partial"), text
    macau = f"{of['ACME_MO']:,g}"
    assert not computed.split("：" if "：" in computed else ": ", 1)[1].startswith(macau)


_UNITS = ("ACME_HK", "ACME_CN", "ACME_MO", "ACME_GROUP")
