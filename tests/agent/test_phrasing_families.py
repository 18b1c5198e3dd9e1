"""Ways users write periods and multi-value questions, parsed and answered for any profile.

Families: interim / half-year words, ranges and "the past N years", channel breakdowns and two
named channels, growth against the year before, what-is / target questions, and questions with
no metric or one the profile does not define.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.intent import ParsedIntent, clarify_scope, parse_intent
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, ClarifyReason, Route
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import MAX_RANGE_YEARS, Period
from tests.agent.helpers import CountingStore
from tests.facts import fact
from tests.profiles import acme, initech

REF = date(2026, 11, 26)
FY = [Period(year, "FY") for year in range(2020, 2026)]


def parse(question: str, profile: DomainProfile | None = None) -> ParsedIntent:
    return parse_intent(question, REF, profile=profile or acme())


def labels(intent: ParsedIntent) -> list[str]:
    return [p.label for p in intent.periods]


# --- periods: interim and half-year words turn a year into its first half


@pytest.mark.parametrize(
    "question",
    [
        "香港2025年中期收入",
        "香港25年中期收入",
        "HK interim revenue 2025",
        "HK half-year revenue FY2025",
        "Hong Kong revenue for the 2025 half year",
        "香港2025半年度收入",
    ],
)
def test_interim_words_name_the_first_half(question: str) -> None:
    intent = parse(question)
    assert labels(intent) == ["2025H1"]
    assert intent.metrics == ("REVENUE",)


def test_an_interim_word_leaves_quarters_and_halves_alone() -> None:
    assert labels(parse("香港2025年下半年中期报告收入")) == ["2025H2"]


def test_interim_follows_the_fiscal_calendar_of_the_profile() -> None:
    # Initech's year ends in March: "interim FY2025" is its first fiscal half, and the last
    # fiscal year asked in November 2026 is FY2026.
    assert labels(parse("US bookings interim FY2025", initech())) == ["2025H1"]
    assert labels(parse("US bookings last fiscal year", initech())) == ["FY2026"]


# --- ranges


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("Group revenue FY2021 through FY2023", FY[1:4]),
        ("集团2021到2025年收入", FY[1:6]),
        ("集团2022-2024年净利润", FY[2:5]),
        ("group net profit from 2022 to 2024", FY[2:5]),
        ("集团近三年收入", FY[3:6]),
        ("group revenue over the past three years", FY[3:6]),
    ],
)
def test_a_range_lists_each_year(question: str, years: list[Period]) -> None:
    intent = parse(question)
    assert intent.periods == tuple(years)
    assert intent.long_range is None


def test_a_range_over_the_limit_is_asked_about_not_expanded() -> None:
    intent = parse("集团2000到2025年收入")
    assert intent.periods == ()
    assert intent.long_range == (Period(2000, "FY"), Period(2025, "FY"))
    result = clarify_scope(intent, REF, profile=acme())
    assert result.mode is ClarifyMode.ASK_FIRST
    assert result.reason is ClarifyReason.PERIOD_RANGE
    assert str(MAX_RANGE_YEARS) in result.question
    assert result.narrowing_options == ("FY2016-FY2025",)


# --- channels


@pytest.mark.parametrize(
    "question",
    ["香港FY2025各渠道新业务价值", "HK NBV by channel FY2025", "香港FY2025新业务价值按渠道"],
)
def test_a_breakdown_lists_every_channel_but_the_total(question: str) -> None:
    assert parse(question).channels == ("AGENCY", "BANCA", "BROKER", "DIGITAL")


def test_a_breakdown_in_another_profile_uses_its_channels() -> None:
    # Initech's default channel is DIRECT and it also has a TOTAL: the breakdown is the rest.
    assert parse("US bookings by channel FY2025", initech()).channels == ("DIRECT", "PARTNER")


def test_two_named_channels_are_both_kept() -> None:
    intent = parse("香港FY2025代理人渠道和银保渠道新业务价值")
    assert intent.channels == ("AGENCY", "BANCA")
    assert intent.channel == "AGENCY"


# --- growth against the year before


@pytest.mark.parametrize(
    "question",
    [
        "香港FY2025收入是多少？跟上一年比呢",
        "香港FY2025收入与上一财年相比",
        "HK revenue FY2025 compared with the year before",
        "HK revenue in FY2025 vs prior year",
        "HK revenue FY2025 — was it up, and by how much?",
        "HK revenue FY2025 versus a year earlier",
    ],
)
def test_growth_base_cues(question: str) -> None:
    intent = parse(question)
    assert intent.growth
    assert labels(intent) == ["FY2025"]


# --- what-is and target questions go to prose


@pytest.mark.parametrize(
    "question",
    [
        "What is 报行合一 and how does it affect Hong Kong?",
        "报行合一是什么",
        "What is the target for HK NBV?",
        "香港新业务价值的目标是什么",
        "What does NBV margin mean?",
    ],
)
def test_concept_questions_are_narrative(question: str) -> None:
    assert parse(question).route is Route.NARRATIVE


@pytest.mark.parametrize(
    "question", ["香港营运利润增长的原因是什么", "What is the reason HK revenue grew in FY2025?"]
)
def test_asking_what_the_reason_is_stays_a_why_question_about_the_figure(question: str) -> None:
    assert parse(question).route is Route.COMPOSITE


def test_a_target_question_that_asks_an_amount_gets_the_figure_and_the_prose() -> None:
    assert parse("HK NBV target for 2026: how much was NBV in FY2025?").route is Route.COMPOSITE
    assert parse("集团2026年的ROE目标是多少").route is Route.COMPOSITE


# --- no metric, or one the profile does not define


@pytest.mark.parametrize("question", ["给我香港2025财年的数", "HK numbers for fiscal 2024?"])
def test_numbers_without_a_metric_ask_which_metric(question: str) -> None:
    intent = parse(question)
    assert intent.route is Route.STRUCTURED
    result = clarify_scope(intent, REF, profile=acme())
    assert (result.mode, result.reason) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)


@pytest.mark.parametrize(
    ("question", "unknown"),
    [("香港FY2025综合成本率", "综合成本率"), ("香港FY2025的投资收益是多少", "投资收益")],
)
def test_a_metric_the_profile_does_not_define_is_named_and_asked_about(
    question: str, unknown: str
) -> None:
    intent = parse(question)
    assert intent.unknown_metrics == (unknown,)
    assert intent.unknown_entities == ()
    result = clarify_scope(intent, REF, profile=acme())
    assert (result.mode, result.reason) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)
    assert unknown in result.question


def test_an_unknown_metric_beside_a_known_one_is_still_asked_about() -> None:
    result = clarify_scope(parse("香港FY2025收入和综合成本率"), REF, profile=acme())
    assert result.mode is ClarifyMode.ASK_FIRST


# --- answers: each year and each channel a found fact with its source, changes computed


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    facts = [
        fact("REVENUE", "ACME_HK", "FY", "2023", 2000),
        fact("REVENUE", "ACME_HK", "FY", "2024", 2200),
        fact("REVENUE", "ACME_HK", "FY", "2025", 2420),
        *(
            fact(
                "NBV",
                "ACME_HK",
                "FY",
                "2025",
                value,
                channel=channel,
                source_doc_id="ACME_5Y.xlsx",
                source_locator=f"sheet=HK_Channels,cell=C{row}",
            )
            for row, (channel, value) in enumerate(
                (("AGENCY", 600), ("BANCA", 250), ("BROKER", 90)), start=2
            )
        ),
    ]
    return CountingStore(tmp_path / "facts.db", facts)


def ask(question: str, store: CountingStore, **kw: Any) -> AgentResult:
    return answer_question(question, store, MockProvider(), reference_date=REF, **kw)


def test_a_range_answers_each_year_with_its_source_and_yearly_changes(
    store: CountingStore,
) -> None:
    result = ask("Hong Kong revenue, FY2023 through FY2025", store)
    assert result.answer_kind is AnswerKind.FOUND
    assert [r.slots.period.label for r in result.tool_results] == ["FY2023", "FY2024", "FY2025"]
    assert len(result.sources) == 3
    assert "Change (FY2024 vs FY2023): +US$ 200 m (+10.00%)" in result.answer
    assert "Change (FY2025 vs FY2024): +US$ 220 m (+10.00%)" in result.answer
    assert fabricated_numbers(result, allowed_values=[2000, 2200, 2420]) == []


def test_a_breakdown_answers_each_channel_and_says_which_is_missing(
    store: CountingStore,
) -> None:
    result = ask("香港FY2025各渠道新业务价值", store)
    assert result.answer_kind is AnswerKind.PARTIAL
    found = {r.slots.channel: r.value for r in result.tool_results if r.status == "found"}
    assert found == {"AGENCY": 600, "BANCA": 250, "BROKER": 90}
    assert "查不到：新业务价值 / 香港 / FY2025（渠道 数字渠道）" in result.answer
    assert len(result.sources) == 3
    assert fabricated_numbers(result, allowed_values=[600, 250, 90]) == []


def test_two_channels_are_compared_by_channel(store: CountingStore) -> None:
    result = ask("HK agency and bancassurance NBV FY2025", store)
    assert (
        "Difference (Agency minus Bancassurance): +US$ 350 m (+140.00% relative to Bancassurance)"
        in result.answer
    )


def test_a_growth_follow_up_adds_the_year_before(store: CountingStore) -> None:
    result = ask("香港FY2025收入是多少？跟上一年比呢", store)
    assert [r.slots.period.label for r in result.tool_results] == ["FY2025", "FY2024"]
    assert "变化（FY2025 较 FY2024）：+220 百万美元（+10.00%）" in result.answer


def test_a_long_range_asks_first_without_a_lookup(store: CountingStore) -> None:
    result = ask("Hong Kong revenue from 2001 to 2025", store)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert store.get_calls == 0
    assert "FY2001" in result.answer and "FY2016-FY2025" in result.answer
