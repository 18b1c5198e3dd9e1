"""Follow-ups: the slots a question leaves out come from the user's previous questions,
deterministically, re-answered under the current clearance. Expected values are the test's own
facts (``STANDARD_FACTS``), never the engine's output."""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.conversation import MAX_PREVIOUS_QUESTIONS, context_of, follow_up
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.parse import RuleIntentParser
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, FoundFact
from ragspine.eval.answer_values import stated_values
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from tests.agent.helpers import STANDARD_FACTS, CountingStore
from tests.profiles import INITECH_PATH

REF = date(2026, 11, 26)
PROFILE = load_profile()


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(store: CountingStore, question: str, *previous: str, **kw: Any) -> AgentResult:
    return answer_question(
        question, store, MockProvider(), reference_date=REF, previous=previous, **kw
    )


def stated(metric: str, entity: str, year: str, **visible: Any) -> float:
    """The test's own fact for the key (confirmed, of the given sensitivity when named)."""
    (fact,) = [
        f
        for f in STANDARD_FACTS
        if (f.metric_code, f.entity, f.period_type, f.period) == (metric, entity, "FY", year)
        and f.channel == "TOTAL"
        and f.review_status != "pending"
        and all(getattr(f, k) == v for k, v in visible.items())
    ]
    return fact.value


def found_value(result: AgentResult) -> float:
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    (only,) = result.tool_results
    assert isinstance(only, FoundFact)
    assert fabricated_numbers(result, allowed_values=[only.value]) == []
    return only.value


HK_2024 = "What was Hong Kong's revenue in FY2024?"


def test_a_follow_up_naming_a_period_keeps_the_metric_and_entity(store: CountingStore) -> None:
    result = ask(store, "And in FY2025?", HK_2024)
    assert found_value(result) == stated("REVENUE", "ACME_HK", "2025")
    assert result.answer.splitlines()[0] == (
        "[Assumption] Revenue, Hong Kong, from your previous question"
    )
    assert result.trace["inherited_slots"] == ["metric", "entity"]


def test_a_follow_up_naming_an_entity_replaces_only_the_entity(store: CountingStore) -> None:
    result = ask(store, "what about Mainland China?", HK_2024)
    assert found_value(result) == stated("REVENUE", "ACME_CN", "2024")
    assert result.answer.startswith("[Assumption] Revenue, FY2024, from your previous question")


def test_a_chinese_follow_up_naming_a_metric_keeps_entity_and_period(
    store: CountingStore,
) -> None:
    result = ask(store, "那营运利润呢？", "香港FY2024的收入是多少")
    assert found_value(result) == stated("OPERATING_PROFIT", "ACME_HK", "2024")
    assert result.answer.startswith("【假设】香港，FY2024，沿用上一个问题")


def test_slots_chain_through_every_earlier_turn(store: CountingStore) -> None:
    result = ask(store, "那营运利润呢？", "香港FY2025的收入是多少", "那FY2024呢？")
    assert found_value(result) == stated("OPERATING_PROFIT", "ACME_HK", "2024")


def test_without_history_a_question_stands_alone(store: CountingStore) -> None:
    alone = ask(store, "And in FY2025?")
    assert alone.answer_kind is not AnswerKind.FOUND
    assert "previous question" not in alone.answer
    assert alone.trace["inherited_slots"] == []
    full = ask(store, "What was Mainland China's revenue in FY2024?", HK_2024)
    assert "previous question" not in full.answer
    assert found_value(full) == stated("REVENUE", "ACME_CN", "2024")


def test_a_prose_question_is_not_a_follow_up(store: CountingStore) -> None:
    result = ask(store, "Why did it grow in FY2025?", HK_2024)
    assert "previous question" not in result.answer
    assert result.tool_results == []


def test_the_assumption_banner_and_the_inherited_line_are_both_shown(
    store: CountingStore,
) -> None:
    """The earlier question named no period: the follow-up still assumes the latest year."""
    result = ask(store, "what about Macau?", "香港的收入是多少")
    lines = result.answer.splitlines()
    assert result.clarification.mode is ClarifyMode.ANSWER_WITH_ASSUMPTIONS
    assert lines[0] == result.clarification.assumption_note
    assert lines[1] == "[Assumption] Revenue, from your previous question"


