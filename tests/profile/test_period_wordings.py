"""Period wordings the probe found misread: apostrophe years ("in '23"), "the latest quarter"
(``period_latest``) and parts of a year read as their quarters (``period_parts``).

Expected periods are written out by hand from the calendar, never read back from the parser.
"""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.profile.period_latest import HALF, QUARTER, find_latest
from ragspine.profile.period_parts import quarters_of
from ragspine.profile.periods import FiscalCalendar, Period, find_periods

REF = date(2026, 11, 26)


def labels(text: str) -> list[str]:
    return [m.period.label for m in find_periods(text, REF)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What was the grp ROE in '23?", ["FY2023"]),
        ("Macau operating profit in '24", ["FY2024"]),
        ("Group revenue in ’22", ["FY2022"]),
        ("revenue '25 vs '24", ["FY2025", "FY2024"]),
    ],
)
def test_an_apostrophe_year_is_the_two_digit_year(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_an_apostrophe_glued_to_a_word_or_an_amount_is_no_year() -> None:
    """Beside the years above, a possessive, a contraction or an amount stays no period."""
    assert labels("'24 revenue vs it's 25, HK's '23 rock'n'roll 24, '25% or '12.5") == [
        "FY2024",
        "FY2023",
    ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("What was HK revenue in the latest quarter?", QUARTER),
        ("the most recent quarter", QUARTER),
        ("latest reported quarter", QUARTER),
        ("the most recent half year", HALF),
        ("the latest half-year", HALF),
        ("the latest interim period", HALF),
        ("香港最近一个季度的新业务价值", QUARTER),
        ("中国内地最新一个季度收入", QUARTER),
        ("最近一季", QUARTER),
        ("最近半年", HALF),
        ("最新半年度", HALF),
        ("the last three quarters", ""),
        ("最近两个季度", ""),
    ],
)
def test_the_latest_quarter_or_half_is_found(text: str, kind: str) -> None:
    assert [m.kind for m in find_latest(text)] == [kind]


@pytest.mark.parametrize(
    "text", ["the last quarter", "上季度", "最近一年", "the latest year", "最近的消息", "最近季节"]
)
def test_other_relative_words_are_not_the_latest_quarter(text: str) -> None:
    assert find_latest(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the latest year", ["FY2025"]),
        ("the most recent fiscal year", ["FY2025"]),
        ("最新一年", ["FY2025"]),
    ],
)
def test_the_latest_year_is_the_latest_complete_fiscal_year(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


Q = [Period(2025, f"Q{n}") for n in (1, 2, 3, 4)]


@pytest.mark.parametrize(
    ("text", "quarters"),
    [
        ("2025年前三季度", Q[:3]),
        ("2025年1-9月", Q[:3]),
        ("2025年1月至6月", Q[:2]),
        ("2025年第一至第三季度", Q[:3]),
        ("截至2025年9月30日止九个月", Q[:3]),
        ("the first three quarters of 2025", Q[:3]),
        ("first nine months of fiscal 2025", Q[:3]),
        ("9M 2025", Q[:3]),
        ("9M2025", Q[:3]),
        ("Q1-Q3 2025", Q[:3]),
        ("2025 Q2 to Q3", Q[1:3]),
        ("for the nine months ended 30 September 2025", Q[:3]),
        ("nine months ended September 2025", Q[:3]),
        ("the nine months to September 2025", Q[:3]),
        ("截至2025年9月止九个月", Q[:3]),
        ("nine months 2025", Q[:3]),
        ("6 months of 2025", Q[:2]),
        ("9M25", Q[:3]),
        ("去年前两个季度", Q[:2]),
    ],
)
def test_a_run_of_whole_quarters_is_read_as_its_quarters(text: str, quarters: list[Period]) -> None:
    assert quarters_of(text, REF, FiscalCalendar()) == tuple(quarters)


@pytest.mark.parametrize(
    "text",
    [
        "前三季度",  # no year
        "2025年1-8月",  # ends inside a quarter
        "2025年2-6月",  # starts inside one
        "first twelve months of 2025",  # the whole year: its own figure, asked about
        "year to date",
        "LTM",
        "过去12个月",
    ],
)
def test_what_is_no_run_of_whole_quarters_of_a_named_year_stays_unnamed(text: str) -> None:
    assert quarters_of(text, REF, FiscalCalendar()) == ()


def test_a_part_of_a_year_follows_the_fiscal_calendar() -> None:
    """Under a March year end FY2026 runs April 2025 – March 2026: April to September 2025 is
    its first two quarters, January to September 2025 straddles two fiscal years."""
    march = FiscalCalendar(3)
    assert quarters_of("2025年4-9月", REF, march) == (Period(2026, "Q1"), Period(2026, "Q2"))
    assert quarters_of("2025年1-9月", REF, march) == ()
    assert quarters_of("nine months ended 31 December 2025", REF, march) == tuple(
        Period(2026, f"Q{n}") for n in (1, 2, 3)
    )
    # A month without its day closes the run itself, not the fiscal year holding it.
    assert quarters_of("nine months to December 2025", REF, march) == tuple(
        Period(2026, f"Q{n}") for n in (1, 2, 3)
    )
    assert quarters_of("six months ended September 2025", REF, march) == tuple(
        Period(2026, f"Q{n}") for n in (1, 2)
    )
