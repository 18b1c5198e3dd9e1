"""Reporting periods: parse absolute and relative period expressions into controlled codes.

A period is a granularity (``FY``, ``H1``/``H2``, ``Q1``..``Q4``) plus the fiscal year it belongs
to. Relative expressions (今年, last quarter, 去年上半年, last fiscal year …) resolve against a
reference date and the profile's fiscal calendar. A bare number is a period only when it reads as
one: a four-digit year in 1990–2099 that is not glued to other digits, decimals or units, or two
digits written with 年 ("25年上半年") — so "9999" in "…是9999吗" or "1702" is never a period.

A few expressions name several fiscal years: "近三年" / "the past three years" (the latest
complete years under the calendar) and, read by ``merge_ranges`` from two years and the word
between them, "FY2023 through FY2025", "2021到2025年", "from 2022 to 2024".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from ragspine.profile.fiscal_calendar import PERIOD_TYPES, FiscalCalendar, Period
from ragspine.profile.period_dates import alternation, may_hold_date
from ragspine.profile.period_rules import (
    ASCII_WORD_END,
    ASCII_WORD_START,
    REL_YEAR_EN,
    REL_YEAR_ZH,
    RULE_OF,
    SCANNER,
    WITHOUT_DATES,
    RuleMatch,
)

# Re-exported: callers import the period types from here, where expressions are read.
__all__ = [
    "MAX_RANGE_YEARS",
    "PERIOD_TYPES",
    "FiscalCalendar",
    "Period",
    "PeriodMatch",
    "RelativeYear",
    "find_periods",
    "find_relative_years",
    "merge_ranges",
    "normalize_period",
]


class PeriodMatch(NamedTuple):
    # A tuple, not a frozen dataclass: every question and table header makes some.
    period: Period
    start: int
    end: int
    relative: bool = False  # resolved against the reference date (去年, last quarter, Q3 …)
    # A run of fiscal years from ``first`` to ``period`` ("近三年", "FY2023 through FY2025").
    first: Period | None = None

    @property
    def periods(self) -> tuple[Period, ...]:
        """Every period the expression names: one, or each year of a range, oldest first."""
        if self.first is None:
            return (self.period,)
        return tuple(self.first.years_later(n) for n in range(self.years))

    @property
    def years(self) -> int:
        """How many fiscal years the expression spans (1 for a single period)."""
        return 1 if self.first is None else self.period.year - self.first.year + 1


# A range longer than this is not expanded: the gateway asks for a shorter one instead of
# running dozens of lookups and printing a wall of lines.
MAX_RANGE_YEARS = 10


def find_periods(
    text: str,
    reference_date: date | None = None,
    calendar: FiscalCalendar | None = None,
    *,
    unnamed: list[tuple[int, int]] | None = None,
) -> list[PeriodMatch]:
    """Every period expression in ``text``, left to right, without overlaps.

    An expression that names no period of ``calendar`` ("year ended 31 December 2019" under a
    March year end, "FY2024/25" under a December one) is left out; its span is appended to
    ``unnamed`` when given, so a caller can mask it and ask about it instead of guessing.
    """
    day = reference_date or date.today()
    return list(_iter_periods(text, day, calendar or FiscalCalendar(), unnamed))


def _iter_periods(
    text: str, day: date, cal: FiscalCalendar, unnamed: list[tuple[int, int]] | None
) -> Iterator[PeriodMatch]:
    scanner = SCANNER if may_hold_date(text) else WITHOUT_DATES
    for match in scanner.finditer(text):
        # Each rule's outer group closes after its inner groups, so it is the last one closed.
        rule = RULE_OF[str(match.lastgroup)]
        resolved = rule.resolve(RuleMatch(match, rule.names), day, cal)
        start, end = match.span()
        # The tuple built directly: PeriodMatch(...) runs the named tuple's Python __new__.
        if isinstance(resolved, Period):
            yield _new(PeriodMatch, (resolved, start, end, rule.relative, None))
        elif resolved is None:
            if unnamed is not None:
                unnamed.append((start, end))
        else:
            yield _new(PeriodMatch, (resolved[1], start, end, rule.relative, resolved[0]))


_new = tuple.__new__


# What joins the two ends of a range of years: "FY2023 through FY2025", "2021到2025年",
# "2021-2025", "from 2022 to 2024", "fiscal 2022 until fiscal 2024". "to" after "compare" pairs
# two years instead.
_RANGE_JOIN = re.compile(
    r"\s*(?:[-–—~～至到]|(?:through|thru|to|until|till)(?![A-Za-z]))\s*"
    r"(?:(?:fiscal|financial)\s+(?:year\s+)?)?",
    re.IGNORECASE,
)
_COMPARING = re.compile(r"compar|versus|(?<![A-Za-z])vs(?![A-Za-z])", re.IGNORECASE)


def merge_ranges(text: str, matches: list[PeriodMatch]) -> list[PeriodMatch]:
    """``matches`` with each "year <join> later year" pair read as one range of fiscal years.

    Questions only: a table header such as "2021-2025" names a column, which ingestion reads
    with ``find_periods`` alone.
    """
    if len(matches) < 2:
        return matches
    merged: list[PeriodMatch] = []
    for match in matches:
        previous = merged[-1] if merged else None
        if previous is not None and _joins(text, previous, match):
            merged[-1] = PeriodMatch(
                match.period,
                previous.start,
                match.end,
                previous.relative or match.relative,
                previous.period,
            )
        else:
            merged.append(match)
    return merged


def _joins(text: str, first: PeriodMatch, second: PeriodMatch) -> bool:
    if first.first is not None or second.first is not None:
        return False
    if first.period.type != "FY" or second.period.type != "FY":
        return False
    if first.period.year >= second.period.year:
        return False
    join = _RANGE_JOIN.fullmatch(text, first.end, second.start)
    if join is None:
        return False
    return not (join.group().split()[0].lower() == "to" and _COMPARING.search(text, 0, first.start))


# Column headers of reports name the year relative to the document's own period: "本年 / 上年",
# "Current year / Prior year", "CY / PY". The question words above count too; the others are
# for table headers only (a question's "上期" or "PY" is left for the clarifier to ask about).
_REL_HEADER = {
    **REL_YEAR_ZH,
    **REL_YEAR_EN,
    "本期": 0,
    "当期": 0,
    "本报告期": 0,
    "上期": -1,
    "上年同期": -1,
    "去年同期": -1,
    "current period": 0,
    "this period": 0,
    "prior period": -1,
    "previous period": -1,
    "cy": 0,
    "py": -1,
}
_REL_HEADER_PATTERN = re.compile(
    rf"{ASCII_WORD_START}(?:{alternation([w for w in _REL_HEADER if w.isascii()])}){ASCII_WORD_END}"
    rf"|{alternation([w for w in _REL_HEADER if not w.isascii()])}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RelativeYear:
    """A header word naming a year by its distance from the document's period (0, -1, -2)."""

    offset: int
    start: int
    end: int


def find_relative_years(text: str) -> list[RelativeYear]:
    """Every relative-year header word in ``text`` ("本年", "上年同期", "Prior year", "PY")."""
    return [
        RelativeYear(_REL_HEADER[re.sub(r"\s+", " ", m.group().lower())], m.start(), m.end())
        for m in _REL_HEADER_PATTERN.finditer(text)
    ]


def normalize_period(
    raw: str | None,
    reference_date: date | None = None,
    calendar: FiscalCalendar | None = None,
) -> Period | None:
    """The period ``raw`` denotes when the whole string is one period expression, else None."""
    if raw is None or not raw.strip():
        return None
    return _normalize(raw.strip(), reference_date or date.today(), calendar or FiscalCalendar())


@lru_cache(maxsize=4096)
def _normalize(text: str, day: date, calendar: FiscalCalendar) -> Period | None:
    # Cached: the query tool normalises the same few labels on every request.
    matches = find_periods(text, day, calendar)
    if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(text):
        return matches[0].period
    return None
