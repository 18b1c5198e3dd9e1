from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.profile.periods import (
    MAX_RANGE_YEARS,
    PERIOD_TYPES,
    FiscalCalendar,
    Period,
    find_periods,
    merge_ranges,
    normalize_period,
)

REF = date(2026, 11, 26)


def p(label: str) -> Period:
    """Period from its label, spelled out independently of the parser under test."""
    if label.startswith("FY"):
        return Period(int(label[2:]), "FY")
    return Period(int(label[:4]), label[4:])


def labels(text: str, day: date = REF, calendar: FiscalCalendar | None = None) -> list[str]:
    return [m.period.label for m in find_periods(text, day, calendar)]


def test_period_label_and_code() -> None:
    assert Period(2024, "FY").label == "FY2024"
    assert Period(2025, "H1").label == "2025H1"
    assert Period(2025, "Q3").label == "2025Q3"
    assert Period(2025, "Q3").period == "2025"
    assert Period(2025, "H2").previous_year() == Period(2024, "H2")


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("FY2024", "FY2024"),
        ("2024", "FY2024"),
        ("2024年", "FY2024"),
        ("2024财年", "FY2024"),
        ("2024年度", "FY2024"),
        ("24财年", "FY2024"),
        ("FY24", "FY2024"),
        ("FY 2024", "FY2024"),
        ("FY'24", "FY2024"),
        ("2025H1", "2025H1"),
        ("2025年上半年", "2025H1"),
        ("2025年下半年", "2025H2"),
        ("H1 2025", "2025H1"),
        ("1H25", "2025H1"),
        ("H2'24", "2024H2"),
        ("2025Q3", "2025Q3"),
        ("Q3 2025", "2025Q3"),
        ("2025年第三季度", "2025Q3"),
        ("2025年Q3", "2025Q3"),
        ("3Q25", "2025Q3"),
        ("FY2024Q3", "2024Q3"),
        ("Q3 of 2025", "2025Q3"),
        ("the third quarter of 2025", "2025Q3"),
        ("3rd quarter of fiscal 2025", "2025Q3"),
        ("the first half of 2025", "2025H1"),
        ("second half of FY2024", "2024H2"),
        # Hyphenated, after a comma, or with the year first: a quarter, never the whole year.
        ("the third-quarter of 2024", "2024Q3"),
        ("first-quarter 2025", "2025Q1"),
        ("fourth quarter, 2023", "2023Q4"),
        ("2025 first quarter", "2025Q1"),
        ("FY2024 second-half", "2024H2"),
        ("2024's first half", "2024H1"),
    ],
)
def test_absolute_forms(text: str, label: str) -> None:
    assert normalize_period(text, REF) == p(label)
    # The reference date never changes an absolute period.
    assert normalize_period(text, date(2019, 2, 1)) == p(label)


# (text, label at 2026-11-26, label at 2026-01-10)
RELATIVE = [
    ("今年", "FY2026", "FY2026"),
    ("本年度", "FY2026", "FY2026"),
    ("去年", "FY2025", "FY2025"),
    ("前年", "FY2024", "FY2024"),
    ("上半年", "2026H1", "2026H1"),
    ("下半年", "2026H2", "2026H2"),
    ("本季度", "2026Q4", "2026Q1"),
    ("上季度", "2026Q3", "2025Q4"),
    ("this year", "FY2026", "FY2026"),
    ("last year", "FY2025", "FY2025"),
    ("the year before last", "FY2024", "FY2024"),
    ("this quarter", "2026Q4", "2026Q1"),
    ("last quarter", "2026Q3", "2025Q4"),
    ("first half of last year", "2025H1", "2025H1"),
    ("the second half of this year", "2026H2", "2026H2"),
    ("H1 last year", "2025H1", "2025H1"),
    ("Q2 of last year", "2025Q2", "2025Q2"),
    ("去年上半年", "2025H1", "2025H1"),
    ("去年下半年", "2025H2", "2025H2"),
    ("前年第一季度", "2024Q1", "2024Q1"),
    ("今年Q2", "2026Q2", "2026Q2"),
    # Found by a probe: "大前年" was read as its "前年" (FY2024), and "N years ago" as no
    # period at all (the latest year assumed in its place).
    ("大前年", "FY2023", "FY2023"),
    ("两年前", "FY2024", "FY2024"),
    ("3年前", "FY2023", "FY2023"),
    ("a year ago", "FY2025", "FY2025"),
    ("two years ago", "FY2024", "FY2024"),
    ("3 fiscal years ago", "FY2023", "FY2023"),
    ("H1 two years ago", "2024H1", "2024H1"),
]


