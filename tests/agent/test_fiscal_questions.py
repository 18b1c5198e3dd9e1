"""Questions under a fiscal calendar: split years, dates and "year ended" read as in headers.

Initech's fiscal year ends in March (FY2025 = April 2024 – March 2025); ACME's in December.
"""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.types import ClarifyMode, ClarifyReason
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from tests.profiles import acme, initech

REF = date(2026, 11, 26)


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("Bookings FY2024/25", Period(2025, "FY")),
        ("What were bookings in 2024/25?", Period(2025, "FY")),
        ("What were bookings in 2024-25?", Period(2025, "FY")),
        ("24/25财年订单额是多少", Period(2025, "FY")),
        ("What were bookings for the year ended 31 March 2025?", Period(2025, "FY")),
        ("截至2025年3月31日止年度的订单额", Period(2025, "FY")),
        ("Bookings as at 31 March 2025", Period(2025, "FY")),
        ("Bookings for the six months ended 30 September 2024", Period(2025, "H1")),
        ("Bookings in Q3 FY2024/25", Period(2025, "Q3")),
        ("Bookings Fiscal 2024", Period(2024, "FY")),
    ],
)
def test_march_year_end_questions(question: str, period: Period) -> None:
    intent = parse_intent(question, REF, profile=initech())
    assert intent.metric == "BOOKINGS"
    assert intent.periods == (period,)
    assert intent.unknown_entities == ()
    assert intent.unknown_periods == ()


@pytest.mark.parametrize(
    "question",
    [
        "What was revenue as at December 31, 2019?",
        "Revenue for the year ended December 31, 2019",
        "What was revenue on 31 Dec 2019?",
    ],
)
def test_month_names_in_dates_are_never_entities(question: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert intent.metric == "REVENUE"
    assert intent.periods == (Period(2019, "FY"),)
    assert intent.unknown_entities == ()


def test_a_month_alone_is_not_an_entity() -> None:
    intent = parse_intent("What was revenue in March?", REF, profile=acme())
    assert intent.unknown_entities == ()


def asked(question: str, profile: DomainProfile) -> tuple[tuple[Period, ...], str, str]:
    intent = parse_intent(question, REF, profile=profile)
    verdict = clarify_scope(intent, REF, profile=profile)
    assert verdict.mode is ClarifyMode.ASK_FIRST
    assert verdict.reason is ClarifyReason.UNKNOWN_PERIOD
    assert intent.unknown_entities == ()
    return intent.periods, intent.unknown_periods[0], verdict.question


def test_a_split_year_under_a_december_calendar_is_asked_about_never_fy2024() -> None:
    periods, unknown, question = asked("What was revenue in FY2024/25?", acme())
    assert periods == ()
    assert unknown == "FY2024/25"
    assert "December" in question and "FY2024/25" in question
    periods, unknown, question = asked("香港FY2024/25的收入", acme())
    assert periods == ()
    assert "12月" in question


def test_a_year_end_contradicting_the_calendar_is_asked_about() -> None:
    periods, unknown, question = asked(
        "What were bookings for the year ended 31 December 2019?", initech()
    )
    assert periods == ()
    assert unknown == "for the year ended 31 December 2019"
    assert "March" in question
    # The options offered are the latest complete fiscal years (FY2026 ends in March 2026).
    verdict = clarify_scope(
        parse_intent("Bookings for the year ended 31 December 2019", REF, profile=initech()),
        REF,
        profile=initech(),
    )
    assert verdict.narrowing_options == ("FY2026", "FY2025")


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("What was revenue for the first eight months of 2025?", "the first eight months of 2025"),
        ("Hong Kong revenue year to date", "year to date"),
        ("Hong Kong revenue LTM", "LTM"),
        ("香港前三季度收入是多少", "前三季度"),
        ("香港2025年1-8月收入", "2025年1-8月"),
        ("香港年初至今的收入", "年初至今"),
        ("香港过去12个月收入", "过去12个月"),
    ],
)
def test_a_part_of_a_year_is_asked_about_never_answered_for_the_year(
    question: str, unknown: str
) -> None:
    """Found by the sweep: "2025年前三季度" was read as FY2025 (its 前三季度 ignored) and
    answered with the full year's figure; "Q1-Q3 2025" as 2026Q1 and 2025Q3. A part of a year
    that is no run of whole quarters of a named year is still asked about
    (``test_part_years`` has the runs of quarters, summed)."""
    periods, asked_about, _ = asked(question, acme())
    assert periods == ()
    assert asked_about == unknown


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("How did revenue change from 2024Q1 to Q1 2025?", ["2024Q1", "2025Q1"]),
        ("Revenue Q1 2024 vs Q1 2025", ["2024Q1", "2025Q1"]),
        ("香港2025年第三季度收入", ["2025Q3"]),
        ("香港前年收入", ["FY2024"]),
        ("What was revenue in the first half of 2025?", ["2025H1"]),
    ],
)
def test_named_quarters_halves_and_years_stay_periods(question: str, labels: list[str]) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert [p.label for p in intent.periods] == labels
    assert intent.unknown_periods == ()
