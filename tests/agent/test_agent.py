"""The orchestrator: early returns, routing, sub-task expansion and deterministic rendering."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent import agent
from ragspine.agent.agent import answer_question
from ragspine.agent.guard import MAX_TOOL_ITERATIONS
from ragspine.agent.intent import ROUTE_STRUCTURED, ParsedIntent, RuleIntentParser
from ragspine.agent.llm_provider import LLMProvider, MockProvider
from ragspine.agent.types import (
    AgentResult,
    AnswerKind,
    ClarifyMode,
    FactNotFound,
    FoundFact,
    Route,
    Slots,
    Source,
    ToolError,
    ToolResult,
    UnrecognizedParam,
)
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from tests.agent.helpers import CountingStore, assert_no_invented_numbers
from tests.facts import fact
from tests.profiles import acme, initech

REF = date(2026, 11, 26)
FY2024, FY2025 = Period(2024, "FY"), Period(2025, "FY")


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(
    question: str, store: CountingStore, provider: LLMProvider | None = None, **kw: Any
) -> AgentResult:
    return answer_question(question, store, provider or MockProvider(), reference_date=REF, **kw)


def test_found_answer_is_rendered_from_the_fact_with_lineage(store: CountingStore) -> None:
    result = ask("中国内地FY2024的REVENUE是多少", store)
    assert result.answer == (
        "中国内地 FY2024 收入：1,320 百万美元"
        "（来源：ACME_FY2024_Review.pptx · slide=2,table=1,row=REVENUE,col=FY2024）"
    )
    source = Source("ACME_FY2024_Review.pptx", "slide=2,table=1,row=REVENUE,col=FY2024")
    assert result.sources == [source]
    assert result.tool_results == [
        FoundFact(Slots("REVENUE", "ACME_CN", FY2024, "TOTAL"), 1320, "USD_M", source)
    ]
    assert result.route is ROUTE_STRUCTURED is Route.STRUCTURED
    assert result.answer_kind is AnswerKind.FOUND
    assert result.guard_override is None


def test_not_found_is_an_honest_refusal_without_digits_beyond_the_period(
    store: CountingStore,
) -> None:
    result = ask("中国内地FY2025的REVENUE是多少", store)
    assert result.answer.startswith(
        "查不到：收入 / 中国内地 / FY2025（渠道 合计）未在事实表中找到。"
    )
    assert "为避免误导，不提供任何推测数字" in result.answer
    assert result.sources == []
    assert result.tool_results == [FactNotFound(Slots("REVENUE", "ACME_CN", FY2025, "TOTAL"))]
    assert result.answer_kind is AnswerKind.NOT_FOUND
    assert result.trace["fabrication_guard_triggered"] is True


def test_english_question_gets_english_wording(store: CountingStore) -> None:
    result = ask("What was ACME HK revenue last year?", store)
    assert result.answer == (
        "Hong Kong FY2025 Revenue: US$ 2,480 m "
        "(source: ACME_FY2025_Review.pptx · slide=3,table=1,row=REVENUE,col=FY2025)"
    )
    missing = ask("What was Mainland China revenue in FY2025?", store)
    assert missing.answer.startswith("Not found: Revenue / Mainland China / FY2025 (channel Total)")


def test_non_default_channel_is_named_in_the_answer(store: CountingStore) -> None:
    result = ask("香港代理人渠道FY2025的新业务价值是多少", store)
    assert result.answer.startswith("香港 FY2025 新业务价值（代理人渠道）：777 百万美元")


def test_assumptions_are_surfaced_before_the_answer(store: CountingStore) -> None:
    result = ask("香港的收入是多少", store)
    first, second = result.answer.split("\n", 1)
    assert first.startswith("【假设】") and "FY2025" in first and "如需收窄：" in first
    assert second.startswith("香港 FY2025 收入：2,480 百万美元")
    assert result.clarification.mode is ClarifyMode.ANSWER_WITH_ASSUMPTIONS
    assert result.clarification.assumed_period == FY2025
    assert result.clarification.assumed_slots == {"period": "FY2025"}
    assert [r.slots for r in result.tool_results] == [Slots("REVENUE", "ACME_HK", FY2025, "TOTAL")]


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
        assert result.answer_kind in (AnswerKind.REFUSED, AnswerKind.CLARIFY), question
        assert provider.calls == 0
        assert store.get_calls == 0
        assert result.tool_results == []
        assert result.trace["tool_calls"] == 0 and result.trace["llm_calls"] == 0


def test_unknown_entity_is_never_answered_with_the_home_entity(store: CountingStore) -> None:
    for question in ("友邦FY2025的收入是多少", "Singapore revenue last year", "新加坡去年收入"):
        result = ask(question, store)
        assert result.answer_kind is AnswerKind.CLARIFY
        assert (
            "6120" not in result.answer and "6,120" not in result.answer
        )  # the home entity's FY2025 revenue
        assert "ACME_HK" in result.answer and "ACME_CN" in result.answer


class _LyingParser:
    """A custom parser that forgets the competitor and claims a clean structured question."""

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent:
        return ParsedIntent(
            raw_question="",
            route=Route.STRUCTURED,
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
    assert result.answer_kind is AnswerKind.REFUSED
    assert provider.calls == 0 and store.get_calls == 0
    assert "2210" not in result.answer and "2,210" not in result.answer


class _AliasParser:
    """A custom parser (an LLM, say) that names the slots as a user would, not by code."""

    def __init__(self, metric: str, entity: str) -> None:
        self.metric, self.entity = metric, entity

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent:
        return ParsedIntent(
            raw_question=question,
            route=Route.STRUCTURED,
            metric=self.metric,
            entity=self.entity,
            period=FY2024,
            metrics=(self.metric,),
            entities=(self.entity,),
            periods=(FY2024,),
        )


@pytest.mark.parametrize(("metric", "entity"), [("revenue", "Hong Kong"), ("REVENUE", "hk")])
def test_a_custom_parser_may_name_slots_by_alias(
    store: CountingStore, metric: str, entity: str
) -> None:
    # The glossary reads whatever a parser returns, as it reads the model's tool arguments.
    result = ask("q", store, intent_parser=_AliasParser(metric, entity))
    assert [r.slots for r in result.tool_results] == [Slots("REVENUE", "ACME_HK", FY2024, "TOTAL")]
    assert result.answer_kind is AnswerKind.FOUND


def test_a_custom_parser_slot_the_glossary_cannot_read_is_named(store: CountingStore) -> None:
    result = ask("q", store, intent_parser=_AliasParser("GROWTH", "ACME_HK"))
    assert result.tool_results == [UnrecognizedParam("metric", "GROWTH")]
    assert result.answer_kind is AnswerKind.UNRECOGNIZED


def test_listed_values_expand_only_on_listed_axes(store: CountingStore) -> None:
    two = ask("香港和中国内地FY2024营运利润对比", store)
    assert two.trace["subtasks"] == 2
    four = ask("香港FY2024和FY2025的收入和营运利润", store)
    assert four.trace["subtasks"] == 4
    assert {r.slots for r in four.tool_results} == {
        Slots(metric, "ACME_HK", period, "TOTAL")
        for metric in ("REVENUE", "OPERATING_PROFIT")
        for period in (FY2024, FY2025)
    }


def test_multi_value_questions_never_call_the_model(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("香港和中国内地FY2024营运利润对比", store, provider)
    assert provider.calls == 0
    lines = result.answer.splitlines()
    assert lines[0].startswith("香港 FY2024 营运利润：610 百万美元")
    assert lines[1].startswith("中国内地 FY2024 营运利润：402 百万美元")
    assert lines[2] == "差值（香港 减 中国内地）：+208 百万美元（相对中国内地 +51.74%）"
    assert len(result.sources) == 2
    assert_no_invented_numbers(
        result,
        [
            Slots("OPERATING_PROFIT", "ACME_HK", FY2024, "TOTAL"),
            Slots("OPERATING_PROFIT", "ACME_CN", FY2024, "TOTAL"),
        ],
    )


def test_partial_not_found_in_a_comparison_stays_isolated(store: CountingStore) -> None:
    result = ask("香港和澳门FY2024的收入对比", store)
    lines = result.answer.splitlines()
    assert lines[0].startswith("香港 FY2024 收入：2,210.5 百万美元")
    assert lines[1].startswith("查不到：收入 / 澳门 / FY2024")
    assert not any(line.startswith("差值") for line in lines)
    assert result.sources == [
        Source("ACME_FY2024_Review.pptx", "slide=3,table=1,row=REVENUE,col=FY2024")
    ]
    assert result.answer_kind is AnswerKind.PARTIAL


def test_growth_is_computed_from_two_cited_facts(store: CountingStore) -> None:
    provider = MockProvider()
    result = ask("香港FY2025收入同比增长多少", store, provider)
    assert provider.calls == 0
    assert result.answer.splitlines()[-1] == "变化（FY2025 较 FY2024）：+269.5 百万美元（+12.19%）"
    assert len(result.sources) == 2
    assert_no_invented_numbers(
        result,
        [
            Slots("REVENUE", "ACME_HK", FY2025, "TOTAL"),
            Slots("REVENUE", "ACME_HK", FY2024, "TOTAL"),
        ],
    )
    english = ask("How much did HK revenue grow vs last year?", store)
    assert english.answer.splitlines()[-1] == "Change (FY2025 vs FY2024): +US$ 269.5 m (+12.19%)"


def test_growth_with_missing_base_says_so_without_a_number(store: CountingStore) -> None:
    result = ask("集团FY2025收入同比增长多少", store)
    lines = result.answer.splitlines()
    assert lines[0].startswith("集团 FY2025 收入：6,120 百万美元")
    assert lines[1].startswith("查不到：收入 / 集团 / FY2024")
    assert lines[-1] == "无法计算同比：缺少对比期 FY2024 的数据。"


def test_ratio_metrics_change_in_percentage_points(store: CountingStore) -> None:
    result = ask("香港FY2024和FY2025的新业务价值利润率", store)
    assert result.answer.splitlines()[-1] == "变化（FY2025 较 FY2024）：+3.40 个百分点"


def test_pending_and_restricted_facts_are_invisible(store: CountingStore) -> None:
    assert ask("澳门FY2024的收入是多少", store).answer_kind is AnswerKind.NOT_FOUND
    hidden = ask("澳门FY2025的收入是多少", store)
    assert hidden.answer_kind is AnswerKind.NOT_FOUND and "333" not in hidden.answer
    cleared = ask("澳门FY2025的收入是多少", store, clearance=Sensitivity.RESTRICTED)
    assert [r.value for r in cleared.tool_results if isinstance(r, FoundFact)] == [333]
    assert "333" in cleared.answer


def test_a_query_that_answers_the_slots_ends_the_tool_loop(store: CountingStore) -> None:
    # The model's query answered exactly what was asked: it is not asked again to word a
    # result whose words would be discarded.
    provider = MockProvider()
    result = ask("香港FY2025的REVENUE是多少", store, provider)
    assert provider.calls == 1 <= MAX_TOOL_ITERATIONS
    assert result.trace["llm_calls"] == 1 and result.trace["tool_calls"] == 1
    assert result.trace["guard_override"] is False
    assert result.guard_override is None


def test_default_parser_is_the_rule_parser(store: CountingStore) -> None:
    explicit = ask("香港FY2025的REVENUE是多少", store, intent_parser=RuleIntentParser(acme()))
    implicit = ask("香港FY2025的REVENUE是多少", store)
    assert explicit.answer == implicit.answer


def test_the_given_profile_reaches_every_layer(tmp_path: Path) -> None:
    # Initech: fiscal years end in March (FY2026 is the latest complete one on REF) and the
    # default channel is DIRECT.
    slots = Slots("BOOKINGS", "INI_US", Period(2026, "FY"), "DIRECT")
    bookings = fact("BOOKINGS", "INI_US", "FY", "2026", 75, channel="DIRECT")
    store = CountingStore(tmp_path / "initech.db", [bookings])
    result = ask("US bookings last year", store, profile=initech())
    assert result.tool_results == [
        FoundFact(slots, 75, "USD_M", Source(bookings.source_doc_id, bookings.source_locator))
    ]
    assert result.answer.startswith("United States FY2026 Bookings: US$ 75 m")
    world = ask("What were the bookings?", store, profile=initech())
    assert world.clarification.assumed_slots == {"entity": "INI_WORLD", "period": "FY2026"}
    assert world.answer_kind is AnswerKind.NOT_FOUND
    refused = ask("Globex bookings in FY2026", store, profile=initech())
    assert refused.answer_kind is AnswerKind.REFUSED and store.get_calls == 2


_SLOTS = Slots("REVENUE", "ACME_HK", Period(2024, "FY"), "TOTAL")


@pytest.mark.parametrize(
    "result",
    [
        FoundFact(_SLOTS, 1.0, "USD m", Source("d", "l")),
        FactNotFound(_SLOTS),
        UnrecognizedParam("metric", "x"),
        ToolError("unknown tool 'x'"),
    ],
    ids=lambda result: str(result.status),
)
def test_one_result_names_the_same_kind_as_the_same_result_twice(result: ToolResult) -> None:
    # One result takes a shortcut; two take the general rule over the set of statuses.
    assert agent._kind([result]) is agent._kind([result, result])