@pytest.mark.parametrize(("text", "late", "early"), RELATIVE)
def test_relative_forms_resolve_against_the_reference_date(
    text: str, late: str, early: str
) -> None:
    assert normalize_period(text, REF) == p(late)
    assert normalize_period(text, date(2026, 1, 10)) == p(early)


def test_relative_years_move_with_the_reference_year() -> None:
    assert normalize_period("去年", date(2031, 6, 30)) == Period(2030, "FY")
    assert normalize_period("last year", date(2000, 1, 1)) == Period(1999, "FY")


@pytest.mark.parametrize(
    "text",
    ["9999", "1702", "2024万", "2024 万元", "12.2024", "$2024", "2024.5", "2,024", "2024%", "1989"],
)
def test_numbers_that_are_not_periods(text: str) -> None:
    assert normalize_period(text, REF) is None
    assert find_periods(text, REF) == []


@pytest.mark.parametrize(
    "text",
    [
        "REVENUE是9999吗",
        "收入是1702吗",
        "收入约2024万",
        "revenue of 2024m",
        "revenue was 2024 million",
        "revenue of $2024",
        "增长了12.2024%",
        "ACME2024",
    ],
)
def test_amounts_in_sentences_are_not_periods(text: str) -> None:
    assert find_periods(text, REF) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("香港FY2025的REVENUE是多少", ["FY2025"]),
        ("2024年的收入是1702万", ["FY2024"]),
        ("FY2024收入为2024.5", ["FY2024"]),
        ("revenue in 2024.", ["FY2024"]),
        ("revenue for 2024, 2025", ["FY2024", "FY2025"]),
        ("香港FY2024和FY2025的收入", ["FY2024", "FY2025"]),
        ("2024年和2025年", ["FY2024", "FY2025"]),
        ("FY2024 vs FY2025", ["FY2024", "FY2025"]),
        ("What was HK revenue last year vs the year before last?", ["FY2025", "FY2024"]),
        ("Hong Kong NBV in the third quarter of 2025", ["2025Q3"]),
    ],
)
def test_find_periods_reads_left_to_right(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_find_periods_reports_spans() -> None:
    text = "香港FY2025的收入"
    (match,) = find_periods(text, REF)
    assert text[match.start : match.end] == "FY2025"


@pytest.mark.parametrize("raw", [None, "", "   ", "FY2024 revenue", "FY2024 FY2025", "收入"])
def test_normalize_period_wants_exactly_one_period_and_nothing_else(raw: str | None) -> None:
    assert normalize_period(raw, REF) is None


def test_normalize_period_ignores_surrounding_whitespace() -> None:
    assert normalize_period("  FY2024 ", REF) == Period(2024, "FY")


# --- fiscal calendar with the year ending in March: FY2026 runs April 2025 – March 2026.
MARCH = FiscalCalendar(year_end_month=3)


@pytest.mark.parametrize(
    ("day", "fiscal_year", "current", "previous", "latest"),
    [
        (date(2025, 4, 1), 2026, "2026Q1", "2025Q4", "FY2025"),
        (date(2025, 9, 30), 2026, "2026Q2", "2026Q1", "FY2025"),
        (date(2025, 10, 1), 2026, "2026Q3", "2026Q2", "FY2025"),
        (date(2026, 1, 10), 2026, "2026Q4", "2026Q3", "FY2025"),
        (date(2026, 3, 31), 2026, "2026Q4", "2026Q3", "FY2025"),
        (date(2026, 4, 1), 2027, "2027Q1", "2026Q4", "FY2026"),
        (date(2026, 11, 26), 2027, "2027Q3", "2027Q2", "FY2026"),
    ],
)
def test_fiscal_calendar_across_the_year_boundary(
    day: date, fiscal_year: int, current: str, previous: str, latest: str
) -> None:
    assert MARCH.fiscal_year(day) == fiscal_year
    assert MARCH.current_quarter(day) == p(current)
    assert MARCH.previous_quarter(day) == p(previous)
    assert MARCH.latest_complete_year(day) == p(latest)


def test_month_index_counts_from_the_first_fiscal_month() -> None:
    assert MARCH.month_index(date(2026, 4, 15)) == 0
    assert MARCH.month_index(date(2026, 3, 15)) == 11
    assert FiscalCalendar().month_index(date(2026, 1, 1)) == 0
    assert FiscalCalendar(6).month_index(date(2026, 7, 1)) == 0


def test_calendar_year_boundary_for_the_default_calendar() -> None:
    cal = FiscalCalendar()
    assert cal.previous_quarter(date(2026, 1, 10)) == Period(2025, "Q4")
    assert cal.latest_complete_year(date(2026, 12, 31)) == Period(2025, "FY")
    assert cal.latest_complete_year(date(2027, 1, 1)) == Period(2026, "FY")


@pytest.mark.parametrize(
    ("text", "day", "label"),
    [
        ("今年", date(2026, 3, 31), "FY2026"),
        ("今年", date(2026, 4, 1), "FY2027"),
        ("去年", date(2026, 4, 1), "FY2026"),
        ("last year", date(2026, 3, 31), "FY2025"),
        ("上季度", date(2026, 4, 1), "2026Q4"),
        ("last quarter", date(2026, 7, 1), "2027Q1"),
        ("本季度", date(2026, 1, 10), "2026Q4"),
        ("上半年", date(2026, 1, 10), "2026H1"),
        ("上半年", date(2026, 4, 1), "2027H1"),
        ("去年上半年", date(2026, 4, 1), "2026H1"),
        ("去年下半年", date(2026, 3, 31), "2025H2"),
        # An absolute period is never shifted by the calendar.
        ("FY2024", date(2026, 4, 1), "FY2024"),
        ("2025Q3", date(2026, 4, 1), "2025Q3"),
    ],
)
def test_relative_periods_follow_the_fiscal_calendar(text: str, day: date, label: str) -> None:
    assert normalize_period(text, day, MARCH) == p(label)


periods = st.builds(Period, st.integers(1990, 2099), st.sampled_from(PERIOD_TYPES))


@given(periods)
def test_label_round_trips(period: Period) -> None:
    assert normalize_period(period.label) == period


@given(periods, st.sampled_from(["香港{}的收入是多少", "What was revenue in {}?", "{}，谢谢"]))
def test_label_is_found_inside_a_question(period: Period, template: str) -> None:
    assert [m.period for m in find_periods(template.format(period.label), REF)] == [period]


@given(st.integers(0, 9999).filter(lambda n: not 1990 <= n <= 2099))
def test_a_bare_number_outside_the_year_range_is_never_a_period(number: int) -> None:
    assert find_periods(f"收入是{number}吗", REF) == []
    assert find_periods(f"revenue was {number}", REF) == []


# --- period phrasings users write: two-digit years, fiscal-year words, relative fiscal years


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("25年上半年", "2025H1"),
        ("24年下半年", "2024H2"),
        ("24年", "FY2024"),
        ("23年度", "FY2023"),
        ("25年第三季度", "2025Q3"),
        ("25年Q2", "2025Q2"),
        ("24年财年", "FY2024"),
        ("2024财政年度", "FY2024"),
        ("2023会计年度", "FY2023"),
        ("fiscal 2024", "FY2024"),
        ("Fiscal year 2023", "FY2023"),
        ("financial year 2022", "FY2022"),
        ("the 2024 fiscal year", "FY2024"),
        ("FY 2024", "FY2024"),
    ],
)
def test_year_forms_users_write(text: str, label: str) -> None:
    assert labels(text) == [label]


