"""Figures asked per quarter, month, week or day of a longer period: not answered with its total.

"Net sales per quarter in FY2024", "monthly sales in 2025", "每季度销售额" ask for a breakdown
of the period into shorter ones. The fact table is keyed by fiscal years, halves and quarters,
and no breakdown is computed here, so the year's own figure would answer another question:
the question is marked unsupported instead, and the answer says which breakdown it did not
give (``analysis_cues.read_analysis``). A cue no finer than the asked period ("quarterly sales in
Q3 2025", "annual sales") asks for nothing more and is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragspine.profile.matching import AliasHit
from ragspine.profile.period_spans import span_of
from ragspine.profile.periods import Period

# The cue kind in the analyst matcher; each word's code is its unit ("quarter", "month", …).
PER_PERIOD = "per_period"
# How an unsupported breakdown is recorded in ``Analysis.unsupported``: "breakdown:quarter".
BREAKDOWN_PREFIX = "breakdown:"

# The fiscal months each unit spans (weeks and days: shorter than any stored period).
UNIT_MONTHS = {"quarter": 3, "month": 1, "week": 0, "day": 0}

_EN = {
    "quarter": (
        *("quarterly", "per quarter", "each quarter", "every quarter", "by quarter"),
        *("quarter by quarter", "quarter-by-quarter"),
    ),
    "month": (
        *("monthly", "per month", "each month", "every month", "by month"),
        *("month by month", "month-by-month"),
    ),
    "week": ("weekly", "per week", "each week", "every week", "by week"),
    "day": ("daily", "per day", "each day", "every day", "by day"),
}
_ZH = {
    "quarter": ("每季度", "每季", "每个季度", "各季度", "各个季度", "按季度", "逐季", "分季度"),
    "month": ("每月", "每个月", "各月", "按月", "逐月", "分月"),
    "week": ("每周", "每星期", "每个星期", "按周", "逐周"),
    "day": ("每日", "每天", "按日", "逐日", "日均"),
}


def breakdown_cues() -> list[tuple[str, str]]:
    """(word, unit) for every breakdown cue, Chinese and English."""
    return [(word, unit) for table in (_EN, _ZH) for unit, words in table.items() for word in words]


def finer_than_asked(hits: Sequence[AliasHit], periods: Sequence[Period]) -> tuple[str, ...]:
    """``breakdown:UNIT`` for each breakdown cue shorter than the period asked (a fiscal year
    when none is named), in order of mention, once each."""
    span = span_of(periods[0]) if periods else None
    months = span.last - span.first + 1 if span is not None else 12
    found = [
        f"{BREAKDOWN_PREFIX}{hit.code}"
        for hit in hits
        if hit.kind == PER_PERIOD and UNIT_MONTHS[hit.code] < months
    ]
    return tuple(dict.fromkeys(found))
