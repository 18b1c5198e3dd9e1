"""The orchestrator: early returns, routing, sub-task expansion and deterministic rendering."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import MAX_TOOL_ITERATIONS, answer_question
from ragspine.agent.intent import ROUTE_STRUCTURED, ParsedIntent, RuleIntentParser
from ragspine.agent.llm_provider import MockProvider
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from tests.agent.helpers import CountingStore, assert_no_invented_numbers

REF = date(2026, 11, 26)


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(question: str, store: CountingStore, provider: object | None = None, **kw: object):
    return answer_question(question, store, provider or MockProvider(), reference_date=REF, **kw)


def test_found_answer_is_rendered_from_the_fact_with_lineage(store: CountingStore) -> None:
    result = ask("中国内地FY2024的REVENUE是多少", store)
    assert result.answer == (
        "ACME_CN FY2024 REVENUE：1320 USD_M"
        "（来源：ACME_FY2024_Review.pptx · slide=2,table=1,row=REVENUE,col=FY2024）"
    )
    assert result.sources == [
        {"doc": "ACME_FY2024_Review.pptx", "locator": "slide=2,table=1,row=REVENUE,col=FY2024"}
    ]
    assert result.route == ROUTE_STRUCTURED
    assert result.answer_kind == "found"


def test_not_found_is_an_honest_refusal_without_digits_beyond_the_period(
    store: CountingStore,
) -> None:
    result = ask("中国内地FY2025的REVENUE是多少", store)
    assert result.answer.startswith(
        "查不到：REVENUE / ACME_CN / FY2025（渠道 TOTAL）未在事实表中找到。"
    )
    assert "为避免误导，不提供任何推测数字" in result.answer
    assert result.sources == []
    assert result.answer_kind == "not_found"
    assert result.trace["fabrication_guard_triggered"] is True


def test_english_question_gets_english_wording(store: CountingStore) -> None:
    result = ask("What was ACME HK revenue last year?", store)
    assert result.answer == (
        "ACME_HK FY2025 REVENUE: 2480 USD_M "
        "(source: ACME_FY2025_Review.pptx · slide=3,table=1,row=REVENUE,col=FY2025)"
    )
    missing = ask("What was Mainland China revenue in FY2025?", store)
    assert missing.answer.startswith("Not found: REVENUE / ACME_CN / FY2025 (channel TOTAL)")


def test_non_default_channel_is_named_in_the_answer(store: CountingStore) -> None:
    result = ask("香港代理人渠道FY2025的新业务价值是多少", store)
    assert result.answer.startswith("ACME_HK FY2025 NBV（AGENCY）：777 USD_M")


def test_assumptions_are_surfaced_before_the_answer(store: CountingStore) -> None:
    result = ask("香港的收入是多少", store)
    first, second = result.answer.split("\n", 1)
    assert first.startswith("【假设】") and "FY2025" in first and "如需收窄：" in first
    assert second.startswith("ACME_HK FY2025 REVENUE：2480 USD_M")
    assert result.clarification.assumed_slots == {"period": "FY2025"}


def test_refusal_and_ask_first_make_no_llm_tool_or_store_call(store: CountingStore) -> None:
    for question in (
        "竞安保险FY2024的收入是多少",
        "竞 安 的 revenue",
        "香港FY2024的数据是多少",
        "新加坡去年收入多少",
        "What was AIA revenue in FY2024?",
    ):
        provider = MockProvider()
        result = ask(question, store, provider)
        assert result.answer_kind in ("refused", "clarify"), question
        assert provider.calls == 0
        assert store.get_calls == 0
        assert result.tool_results == []
        assert result.trace["tool_calls"] == 0 and result.trace["llm_calls"] == 0


def test_unknown_entity_is_never_answered_with_the_home_entity(store: CountingStore) -> None:
    for question in ("友邦FY2025的收入是多少", "Singapore revenue last year", "新加坡去年收入"):
        result = ask(question, store)
        assert result.answer_kind == "clarify"
        assert "6120" not in result.answer  # the home entity's FY2025 revenue
        assert "ACME_HK" in result.answer and "ACME_CN" in result.answer


class _LyingParser:
    """A custom parser that forgets the competitor and claims a clean structured question."""

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent:
        return ParsedIntent(
            raw_question="",
            route=ROUTE_STRUCTURED,
            metric="REVENUE",
            entity="ACME_HK",
            period=Period(2024, "FY"),
            metrics=("REVENUE",),
            entities=("ACME_HK",),
            periods=(Period(2024, "FY"),),
        )


def test_gate_rescreens_the_raw_question_even_with_a_custom_parser(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("竞安保险FY2024的收入是多少", store, provider, intent_parser=_LyingParser())
    assert result.answer_kind == "refused"
    assert provider.calls == 0 and store.get_calls == 0
    assert "2210" not in result.answer


def test_listed_values_expand_only_on_listed_axes(store: CountingStore) -> None:
    two = ask("香港和中国内地FY2024营运利润对比", store)
    assert two.trace["subtasks"] == 2
    four = ask("香港FY2024和FY2025的收入和营运利润", store)
    assert four.trace["subtasks"] == 4
    assert {
        (r.get("metric_code") or r["normalized"]["metric_code"]) for r in four.tool_results
    } == {
        "REVENUE",
        "OPERATING_PROFIT",
    }


def test_multi_value_questions_never_call_the_model(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("香港和中国内地FY2024营运利润对比", store, provider)
    assert provider.calls == 0
    lines = result.answer.splitlines()
    assert lines[0].startswith("ACME_HK FY2024 OPERATING_PROFIT：610 USD_M")
    assert lines[1].startswith("ACME_CN FY2024 OPERATING_PROFIT：402 USD_M")
    assert lines[2] == "差值（ACME_HK 减 ACME_CN）：+208 USD_M（+51.7%）"
    assert len(result.sources) == 2
    assert_no_invented_numbers(result)


def test_partial_not_found_in_a_comparison_stays_isolated(store: CountingStore) -> None:
    result = ask("香港和澳门FY2024的收入对比", store)
    lines = result.answer.splitlines()
    assert lines[0].startswith("ACME_HK FY2024 REVENUE：2210.5 USD_M")
    assert lines[1].startswith("查不到：REVENUE / ACME_MO / FY2024")
    assert not any(line.startswith("差值") for line in lines)
    assert result.sources == [
        {"doc": "ACME_FY2024_Review.pptx", "locator": "slide=3,table=1,row=REVENUE,col=FY2024"}
    ]
    assert result.answer_kind == "partial"


def test_growth_is_computed_from_two_cited_facts(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("香港FY2025收入同比增长多少", store, provider)
    assert provider.calls == 0
    assert result.answer.splitlines()[-1] == "变化（FY2025 较 FY2024）：+269.5 USD_M（+12.2%）"
    assert len(result.sources) == 2
    english = ask("How much did HK revenue grow vs last year?", store)
    assert english.answer.splitlines()[-1] == "Change (FY2025 vs FY2024): +269.5 USD_M (+12.2%)"


def test_growth_with_missing_base_says_so_without_a_number(store: CountingStore) -> None:
    result = ask("集团FY2025收入同比增长多少", store)
    lines = result.answer.splitlines()
    assert lines[0].startswith("ACME_GROUP FY2025 REVENUE：6120 USD_M")
    assert lines[1].startswith("查不到：REVENUE / ACME_GROUP / FY2024")
    assert lines[-1] == "无法计算同比：缺少对比期 FY2024 的数据。"


def test_ratio_metrics_change_in_percentage_points(store: CountingStore) -> None:
    result = ask("香港FY2024和FY2025的新业务价值利润率", store)
    assert result.answer.splitlines()[-1] == "变化（FY2025 较 FY2024）：+3.4 个百分点"


def test_pending_and_restricted_facts_are_invisible(store: CountingStore) -> None:
    assert ask("澳门FY2024的收入是多少", store).answer_kind == "not_found"
    hidden = ask("澳门FY2025的收入是多少", store)
    assert hidden.answer_kind == "not_found" and "333" not in hidden.answer
    cleared = ask("澳门FY2025的收入是多少", store, clearance=Sensitivity.RESTRICTED)
    assert "333" in cleared.answer


def test_mock_tool_loop_uses_two_model_turns(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("香港FY2025的REVENUE是多少", store, provider)
    assert provider.calls == 2 <= MAX_TOOL_ITERATIONS
    assert result.trace["guard_override"] is False


def test_default_parser_is_the_rule_parser(store: CountingStore) -> None:
    explicit = ask("香港FY2025的REVENUE是多少", store, intent_parser=RuleIntentParser())
    implicit = ask("香港FY2025的REVENUE是多少", store)
    assert explicit.answer == implicit.answer