@pytest.mark.parametrize("text", ["10年来", "3年期", "15年间", "收入1702", "增长9年多"])
def test_durations_and_amounts_are_not_two_digit_years(text: str) -> None:
    assert labels(text) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("上一财年", "FY2025"),
        ("上个财年", "FY2025"),
        ("本财年", "FY2026"),
        ("上一年度", "FY2025"),
        ("last fiscal year", "FY2025"),
        ("the previous financial year", "FY2025"),
        ("prior fiscal year", "FY2025"),
        ("this fiscal year", "FY2026"),
    ],
)
def test_relative_fiscal_years(text: str, label: str) -> None:
    assert labels(text) == [label]


def test_relative_fiscal_years_follow_the_calendar() -> None:
    # A year ending in March: 2026-11-26 lies in FY2027, so the last fiscal year is FY2026.
    march = FiscalCalendar(3)
    assert labels("last fiscal year", REF, march) == ["FY2026"]
    assert labels("上一财年", date(2026, 2, 1), march) == ["FY2025"]


# --- several years: the latest N complete years and explicit ranges


def span(text: str, day: date = REF, calendar: FiscalCalendar | None = None) -> list[list[str]]:
    matches = merge_ranges(text, find_periods(text, day, calendar))
    return [[p.label for p in m.periods] for m in matches]


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("近三年", ["FY2023", "FY2024", "FY2025"]),
        ("最近两年", ["FY2024", "FY2025"]),
        ("过去5个财年", ["FY2021", "FY2022", "FY2023", "FY2024", "FY2025"]),
        ("the past three years", ["FY2023", "FY2024", "FY2025"]),
        ("over the last 2 fiscal years", ["FY2024", "FY2025"]),
    ],
)
def test_latest_complete_years(text: str, years: list[str]) -> None:
    assert span(text) == [years]


