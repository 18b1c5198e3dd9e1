"""Halves and quarters beside a fiscal-year label, in the forms decks write them.

"1H FY2025" used to be read as FY2025 — the full year's figure for a question about a half —
because only "H1 FY2025" and "1H 2025" were rules. Expected periods are written by hand.
"""

from __future__ import annotations

import pytest

from ragspine.profile.fiscal_calendar import FiscalCalendar
from ragspine.profile.periods import Period, find_periods


@pytest.mark.parametrize(
    ("text", "year_end", "period"),
    [
        ("1H FY2025", 12, Period(2025, "H1")),
        ("2H FY2024", 12, Period(2024, "H2")),
        ("3Q FY2025", 12, Period(2025, "Q3")),
        ("1Q FY25", 12, Period(2025, "Q1")),
        ("1HFY26", 12, Period(2026, "H1")),
        ("FY2025 1H", 12, Period(2025, "H1")),
        ("FY25 3Q", 12, Period(2025, "Q3")),
        ("2025 2H", 12, Period(2025, "H2")),
        # split fiscal years under a March year end: named by the year they end in
        ("1H FY2025/26", 3, Period(2026, "H1")),
        ("3Q FY2024/25", 3, Period(2025, "Q3")),
        ("FY2025/26 2H", 3, Period(2026, "H2")),
        # a two-digit fiscal year, a dash or a slash beside the letter and its count
        ("first half FY25", 12, Period(2025, "H1")),
        ("3rd quarter of FY25", 12, Period(2025, "Q3")),
        ("FY25 first half", 12, Period(2025, "H1")),
        ("FY25 H1", 12, Period(2025, "H1")),
        ("FY25Q3", 12, Period(2025, "Q3")),
        ("FY25-H2", 12, Period(2025, "H2")),
        ("2025-Q3", 12, Period(2025, "Q3")),
        ("Q3/2025", 12, Period(2025, "Q3")),
        ("Q3-25", 12, Period(2025, "Q3")),
    ],
)
def test_a_half_or_quarter_beside_a_fiscal_year_is_that_part(
    text: str, year_end: int, period: Period
) -> None:
    found = find_periods(f"revenue in {text}", calendar=FiscalCalendar(year_end))
    assert [m.period for m in found] == [period]


@pytest.mark.parametrize("text", ["2025 10 H", "in 2025 1 quarter"])
def test_other_numbers_beside_a_year_are_no_part_of_it(text: str) -> None:
    assert [m.period for m in find_periods(text)] == [Period(2025, "FY")]


@pytest.mark.parametrize(
    ("text", "quarters"),
    [
        ("Jan-Sep 2025", ["2025Q1", "2025Q2", "2025Q3"]),
        ("January to June 2025", ["2025Q1", "2025Q2"]),
        ("Apr–Sep 2025", ["2025Q2", "2025Q3"]),
        ("Jan-Feb 2025", []),  # no whole quarter: asked about
    ],
)
def test_a_run_of_months_with_its_year_is_no_full_year(text: str, quarters: list[str]) -> None:
    # "Jan-Sep 2025" was read as FY2025: the full year's figure for a nine-month question.
    from datetime import date

    from ragspine.profile.period_parts import quarters_of

    calendar = FiscalCalendar(12)
    unnamed: list[tuple[int, int]] = []
    assert find_periods(text, calendar=calendar, unnamed=unnamed) == []
    assert unnamed == [(0, len(text))]
    assert [q.label for q in quarters_of(text, date(2026, 1, 1), calendar)] == quarters
