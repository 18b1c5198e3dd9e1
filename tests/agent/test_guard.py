"""The anti-fabrication guard against hostile models: no number but found facts, ever."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import MAX_TOOL_ITERATIONS, answer_question
from ragspine.agent.llm_provider import ProviderResponse
from ragspine.agent.messages import en, zh
from tests.agent.helpers import (
    CountingStore,
    ScriptedProvider,
    assert_no_invented_numbers,
    network_error,
    text,
    tool_call,
)

REF = date(2026, 11, 26)
FOUND_Q = "中国内地FY2024的REVENUE是多少"
MISSING_Q = "中国内地FY2025的REVENUE是多少"


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def run(question: str, store: CountingStore, provider: ScriptedProvider):
    return answer_question(question, store, provider, reference_date=REF)


def asked(**overrides: str) -> ProviderResponse:
    args = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024", "channel": "TOTAL"}
    args.update(overrides)
    return tool_call(**args)


def test_found_path_discards_fabricated_extra_number(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(), text("Revenue was 1320, up 45% to a record 9999.")])
    result = run(FOUND_Q, store, provider)
    assert "9999" not in result.answer and "45" not in result.answer
    assert "1320 USD_M" in result.answer
    assert result.trace["model_text_discarded"] is True
    assert_no_invented_numbers(result)


def test_not_found_overrides_a_model_that_invents_a_number(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(period="FY2025"), text("FY2025 revenue was 1500 USD_M.")])
    result = run(MISSING_Q, store, provider)
    assert "1500" not in result.answer
    assert result.answer.startswith("查不到：")
    assert result.trace["fabrication_guard_triggered"] is True
    assert result.sources == []


@pytest.mark.parametrize("question", [FOUND_Q, MISSING_Q])
def test_a_made_up_number_without_a_tool_call_is_replaced_by_the_parsed_query(
    store: CountingStore, question: str
) -> None:
    provider = ScriptedProvider([text("It was 4242 USD_M, trust me.")])
    result = run(question, store, provider)
    assert "4242" not in result.answer
    assert result.trace["guard_override"] is True
    assert result.trace["guard_override_reason"] == "no_tool_call"
    assert_no_invented_numbers(result)


def test_a_query_for_other_slots_is_discarded(store: CountingStore) -> None:
    # Asked for CN FY2024; the model looks up HK FY2025 (2480) and then CN FY2025.
    provider = ScriptedProvider(
        [
            asked(entity="ACME_HK", period="FY2025"),
            asked(period="FY2025"),
            text("Done."),
        ]
    )
    result = run(FOUND_Q, store, provider)
    assert "2480" not in result.answer
    assert "1320 USD_M" in result.answer
    assert result.trace["guard_override_reason"] == "slot_mismatch"
    assert [r["status"] for r in result.tool_results] == ["found"]
    assert result.tool_results[0]["entity"] == "ACME_CN"


def test_a_model_that_calls_tools_forever_hits_the_cap(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK")])
    result = run(FOUND_Q, store, provider)
    assert provider.calls == MAX_TOOL_ITERATIONS
    assert result.trace["guard_override_reason"] == "iteration_cap"
    assert "1320 USD_M" in result.answer
    assert "2210" not in result.answer


def test_truncated_or_malformed_tool_arguments_fall_back_to_the_parsed_query(
    store: CountingStore,
) -> None:
    provider = ScriptedProvider([tool_call(metric="REVEN"), text("")])
    result = run(FOUND_Q, store, provider)
    assert "1320 USD_M" in result.answer
    assert result.trace["guard_override_reason"] == "slot_mismatch"


def test_prose_padded_with_numbers_never_reaches_the_answer(store: CountingStore) -> None:
    padded = ProviderResponse(
        text="Per slide 7, 2024 revenue of 1,320 (vs 1,111 in 2023, +18.8%).",
        tool_calls=asked().tool_calls,
        stop_reason="tool_use",
    )
    provider = ScriptedProvider([padded, text("Also 77% margin and 12 new branches.")])
    result = run(FOUND_Q, store, provider)
    for invented in ("1,111", "1111", "18.8", "77", "12 new"):
        assert invented not in result.answer
    assert_no_invented_numbers(result)


@pytest.mark.parametrize("question", [FOUND_Q, "What was Mainland China revenue in FY2024?"])
def test_network_errors_degrade_to_a_number_free_message(
    store: CountingStore, question: str
) -> None:
    provider = ScriptedProvider([network_error()])
    result = run(question, store, provider)
    assert result.answer in (zh.PROVIDER_UNAVAILABLE, en.PROVIDER_UNAVAILABLE)
    assert not re.search(r"\d", result.answer)
    assert result.answer_kind == "degraded"
    assert result.trace["provider_error"] is True
    assert result.sources == []


def test_network_error_on_the_second_turn_also_degrades(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(), network_error()])
    result = run(FOUND_Q, store, provider)
    assert result.answer == zh.PROVIDER_UNAVAILABLE


def test_program_errors_in_the_provider_are_not_swallowed(store: CountingStore) -> None:
    provider = ScriptedProvider([TypeError("bug in adapter")])
    with pytest.raises(TypeError):
        run(FOUND_Q, store, provider)


HOSTILE_SCRIPTS = {
    "invents_without_tool": [text("Revenue: 8888 USD_M")],
    "other_entity": [asked(entity="ACME_HK"), text("HK had 2210.5")],
    "other_period": [asked(period="FY2025"), text("not found, but about 1400")],
    "forever": [asked(entity="ACME_GROUP", period="FY2025")],
    "padding": [asked(), text("1320 and 31% share and 7 products")],
    "network": [network_error()],
}


@pytest.mark.parametrize("name", sorted(HOSTILE_SCRIPTS))
@pytest.mark.parametrize(
    "question",
    [
        FOUND_Q,
        MISSING_Q,
        "What was Mainland China revenue in FY2024?",
        "香港FY2025收入同比增长多少",
        "中国内地的收入是多少",
    ],
)
def test_hostile_providers_never_get_a_number_into_the_answer(
    store: CountingStore, name: str, question: str
) -> None:
    provider = ScriptedProvider(HOSTILE_SCRIPTS[name])
    result = run(question, store, provider)
    assert_no_invented_numbers(result)
    for line in result.answer.splitlines():
        computed = line.startswith(("变化", "差值", "Change", "Difference"))
        if computed:
            assert len(result.sources) == 2  # both operands are cited
        elif re.search(r"USD_M|PCT", line):
            assert "来源：" in line or "source:" in line