def test_latest_complete_years_follow_the_calendar() -> None:
    # Year ending in March, asked in November 2026: FY2026 (to March 2026) is the latest.
    assert span("近三年", REF, FiscalCalendar(3)) == [["FY2024", "FY2025", "FY2026"]]


@pytest.mark.parametrize(
    "text",
    [
        "FY2023 through FY2025",
        "2023到2025年",
        "2023年至2025年",
        "2023-2025",
        "2023–2025",
        "from 2023 to 2025",
        "FY2023 - FY2025",
        "fiscal 2023 until fiscal 2025",
    ],
)
def test_ranges_of_years(text: str) -> None:
    assert span(text) == [["FY2023", "FY2024", "FY2025"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # two years to compare, not a range
        ("compare 2021 to 2025", [["FY2021"], ["FY2025"]]),
        ("FY2025 vs FY2023", [["FY2025"], ["FY2023"]]),
        ("2023和2025年", [["FY2023"], ["FY2025"]]),
        # backwards, or not whole years
        ("2025到2023年", [["FY2025"], ["FY2023"]]),
        ("2024Q1到2024Q3", [["2024Q1"], ["2024Q3"]]),
    ],
)
def test_what_is_not_a_range(text: str, expected: list[list[str]]) -> None:
    assert span(text) == expected


def test_a_range_reports_how_many_years_it_spans() -> None:
    (match,) = merge_ranges("2000到2025年", find_periods("2000到2025年", REF))
    assert (match.first, match.period, match.years) == (p("FY2000"), p("FY2025"), 26)
    assert match.years > MAX_RANGE_YEARS


@pytest.mark.parametrize(
    "text", ["9M 2025", "前三季度 2025", "2025年1-9月", "Q1-Q3 2025", "YTD 2025", "年初至今"]
)
def test_a_part_of_a_year_is_a_period_expression_naming_no_period(text: str) -> None:
    """A table header such as "9M 2025" is read as one expression that maps to nothing (its
    column goes to review), never as FY2025."""
    unnamed: list[tuple[int, int]] = []
    found = find_periods(text, date(2026, 1, 1), FiscalCalendar(12), unnamed=unnamed)
    assert [m.period.label for m in found if m.period.year == 2025] == []
    assert unnamed


@pytest.mark.parametrize(
    "sample", [" 第1-2季度", " 1至3季度", " Q1-Q3 2025", " 2025年", " first half"]
)
def test_no_period_rule_begins_at_a_space(sample: str) -> None:
    """A rule that can begin at a space is tried at every position of a long blank run and
    scans the whole run each time (a heading padded with 50,000 spaces took a minute)."""
    import re

    from ragspine.profile.period_rules import alternatives

    begins_at_space = [a[:60] for a in alternatives() if re.match(a, sample, re.IGNORECASE)]
    assert begins_at_space == []


@pytest.mark.parametrize("text", ["24年前三季度", "5年前9个月", "FY25年前三季度"])
def test_a_year_before_the_first_months_of_it_is_no_count_of_years_ago(text: str) -> None:
    """ "24年前三季度" is the first three quarters of (20)24, never "24 years ago"."""
    assert all(match.period.year > 2019 for match in find_periods(text, REF))
