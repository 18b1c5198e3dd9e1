"""Fiscal calendars that do not end in December: split years, dates and "year ended" phrases.

Expectations are worked out by hand from the naming rule docs/profile.md states: a fiscal year
is named by the calendar year it ends in (year end March: FY2025 = April 2024 – March 2025).
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.profile import period_rules
from ragspine.profile.periods import FiscalCalendar, find_periods

REF = date(2026, 11, 26)
MARCH = FiscalCalendar(3)
JUNE = FiscalCalendar(6)
SEPTEMBER = FiscalCalendar(9)
DECEMBER = FiscalCalendar(12)


def read(text: str, calendar: FiscalCalendar) -> tuple[list[tuple[str, str]], list[str]]:
    """(label, matched text) of each period found, and the texts that name no period."""
    unnamed: list[tuple[int, int]] = []
    found = find_periods(text, REF, calendar, unnamed=unnamed)
    return [(m.period.label, text[m.start : m.end]) for m in found], [text[a:b] for a, b in unnamed]


@pytest.mark.parametrize(
    ("text", "calendar", "label"),
    [
        # Split years name the year ending in their second year.
        ("FY2024/25", MARCH, "FY2025"),
        ("2024/25", MARCH, "FY2025"),
        ("2024-25", MARCH, "FY2025"),
        ("2024–25", JUNE, "FY2025"),
        ("24/25财年", MARCH, "FY2025"),
        ("2024/25财年", SEPTEMBER, "FY2025"),
        ("FY 2024/25", JUNE, "FY2025"),
        ("fiscal year 2024/25", MARCH, "FY2025"),
        ("FY1999/00", MARCH, "FY2000"),
        # Quarters and halves of a split year.
        ("Q1 FY2024/25", MARCH, "2025Q1"),
        ("FY2024/25 Q3", MARCH, "2025Q3"),
        ("2024/25 H1", MARCH, "2025H1"),
        ("H2 2024/25", JUNE, "2025H2"),
        ("2024/25财年上半年", MARCH, "2025H1"),
        ("2024/25财年第三季度", MARCH, "2025Q3"),
        ("the first half of FY2024/25", MARCH, "2025H1"),
        ("third quarter of fiscal 2024/25", SEPTEMBER, "2025Q3"),
        # "Year ended" phrases name the period ending in that month.
        ("year ended 31 March 2025", MARCH, "FY2025"),
        ("For the year ended March 31, 2025", MARCH, "FY2025"),
        ("fiscal year ended 30 June 2024", JUNE, "FY2024"),
        ("year ended 30 September 2024", SEPTEMBER, "FY2024"),
        ("Year ended December 31, 2019", DECEMBER, "FY2019"),
        ("截至2025年3月31日止年度", MARCH, "FY2025"),
        ("截至2019年12月31日止年度", DECEMBER, "FY2019"),
        ("six months ended 30 September 2024", MARCH, "2025H1"),
        ("six months ended 31 December 2024", JUNE, "2025H1"),
        ("截至2024年9月30日止六个月", MARCH, "2025H1"),
        ("three months ended 31 December 2024", MARCH, "2025Q3"),
        ("截至2024年6月30日止三个月", DECEMBER, "2024Q2"),
        ("截至12月31日止年度 2019年", DECEMBER, "FY2019"),
        ("截至3月31日止年度 2025年度", MARCH, "FY2025"),
        # A date alone names the longest period ending in its month, else its fiscal year.
        ("as at 31 March 2025", MARCH, "FY2025"),
        ("As of March 31, 2025", MARCH, "FY2025"),
        ("December 31, 2019", DECEMBER, "FY2019"),
        ("31 Dec 2019", DECEMBER, "FY2019"),
        ("Dec. 31, 2019", DECEMBER, "FY2019"),
        ("2019年12月31日", DECEMBER, "FY2019"),
        ("于2025年3月31日", MARCH, "FY2025"),
        ("2019-12-31", DECEMBER, "FY2019"),
        ("30 September 2024", MARCH, "2025H1"),
        ("December 31, 2019", MARCH, "2020Q3"),
        ("30 June 2024", MARCH, "2025Q1"),
        ("15 May 2024", MARCH, "FY2025"),
        ("于2024年1月1日", DECEMBER, "FY2024"),
        ("31 March 2025", JUNE, "2025Q3"),
        # Header spellings of a plain fiscal year.
        ("Fiscal 2019", DECEMBER, "FY2019"),
        ("fiscal year 2019", MARCH, "FY2019"),
        ("Financial year 2019", JUNE, "FY2019"),
        ("FY 2019", DECEMBER, "FY2019"),
        ("2019年度", DECEMBER, "FY2019"),
    ],
)
def test_one_period_under_the_calendar(text: str, calendar: FiscalCalendar, label: str) -> None:
    assert read(text, calendar) == ([(label, text)], [])


@pytest.mark.parametrize(
    ("text", "calendar"),
    [
        # No December fiscal year spans two calendar years.
        ("FY2024/25", DECEMBER),
        ("2024-25", DECEMBER),
        ("24/25财年", DECEMBER),
        ("Q1 FY2024/25", DECEMBER),
        # The stated year end contradicts the calendar's.
        ("year ended 31 December 2019", MARCH),
        ("Year ended March 31, 2025", DECEMBER),
        ("截至2019年12月31日止年度", JUNE),
        ("截至12月31日止年度 2019年", MARCH),
        ("six months ended 31 March 2025", JUNE),
        # Nine months is no fiscal period at all.
        ("nine months ended 30 September 2024", DECEMBER),
        # Not two consecutive years: neither a split year nor any one year.
        ("FY2024/26", MARCH),
        # A day no month has.
        ("35 March 2025", MARCH),
    ],
)
def test_an_expression_the_calendar_cannot_name_is_no_period(
    text: str, calendar: FiscalCalendar
) -> None:
    assert read(text, calendar) == ([], [text])


def test_a_split_year_is_never_read_as_its_first_year() -> None:
    for calendar in (MARCH, JUNE, SEPTEMBER, DECEMBER):
        labels = [label for label, _ in read("revenue FY2024/25 and 2024-25", calendar)[0]]
        assert "FY2024" not in labels


def test_dates_in_a_sentence_take_their_words_with_them() -> None:
    found, unnamed = read("Revenue for the year ended 31 March 2025 rose", MARCH)
    assert found == [("FY2025", "for the year ended 31 March 2025")]
    assert unnamed == []
    found, _ = read("Cash as at December 31, 2019 and 2018", DECEMBER)
    assert found == [("FY2019", "as at December 31, 2019"), ("FY2018", "2018")]


def test_ranges_and_plain_years_keep_their_meaning() -> None:
    # A four-digit second year is a range's end, not a split year.
    found, unnamed = read("2021-2025", MARCH)
    assert found == [("FY2021", "2021"), ("FY2025", "2025")]
    assert unnamed == []
    # An amount with a slash is no year at all.
    assert read("2,024/25", MARCH) == ([], [])
    # A month and a year without a day name the fiscal year holding the month, never a half
    # or quarter ending in it.
    assert read("March 2025", MARCH)[0] == [("FY2025", "March 2025")]
    assert read("Revenue June 2025", DECEMBER)[0] == [("FY2025", "June 2025")]


@pytest.mark.parametrize(
    ("text", "calendar", "label"),
    [
        # A month of a year names the fiscal year holding it: under a June year end December
        # 2024 lies in FY2025 (it was read as the bare year, FY2024, a year already closed).
        ("Gross written premiums December 2024", JUNE, "FY2025"),
        ("Premiums Dec 2024", JUNE, "FY2025"),
        ("Premiums Dec-2024", JUNE, "FY2025"),
        ("2024年12月的保费", JUNE, "FY2025"),
        ("Revenue Dec. 2024", MARCH, "FY2025"),
        ("Revenue April 2024", MARCH, "FY2025"),
        ("Revenue March 2024", MARCH, "FY2024"),
        # Under a December year end the fiscal year is the calendar year, as before.
        ("Revenue September 2024", DECEMBER, "FY2024"),
        ("2024年9月的收入", DECEMBER, "FY2024"),
        # A period "ended" in a month written without its day is read as with the day.
        ("six months ended December 2024", JUNE, "2025H1"),
        ("截至2024年12月止六个月", JUNE, "2025H1"),
        ("year ended June 2025", JUNE, "FY2025"),
        ("six months ended June 2025", DECEMBER, "2025H1"),
        ("three months ended March 2025", DECEMBER, "2025Q1"),
        # A date written with hyphens is a date.
        ("as at 31-Dec-2024", JUNE, "2025H1"),
        ("for the twelve months ended 30-Jun-2024", JUNE, "FY2024"),
        ("31-Dec-2024", DECEMBER, "FY2024"),
    ],
)
def test_a_month_of_a_year_is_read_under_the_calendar(
    text: str, calendar: FiscalCalendar, label: str
) -> None:
    found, unnamed = read(text, calendar)
    assert [found_label for found_label, _ in found] == [label]
    assert unnamed == []


@pytest.mark.parametrize(
    ("text", "calendar"),
    [
        # No fiscal period of the calendar ends in that month: asked back, never a bare year.
        ("year ended June 2025", MARCH),
        ("year ended March 2025", DECEMBER),
        ("six months ended December 2024", MARCH),
        ("for the twelve months ended 30-Jun-2024", DECEMBER),
    ],
)
def test_a_period_ended_in_a_month_no_period_ends_in_names_none(
    text: str, calendar: FiscalCalendar
) -> None:
    assert read(text, calendar) == ([], [text])


def test_a_month_range_or_a_date_is_no_month_of_a_year() -> None:
    # "Jan-Dec 2024" is a run of months, not December 2024 nor the bare year 2024 (under a June
    # year end it straddles two fiscal years): like "2025年1月-9月", a part of a year read by
    # ``period_parts`` or asked back, never the fiscal year around it.
    assert read("Revenue Jan-Dec 2024", JUNE) == ([], ["Jan-Dec 2024"])
    assert read("Revenue Jan - Dec 2024", JUNE) == ([], ["Jan - Dec 2024"])
    # 2025年1月-9月 is a part of a year (asked back), 2024年12月31日 a date.
    assert read("2025年1月-9月", JUNE) == ([], ["2025年1月-9月"])
    assert read("2024年12月31日", JUNE)[0] == [("2025H1", "2024年12月31日")]


def test_period_ending_and_period_of_month() -> None:
    assert MARCH.period_ending(2025, 3, 12) is not None
    assert MARCH.period_ending(2024, 12, 12) is None
    assert str(MARCH.period_ending(2024, 9, 6)) == "Period(year=2025, type='H1')"
    assert MARCH.period_ending(2024, 9, 9) is None
    assert JUNE.period_of_month(2024, 12).label == "2025H1"
    assert SEPTEMBER.period_of_month(2024, 11).label == "FY2025"
    assert SEPTEMBER.period_of_month(2024, 12).label == "2025Q1"
    assert not DECEMBER.splits_years
    assert FiscalCalendar(1).splits_years


_FRAGMENTS = [
    "FY2024/25",
    "2024-25",
    "24/25财年",
    "year ended 31 March 2025",
    "截至2025年3月31日止年度",
    "as at December 31, 2019",
    "31 Dec 2019",
    "2019-1-5",
    "2019.12.31",
    "2019年12月31日",
    "截至12月31日止年度",
    "Q3",
    "FY2025",
    "2021-2025",
    "revenue",
    "March",
    "may",
    "market",
    "去年",
    "last year",
    " ",
    ", ",
    "1,234.56",
    "-",
    "/",
    "25",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=8), st.sampled_from([MARCH, DECEMBER]))
def test_skipping_the_date_rules_when_no_date_can_match_changes_nothing(
    parts: list[str], calendar: FiscalCalendar
) -> None:
    # Every rule tried everywhere, as one alternation would: the reference the shortcut in
    # find_periods (date rules only where may_hold_date finds a hint) must agree with.
    text = "".join(parts)
    expected = [m.span() for m in period_rules.SCANNER.finditer(text)]
    unnamed: list[tuple[int, int]] = []
    found = find_periods(text, REF, calendar, unnamed=unnamed)
    assert sorted([(m.start, m.end) for m in found] + unnamed) == expected