def test_a_restricted_fact_is_re_answered_under_the_current_clearance(
    store: CountingStore,
) -> None:
    secret = stated("REVENUE", "ACME_MO", "2025", sensitivity="RESTRICTED")
    earlier = "What was Macau's revenue in FY2024?"
    cleared = ask(store, "And in FY2025?", earlier, clearance=Sensitivity.RESTRICTED)
    assert found_value(cleared) == secret
    internal = ask(store, "And in FY2025?", earlier, clearance=Sensitivity.INTERNAL)
    assert internal.answer_kind is AnswerKind.NOT_FOUND
    assert f"{secret:g}" not in internal.answer


def test_a_competitor_of_an_earlier_turn_is_refused_again(store: CountingStore) -> None:
    result = ask(store, "And in FY2025?", "What was Jingan's revenue in FY2024?")
    assert result.answer_kind is AnswerKind.REFUSED
    assert result.tool_results == [] and store.get_calls == 0


def test_an_unknown_entity_of_an_earlier_turn_is_asked_about_again(store: CountingStore) -> None:
    result = ask(store, "And in FY2025?", "What was Singapore's revenue in FY2024?")
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "Singapore" in result.answer and store.get_calls == 0


def test_only_the_latest_questions_count(store: CountingStore) -> None:
    filler = ["What is the strategy?"] * MAX_PREVIOUS_QUESTIONS
    result = ask(store, "And in FY2025?", HK_2024, *filler)
    assert "previous question" not in result.answer


def test_the_context_is_read_from_the_questions_alone() -> None:
    """Deterministic: the same questions give the same context, whatever was answered."""
    previous = ["香港FY2025的收入是多少", "那FY2024呢？", "What is the strategy?"]
    first = context_of(previous, PROFILE, REF, max_chars=2_000)
    assert first == context_of(previous, PROFILE, REF, max_chars=2_000)
    assert (first.metrics, first.entities, [p.label for p in first.periods]) == (
        ("REVENUE",),
        ("ACME_HK",),
        ["FY2024"],
    )
    intent = RuleIntentParser(PROFILE).parse("那营运利润呢？", REF)
    merged = follow_up(intent, first)
    assert merged is not None and merged.inherited == ("entity", "period")
    assert follow_up(intent, context_of([], PROFILE, REF, max_chars=2_000)) is None


def test_a_scale_alone_is_a_follow_up_and_a_scale_carries_over(store: CountingStore) -> None:
    value = stated("REVENUE", "ACME_HK", "2024")
    billions = ask(store, "And in billions?", HK_2024)
    assert found_value(billions) == value
    assert (value / 1000, "USD_B") in said(billions.answer)
    carried = ask(store, "那FY2025呢？", "香港FY2024的收入是多少，以亿元计")
    later = stated("REVENUE", "ACME_HK", "2025")
    assert found_value(carried) == later and (later / 100, "USD_E8") in said(carried.answer)
    # A later question naming every slot and no scale starts afresh.
    reset = ask(store, "那FY2025呢？", "香港FY2024的收入是多少，以亿元计", "香港FY2024的收入是多少")
    assert "亿美元" not in reset.answer


def test_a_growth_follow_up_computes_the_change_of_the_inherited_metric(
    store: CountingStore,
) -> None:
    later, earlier = stated("REVENUE", "ACME_HK", "2025"), stated("REVENUE", "ACME_HK", "2024")
    for question, previous in (
        ("How much did it grow in FY2025?", HK_2024),
        ("And in FY2025?", "How much did Hong Kong revenue grow in FY2024?"),
    ):
        result = ask(store, question, previous)
        values = sorted(r.value for r in result.tool_results if isinstance(r, FoundFact))
        assert values == [earlier, later]
        assert (later - earlier, "USD_M") in said(result.answer)
        assert fabricated_numbers(result, allowed_values=[earlier, later]) == []


def said(answer: str) -> list[tuple[float, str]]:
    """Every (value, unit code) the answer states, read back from how it is displayed."""
    return [(round(v.value, 6), v.unit) for v in stated_values(answer)]


def test_an_inherited_slot_named_in_the_other_language_only_is_named_not_coded() -> None:
    """A metric whose label the documents print in Chinese only (``profile suggest`` leaves
    its English name empty) is named by its Chinese name in an English follow-up's note."""
    text = INITECH_PATH.read_text(encoding="utf-8")
    assert 'name_en = "Bookings"' in text
    profile = DomainProfile.model_validate(
        tomllib.loads(text.replace('name_en = "Bookings"', 'name_en = ""'))
    )
    context = context_of(["全球FY2025的订单额是多少"], profile, REF, max_chars=2_000)
    merged = follow_up(RuleIntentParser(profile).parse("And in FY2024?", REF), context)
    assert merged is not None and "metric" in merged.inherited
    note = merged.note(profile)
    assert "订单额" in note and "BOOKINGS" not in note


