"""A follow-up's period named from the previous turn's ("上一年呢？", "and the previous quarter?",
"去年同期呢？", "第二季度呢？"): counted from that period at its granularity, asked about when it
cannot be. Expected periods and values are the test's own, never the engine's output."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.conversation import context_of, follow_up
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.normalize import normalize_question
from ragspine.agent.parse import RuleIntentParser
from ragspine.agent.period_shift import find_shift, shifted_periods
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyReason, FoundFact
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.loader import load_profile
from ragspine.profile.periods import FiscalCalendar, Period
from tests.agent.helpers import CountingStore
from tests.facts import fact

REF = date(2026, 11, 26)
PROFILE = load_profile()

Q3_2025 = ("香港2025年第三季度收入是多少", "What was HK revenue in Q3 2025?")
H1_2025 = ("香港2025年上半年收入是多少", "What was Hong Kong revenue in the first half of 2025?")
FY_2025 = ("香港2025年营运利润是多少", "What was Hong Kong operating profit in FY2025?")


def merged_periods(question: str, *previous: str) -> list[str]:
    """The periods the follow-up is answered for, by label."""
    context = context_of(previous, PROFILE, REF, max_chars=2_000)
    intent = RuleIntentParser(PROFILE).parse(normalize_question(question), REF)
    merged = follow_up(intent, context, profile=PROFILE, day=REF)
    assert merged is not None, question
    assert merged.intent.raw_question == question  # the words the user typed, not the re-read
    return [p.label for p in merged.intent.periods]


@pytest.mark.parametrize(
    ("question", "previous", "expected"),
    [
        # a year back from a quarter or a half is the same quarter or half a year earlier
        ("上一年呢？", Q3_2025[0], "2024Q3"),
        ("前一年呢？", Q3_2025[0], "2024Q3"),
        ("去年同期呢？", H1_2025[0], "2024H1"),
        ("and a year earlier?", Q3_2025[1], "2024Q3"),
        ("What about the year before?", Q3_2025[1], "2024Q3"),
        ("and the same quarter last year?", Q3_2025[1], "2024Q3"),
        ("and the prior year?", H1_2025[1], "2024H1"),
        # and from a full year, the year before (never the year asked again)
        ("前一年呢？", FY_2025[0], "FY2024"),
        ("What about the year before?", FY_2025[1], "FY2024"),
        # a quarter or a half back or forward, across a year end
        ("and the previous quarter?", Q3_2025[1], "2025Q2"),
        ("上个季度呢？", Q3_2025[0], "2025Q2"),
        ("上一季度呢？", "香港2025年第一季度收入是多少", "2024Q4"),
        ("下个季度呢？", Q3_2025[0], "2025Q4"),
        ("and the previous half?", H1_2025[1], "2024H2"),
        ("and the following year?", FY_2025[1], "FY2026"),
        ("后一年呢？", "香港FY2024的营运利润是多少", "FY2025"),
        # a half or quarter named without its year is one of the previous period's year
        ("上半年呢？", "香港2025年下半年收入是多少", "2025H1"),
        ("下半年呢？", H1_2025[0], "2025H2"),
        ("第二季度呢？", Q3_2025[0], "2025Q2"),
        ("二季度呢？", Q3_2025[0], "2025Q2"),
        ("and Q2?", Q3_2025[1], "2025Q2"),
        ("and the second quarter?", Q3_2025[1], "2025Q2"),
        ("上半年呢？", FY_2025[0], "2025H1"),
    ],
)
def test_a_period_named_from_the_previous_one_is_counted_from_it(
    question: str, previous: str, expected: str
) -> None:
    assert merged_periods(question, previous) == [expected]


def test_shifts_chain_through_the_turns() -> None:
    """Each turn counts from the period the one before it settled."""
    assert merged_periods("上个季度呢？", Q3_2025[0], "上一年呢？") == ["2024Q2"]
    assert merged_periods("and the year before?", Q3_2025[1], "and Q2?") == ["2024Q2"]


@pytest.mark.parametrize(
    ("counted", "as_before", "previous", "expected"),
    [
        # "去年" / "last year" are today's last year; "上一年" / "the year before" count from
        # the previous question's
        ("上一年呢？", "去年呢？", "香港FY2023的营运利润是多少", ("FY2022", "FY2025")),
        (
            "What about the year before?",
            "and last year?",
            "What was Hong Kong operating profit in FY2023?",
            ("FY2022", "FY2025"),
        ),
        # a period of its own is kept
        ("前一年呢？", "那FY2023呢？", FY_2025[0], ("FY2024", "FY2023")),
        # every slot named: "previous quarter" is today's, "the quarter before" the previous one's
        (
            "What was Mainland China revenue the quarter before?",
            "What was Mainland China revenue in the previous quarter?",
            Q3_2025[1],
            ("2025Q2", "2026Q3"),
        ),
    ],
)
def test_today_s_relative_periods_and_named_ones_are_read_as_before(
    counted: str, as_before: str, previous: str, expected: tuple[str, str]
) -> None:
    context = context_of([previous], PROFILE, REF, max_chars=2_000)
    labels = []
    for question in (counted, as_before):
        intent = RuleIntentParser(PROFILE).parse(question, REF)
        merged = follow_up(intent, context, profile=PROFILE, day=REF)
        labels += [p.label for p in (merged.intent if merged is not None else intent).periods]
    assert tuple(labels) == expected


@pytest.mark.parametrize(
    "text",
    [
        "跟上一年比呢？",
        "How much did it grow compared with the year before?",
        "What was HK revenue in Q3 2025 and a year earlier?",
        "香港2025年第三季度收入",
        "the second quarter of 2025",
        "去年上半年呢？",
        "and last year?",
    ],
)
def test_a_growth_base_or_a_period_of_its_own_is_no_shift(text: str) -> None:
    assert find_shift(normalize_question(text), REF, FiscalCalendar()) is None


def test_a_step_the_previous_period_has_no_place_for_is_none() -> None:
    calendar = FiscalCalendar()
    quarter = find_shift("上个季度呢？", REF, calendar)
    half = find_shift("and the half before?", REF, calendar)
    part = find_shift("上半年呢？", REF, calendar)
    assert quarter is not None and half is not None and part is not None
    assert shifted_periods(quarter, (Period(2025, "FY"),)) is None
    assert shifted_periods(half, (Period(2025, "Q3"),)) is None
    assert shifted_periods(quarter, ()) is None
    assert shifted_periods(part, (Period(2024, "FY"), Period(2025, "FY"))) is None
    assert shifted_periods(half, (Period(2025, "H1"),)) == (Period(2024, "H2"),)


# The test's own facts: a quarter, the same quarter a year earlier, the quarter before, the
# full years; the full-year figures are what a follow-up must never be answered with.
FACTS = [
    fact("REVENUE", "ACME_HK", "Q3", "2025", 790),
    fact("REVENUE", "ACME_HK", "Q3", "2024", 718),
    fact("REVENUE", "ACME_HK", "Q2", "2025", 762),
    fact("REVENUE", "ACME_HK", "H1", "2025", 1512),
    fact("REVENUE", "ACME_HK", "H1", "2024", 1398),
    fact("REVENUE", "ACME_HK", "FY", "2025", 3105),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2850),
]
FULL_YEARS = (3105, 2850)


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db", FACTS)


def ask(store: CountingStore, question: str, *previous: str, **kw: Any) -> AgentResult:
    return answer_question(
        question, store, MockProvider(), reference_date=REF, previous=previous, **kw
    )


@pytest.mark.parametrize(
    ("question", "previous", "value", "note"),
    [
        ("上一年呢？", Q3_2025[0], 718, "【假设】收入，香港，2024Q3，沿用上一个问题"),
        ("去年同期呢？", H1_2025[0], 1398, "【假设】收入，香港，2024H1，沿用上一个问题"),
        (
            "and a year earlier?",
            Q3_2025[1],
            718,
            "[Assumption] Revenue, Hong Kong, 2024Q3, from your previous question",
        ),
        (
            "and the previous quarter?",
            Q3_2025[1],
            762,
            "[Assumption] Revenue, Hong Kong, 2025Q2, from your previous question",
        ),
    ],
)
def test_the_follow_up_is_answered_for_the_counted_period_only(
    store: CountingStore, question: str, previous: str, value: float, note: str
) -> None:
    result = ask(store, question, previous)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    (found,) = result.tool_results
    assert isinstance(found, FoundFact) and found.value == value
    assert result.answer.splitlines()[0] == note
    assert "period" in result.trace["inherited_slots"]
    assert fabricated_numbers(result, allowed_values=[value]) == []
    assert not any(f"{v:,}" in result.answer for v in FULL_YEARS)


@pytest.mark.parametrize(
    ("question", "previous", "said"),
    [
        (
            "上一年呢？",
            "香港的收入是多少",
            "「上一年」按上一个问题的期间推算，但上一个问题未指明期间",
        ),
        (
            "and the quarter before?",
            "What was Hong Kong revenue in FY2025?",
            '"the quarter before" is counted from the previous question\'s period, and the '
            "previous question's period (FY2025) has no such step",
        ),
        ("上个季度呢？", "香港2025年收入是多少", "「上个季度」按上一个问题的期间推算"),
    ],
)
def test_a_period_that_cannot_be_counted_from_the_previous_one_is_asked_about(
    store: CountingStore, question: str, previous: str, said: str
) -> None:
    result = ask(store, question, previous)
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert result.clarification.reason is ClarifyReason.UNKNOWN_PERIOD
    assert result.answer.startswith(said), result.answer
    assert result.tool_results == [] and store.get_calls == 0
