"""The fiscal calendar: which fiscal year, half or quarter a calendar month belongs to or ends.

Fiscal years are named by the calendar year they end in. With ``year_end_month = 3``, FY2025
runs from April 2024 to March 2025, its first half (2025H1) from April to September 2024 and
its third quarter (2025Q3) from October to December 2024; a split-year label such as
"FY2024/25" names the same year. With the default December year end, FY2025 is calendar 2025.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

PERIOD_TYPES: tuple[str, ...] = ("FY", "H1", "H2", "Q1", "Q2", "Q3", "Q4")


@dataclass(frozen=True, order=True)
class Period:
    year: int
    type: str  # one of PERIOD_TYPES

    @property
    def label(self) -> str:
        """FY2024, 2025H1, 2025Q3 — the form used in answers and tool arguments."""
        return f"FY{self.year}" if self.type == "FY" else f"{self.year}{self.type}"

    @property
    def period(self) -> str:
        return str(self.year)

    def previous_year(self) -> Period:
        """The same period one fiscal year earlier (the base of a year-on-year change)."""
        return self.years_later(-1)

    def preceding(self) -> Period:
        """The period just before, of the same length (the base of a quarter-on-quarter,
        环比, change): 2025Q2 before 2025Q3, 2024Q4 before 2025Q1, 2024H2 before 2025H1."""
        if self.type == "FY":
            return self.years_later(-1)
        kind, number = self.type[0], int(self.type[1])
        if number > 1:
            return Period(self.year, f"{kind}{number - 1}")
        return Period(self.year - 1, f"{kind}{2 if kind == 'H' else 4}")

    def years_later(self, years: int) -> Period:
        """The same period ``years`` fiscal years later (earlier when negative)."""
        return Period(self.year + years, self.type)


# Periods are values: the resolvers hand out one shared instance per period instead of
# building a frozen dataclass for every match.
shared_period = lru_cache(maxsize=4096)(Period)

# How many months a year, a half and a quarter span, longest first: a date that ends several
# periods (the year-end month also ends the second half and the fourth quarter) names the longest.
_LENGTHS = (12, 6, 3)


@dataclass(frozen=True)
class FiscalCalendar:
    """Fiscal years end in ``year_end_month`` and are named by the calendar year they end in."""

    year_end_month: int = 12

    def fiscal_year(self, day: date) -> int:
        return day.year if day.month <= self.year_end_month else day.year + 1

    def month_index(self, day: date) -> int:
        """0 for the first month of the fiscal year, 11 for the last."""
        return (day.month - self.year_end_month - 1) % 12

    def current_quarter(self, day: date) -> Period:
        return Period(self.fiscal_year(day), f"Q{self.month_index(day) // 3 + 1}")

    def previous_quarter(self, day: date) -> Period:
        current = self.current_quarter(day)
        number = int(current.type[1])
        if number == 1:
            return Period(current.year - 1, "Q4")
        return Period(current.year, f"Q{number - 1}")

    def latest_complete_year(self, day: date) -> Period:
        return Period(self.fiscal_year(day) - 1, "FY")

    @property
    def splits_years(self) -> bool:
        """Whether a fiscal year spans two calendar years ("FY2024/25" names one)."""
        return self.year_end_month != 12

    def period_end(self, period: Period) -> date:
        """The last day of a fiscal year, half or quarter (31 March 2025 ends FY2025 under a
        March year end, 30 September 2024 its first half)."""
        months = 12 if period.type == "FY" else (6 if period.type[0] == "H" else 3)
        last = months * (1 if period.type == "FY" else int(period.type[1]))  # fiscal month
        month = (self.year_end_month + last - 1) % 12 + 1
        year = period.year if month <= self.year_end_month else period.year - 1
        return date(year, month, calendar.monthrange(year, month)[1])

    def period_ending(self, year: int, month: int, months: int) -> Period | None:
        """The fiscal year (12), half (6) or quarter (3) of ``months`` months ending in
        calendar month ``year``-``month``; None when no such period of this calendar ends then
        ("year ended 31 December" under a March year end)."""
        day = date(year, month, 1)
        position = self.month_index(day) + 1  # 1..12 within the fiscal year
        if months not in _LENGTHS or position % months:
            return None
        kind = "FY" if months == 12 else f"{'H' if months == 6 else 'Q'}{position // months}"
        return shared_period(self.fiscal_year(day), kind)

    def period_of_month(self, year: int, month: int) -> Period:
        """The period a date in calendar month ``year``-``month`` names: the longest fiscal
        period ending in that month, else the fiscal year holding it (a date inside a quarter,
        "in force from 1 January 2024", dates something in that year, not a quarter's figure)."""
        for months in _LENGTHS:
            ending = self.period_ending(year, month, months)
            if ending is not None:
                return ending
        return shared_period(self.fiscal_year(date(year, month, 1)), "FY")