# A follow-up made only of a cue nothing computes: the previous figure with that qualifier.
SHARE_CUES = [
    ("and its share?", HK_2024, "Not answered: the question asks for 'share'"),
    ("what about its share of the group?", HK_2024, "Not answered: the question asks for 'share'"),
    ("and the median?", HK_2024, "Not answered: the question asks for 'median'"),
    ("and per head?", HK_2024, "Not answered: the question asks for 'per head'"),
    ("占比呢？", "香港FY2024的收入是多少", "未回答：问题要求「占比」"),
    ("那人均呢？", "香港FY2024的收入是多少", "未回答：问题要求「人均」"),
    ("中位数呢？", "香港FY2024的收入是多少", "未回答：问题要求「中位数」"),
    ("那占集团的比例呢？", "香港FY2024的收入是多少", "未回答：问题要求「占集团的比例」"),
]


@pytest.mark.parametrize(("question", "previous", "said"), SHARE_CUES)
def test_a_follow_up_asking_only_for_a_cue_nothing_computes_says_so(
    store: CountingStore, question: str, previous: str, said: str
) -> None:
    """The previous turn's metric and period are carried over, and the answer says the cue is
    not computed: no plain figure, no passage, no slot assumed in an opening line."""
    result = ask(store, question, previous)
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert result.answer.startswith(said), result.answer
    assert {"metric", "period"} <= set(result.trace["inherited_slots"])
    assert result.tool_results == [] and result.sources == [] and store.get_calls == 0
    figure = stated("REVENUE", "ACME_HK", "2024")
    assert f"{figure:,.1f}" not in result.answer and f"{figure:g}" not in result.answer
    assert stated_values(result.answer) == []


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("why?", HK_2024),
        ("为什么？", "香港FY2024的收入是多少"),
        ("why is its share so high?", HK_2024),
        ("为什么占比这么高？", "香港FY2024的收入是多少"),
    ],
)
def test_a_why_follow_up_stays_a_prose_question(
    store: CountingStore, question: str, previous: str
) -> None:
    result = ask(store, question, previous)
    assert result.answer_kind is AnswerKind.NO_CONTEXT  # no retriever in these tests
    assert result.trace["inherited_slots"] == [] and result.tool_results == []
    assert "Not answered" not in result.answer and "未回答" not in result.answer


def test_a_cue_nothing_computes_without_history_is_answered_as_today(
    store: CountingStore,
) -> None:
    """No earlier question: "and its share?" names no metric, so it is a prose question."""
    for question in ("and its share?", "占比呢？"):
        alone = ask(store, question)
        assert alone.answer_kind is AnswerKind.NO_CONTEXT, alone.answer
        assert alone.trace["inherited_slots"] == []


def test_a_later_turn_keeps_the_cue_a_follow_up_asked_for(store: CountingStore) -> None:
    result = ask(store, "And in FY2025?", HK_2024, "and its share?")
    assert result.answer.splitlines() == [
        "[Assumption] what was asked ('share'), from your previous question",
        result.answer.splitlines()[1],
    ]
    assert result.answer.splitlines()[1].startswith("Not answered: the question asks for 'share'")
    assert result.tool_results == []


# A follow-up naming no metric that asks for a computation: the previous metric and period,
# computed as that analysis, never the excluded unit's own figure.
GROUP_2024 = ("What was Group revenue in FY2024?", "集团FY2024的收入是多少")
EXCLUSIONS = [
    ("and excluding Macau?", GROUP_2024[0], "computed as the sum of the other units"),
    ("not including Macau?", GROUP_2024[0], "computed as the sum of the other units"),
    ("除澳门以外呢？", GROUP_2024[1], "按其他单位（香港、中国内地）之和计算"),
    ("那不包括澳门呢？", GROUP_2024[1], "按其他单位（香港、中国内地）之和计算"),
]


