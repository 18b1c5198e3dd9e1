"""Period spans: a period as a run of fiscal months, so containment and overlap are comparisons.

A fiscal year covers fiscal months 1–12, its halves 1–6 and 7–12, its quarters three months
each, and a fiscal month one. Quarters and halves are fiscal parts (as in ``periods.py``), so
the spans of ``FY``/``H``/``Q`` periods need no calendar; a calendar month becomes a fiscal
month through the profile's ``FiscalCalendar`` (``month_span``). Fiscal months are labelled
like the other parts: ``2025M01`` is the first month of FY2025.

Labels (``FY2024``, ``2024Q4``, ``2024H1``, ``2024M10``) are how chunks and filters store
periods; ``span_of_label`` reads them back and ``labels_within`` lists every label inside a
span, which lets a term index test containment with a set of exact terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from ragspine.profile.periods import FiscalCalendar, Period

_PARTS: dict[str, tuple[int, int]] = {
    "FY": (1, 12),
    "H1": (1, 6),
    "H2": (7, 12),
    "Q1": (1, 3),
    "Q2": (4, 6),
    "Q3": (7, 9),
    "Q4": (10, 12),
}
_LABEL = re.compile(r"^(?:FY(?P<fy>\d{4})|(?P<year>\d{4})(?P<part>[HQ][1-4]|M(?:0[1-9]|1[0-2])))$")


@dataclass(frozen=True, order=True)
class PeriodSpan:
    """Fiscal months ``first``..``last`` (1–12, inclusive) of fiscal year ``fiscal_year``."""

    fiscal_year: int
    first: int
    last: int

    def contains(self, other: PeriodSpan) -> bool:
        return (
            self.fiscal_year == other.fiscal_year
            and self.first <= other.first
            and other.last <= self.last
        )

    def overlaps(self, other: PeriodSpan) -> bool:
        return (
            self.fiscal_year == other.fiscal_year
            and self.first <= other.last
            and other.first <= self.last
        )


def span_of(period: Period) -> PeriodSpan:
    """The fiscal months of a fiscal year, half or quarter."""
    first, last = _PARTS[period.type]
    return PeriodSpan(period.year, first, last)


def month_span(year: int, month: int, calendar: FiscalCalendar) -> PeriodSpan:
    """The fiscal month holding calendar month ``year``-``month`` under ``calendar``."""
    day = date(year, month, 1)
    index = calendar.month_index(day) + 1
    return PeriodSpan(calendar.fiscal_year(day), index, index)


def month_label(span: PeriodSpan) -> str:
    """``2025M01`` for a one-month span (the first month of FY2025)."""
    if span.first != span.last:
        raise ValueError(f"{span} is not one month")
    return f"{span.fiscal_year}M{span.first:02d}"


@lru_cache(maxsize=4096)
def span_of_label(label: str) -> PeriodSpan | None:
    """The span of a stored period label, or None for anything that is not one."""
    match = _LABEL.match(label)
    if match is None:
        return None
    if match["fy"]:
        return span_of(Period(int(match["fy"]), "FY"))
    year, part = int(match["year"]), match["part"]
    if part.startswith("M"):
        return PeriodSpan(year, int(part[1:]), int(part[1:]))
    if part not in _PARTS:  # "H3", "H4"
        return None
    return span_of(Period(year, part))


def spans_of_labels(labels: tuple[str, ...]) -> tuple[PeriodSpan, ...]:
    """The spans of the labels that are periods, in order; others are skipped."""
    return tuple(s for s in map(span_of_label, labels) if s is not None)


@lru_cache(maxsize=1024)
def labels_within(span: PeriodSpan) -> tuple[str, ...]:
    """Every period label (year, halves, quarters, months) whose months all lie in ``span``."""
    year = span.fiscal_year
    parts = [
        Period(year, kind).label
        for kind, (first, last) in _PARTS.items()
        if span.first <= first and last <= span.last
    ]
    months = [month_label(PeriodSpan(year, m, m)) for m in range(span.first, span.last + 1)]
    return (*parts, *months)


def any_within(wanted: tuple[PeriodSpan, ...], have: tuple[PeriodSpan, ...]) -> bool:
    """Whether one of the ``have`` spans lies inside one of the ``wanted`` ones."""
    return any(w.contains(h) for w in wanted for h in have)