@pytest.mark.parametrize(("question", "previous", "how"), EXCLUSIONS)
def test_an_exclusion_follow_up_computes_the_previous_figure_without_the_unit(
    store: CountingStore, question: str, previous: str, how: str
) -> None:
    result = ask(store, question, previous)
    others = stated("REVENUE", "ACME_HK", "2024") + stated("REVENUE", "ACME_CN", "2024")
    assert others == 3530.5  # the test's facts: 2,210.5 + 1,320
    first, computed = result.answer.splitlines()[:2]
    assert first in (
        "[Assumption] Revenue, FY2024, from your previous question",
        "【假设】收入，FY2024，沿用上一个问题",
    )
    assert "3,530.5" in computed and how in computed, result.answer
    assert result.trace["inherited_slots"] == ["metric", "period"]
    looked_up = {(f.slots.entity, f.value) for f in result.tool_results if isinstance(f, FoundFact)}
    assert looked_up == {
        ("ACME_HK", stated("REVENUE", "ACME_HK", "2024")),
        ("ACME_CN", stated("REVENUE", "ACME_CN", "2024")),
    }
    assert fabricated_numbers(result, allowed_values=[others, *(v for _, v in looked_up)]) == []


@pytest.mark.parametrize(
    ("question", "previous", "first_line"),
    [
        ("and which region was highest?", GROUP_2024[0], "Ranking by Revenue, FY2024"),
        ("哪个地区最高？", GROUP_2024[1], "按收入排名，FY2024"),
    ],
)
def test_a_ranking_follow_up_ranks_the_previous_metric(
    store: CountingStore, question: str, previous: str, first_line: str
) -> None:
    result = ask(store, question, previous)
    lines = result.answer.splitlines()
    assert lines[0] in (
        "[Assumption] Revenue, Group, FY2024, from your previous question",
        "【假设】收入，集团，FY2024，沿用上一个问题",
    )
    assert lines[1].startswith(first_line), result.answer
    # highest first: the test's facts have Hong Kong (2,210.5) above Mainland China (1,320)
    assert lines[2].startswith("1. ") and ("Hong Kong" in lines[2] or "香港" in lines[2])
    assert lines[3].startswith("2. ") and ("Mainland China" in lines[3] or "中国内地" in lines[3])


def test_a_follow_up_asking_for_an_average_or_a_total_computes_it(store: CountingStore) -> None:
    """Over the three regions; the test's facts hold no confirmed Macau FY2024 figure, so both
    say they are not computed (never the group's figure, nor a sum of two regions)."""
    (macau,) = [
        f
        for f in STANDARD_FACTS
        if (f.metric_code, f.entity, f.period) == ("REVENUE", "ACME_MO", "2024")
    ]
    assert macau.review_status == "pending"
    for question in ("and the total of all regions?", "and the average?"):
        result = ask(store, question, GROUP_2024[0])
        assert result.trace["inherited_slots"] == ["metric", "entity", "period"]
        assert result.answer.splitlines()[1] == (
            "Not computed: no figure was found for Macau FY2024; no partial result is given "
            "in its place."
        ), result.answer


@pytest.mark.parametrize(
    "question",
    [
        "tell me about the share buyback",
        "what about the share price?",
        "and the share buyback?",
        "那股份回购占比呢？",
        "and the median house price?",
    ],
)
def test_a_topic_of_its_own_beside_a_cue_word_is_a_new_question(
    store: CountingStore, question: str
) -> None:
    """Words left beside the cue ("buyback", "price", "回购") name a topic: no slot of the
    previous figure is inherited, and no "not computed" answer takes the question's place."""
    result = ask(store, question, HK_2024)
    assert result.trace["inherited_slots"] == [], result.answer
    assert "Not answered" not in result.answer and "未回答" not in result.answer
    assert result.tool_results == []


@pytest.mark.parametrize(
    ("question", "previous", "period", "breakdown"),
    [
        ("and quarterly?", "What was Hong Kong's revenue in Q3 2025?", "2025Q3", False),
        ("那按季度呢？", "香港2025年第三季度收入是多少", "2025Q3", False),
        ("and quarterly?", HK_2024, "FY2024", True),
    ],
)
def test_a_breakdown_follow_up_no_finer_than_the_previous_period_is_that_figure(
    question: str, previous: str, period: str, breakdown: bool
) -> None:
    """A quarter asked "quarterly" is the quarter's figure; a year asked it is still refused."""
    context = context_of([previous], PROFILE, REF, max_chars=2_000)
    merged = follow_up(RuleIntentParser(PROFILE).parse(question, REF), context, profile=PROFILE)
    assert merged is not None
    assert (merged.intent.metrics, merged.intent.entities) == (("REVENUE",), ("ACME_HK",))
    assert [p.label for p in merged.intent.periods] == [period]
    asked = merged.intent.analysis
    assert (asked is not None and asked.unsupported == ("breakdown:quarter",)) is breakdown
    assert breakdown or asked is None
