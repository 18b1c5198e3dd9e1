"""A part of a year read as the run of fiscal quarters it spans, for a question to sum.

``period_dates.PART_YEAR_RULES`` finds the parts of a year no calendar names as one period
("2025年前三季度", "first nine months of 2025", "9M 2025", "2025年1-9月", "Q1-Q3 2025", "nine
months ended 30 September 2025"): documents and table headers keep them unnamed, so no column
of a year-to-date figure is ever read as its last quarter's. A question about one asks for the
sum of its quarters; ``quarters_of`` reads such an expression back into those quarters when it
starts at a quarter's first month and ends at a quarter's last, under the profile's calendar,
and names its year. Anything else (a run of months inside a quarter, "the year to date" without
its end, the last twelve months) stays unnamed and is asked about.
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from ragspine.profile.fiscal_calendar import FiscalCalendar, Period
from ragspine.profile.period_dates import ENDED_EN, MONTH_EN, month_number, month_of_year
from ragspine.profile.period_spans import PeriodSpan, month_span, span_of
from ragspine.profile.periods import PeriodMatch, normalize_period

_EN = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_COUNT = {
    **{w: n for n, w in enumerate("一二三四五六七八九十", start=1)},
    **{w: n for n, w in enumerate(_EN, start=1)},
    "两": 2,
    "十一": 11,
    "十二": 12,
}
_N = rf"(?P<n>十[一二]?|[一二两三四五六七八九]|{'|'.join(_EN)}|\d{{1,2}})"
_Q = r"(?:第\s*)?(?P<{}>[一二三四1-4])"
_TO = r"\s*(?:[-–~～至到]|to|through)\s*"
_YEAR_AFTER = r"(?:\s*(?:(?:of|in)\s+)?(?:the\s+)?(?P<after>.+?))?"
# Each form as a whole-span pattern: ``yr``/``after`` hold the year as written, ``n`` and
# ``u`` a count of months or quarters, ``a``/``b`` the first and last quarter or month.
_FORMS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"(?:the\s+)?(?:first\s+)?{_N}\s+(?P<u>months?|quarters?){_YEAR_AFTER}",
        rf"{_N}M\s*(?P<after>(?:FY\s*)?\d{{4}})",
        rf"{_N}M(?:FY)?(?P<yy>\d\d)",
        rf"(?P<yr>\d{{4}})\s*[Qq](?P<a>[1-4]){_TO}[Qq](?P<b>[1-4])",
        rf"[Qq](?P<a>[1-4]){_TO}[Qq](?P<b>[1-4]){_YEAR_AFTER}",
        rf"(?:(?P<yr>.+?)\s*(?:的)?\s*)?前\s*{_N}\s*个?\s*(?P<u>月|季度|季)(?:\s*(?P<after>\d{{4}}\s*年?))?",
        rf"(?P<ma>{MONTH_EN}){_TO}(?P<mb>{MONTH_EN}),?\s*(?:FY\s*)?(?P<yr>\d{{4}})",
        r"(?:(?P<yr>\d{4})\s*年\s*)?(?P<ma>1[0-2]|0?[1-9])\s*(?:月\s*)?[-–~～至到]\s*"
        r"(?P<mb>1[0-2]|0?[1-9])\s*(?:月份|月)",
        rf"(?:(?P<yr>\d{{4}})\s*年\s*)?{_Q.format('a')}\s*(?:季度\s*)?[-–~～至到]\s*{_Q.format('b')}\s*季度",
    )
]
# "nine months ended 30 September 2025", "截至2025年9月30日止九个月": the months counted back
# from the end of the period the date closes, or from the month named without its day ("nine
# months to September 2025").
_ENDED = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"(?:for\s+the\s+)?(?:the\s+)?{_N}\s+months\s+{ENDED_EN}\s+(?:on\s+)?(?P<end>.+)",
        rf"(?:截至|截止)?\s*(?P<end>.+?)\s*止?\s*{_N}\s*个月",
    )
]
_CN_QUARTER = {"一": 1, "二": 2, "三": 3, "四": 4}


def quarters_of(text: str, day: date, calendar: FiscalCalendar) -> tuple[Period, ...]:
    """The fiscal quarters the part of a year ``text`` names, oldest first; () when ``text``
    is no run of whole quarters of one named fiscal year."""
    said = " ".join(text.split())
    # The ended forms first: "nine months ended …" would read as "nine months" of a year.
    for form in _ENDED:
        match = form.fullmatch(said)
        if match is not None:
            return _quarters(_ended(match, day, calendar))
    for form in _FORMS:
        match = form.fullmatch(said)
        if match is not None:
            return _quarters(_span(match, day, calendar))
    return ()


def _span(match: re.Match[str], day: date, calendar: FiscalCalendar) -> PeriodSpan | None:
    groups = match.groupdict()
    if groups.get("ma"):
        year = groups.get("yr")
        if not year:
            return None
        first = month_span(int(year), month_number(groups["ma"]), calendar)
        last = month_span(int(year), month_number(groups["mb"]), calendar)
        if first.fiscal_year != last.fiscal_year:
            return None
        return PeriodSpan(first.fiscal_year, first.first, last.last)
    if groups.get("yy"):
        fiscal: int | None = 2000 + int(groups["yy"])
    else:
        fiscal = _fiscal_year(groups.get("yr") or groups.get("after") or "", day, calendar)
    if fiscal is None:
        return None
    if groups.get("a"):
        a, b = (_quarter_number(groups[k]) for k in ("a", "b"))
        return PeriodSpan(fiscal, 3 * a - 2, 3 * b)
    count = _COUNT.get(groups["n"].lower()) or int(groups["n"])
    unit = (groups.get("u") or "").lower()  # none in "9M 2025": months
    months = 3 * count if unit.startswith(("quarter", "季")) else count
    return PeriodSpan(fiscal, 1, months)


def _ended(match: re.Match[str], day: date, calendar: FiscalCalendar) -> PeriodSpan | None:
    count = _COUNT.get(match["n"].lower()) or int(match["n"])
    month = month_of_year(match["end"])
    if month is not None:  # the month itself closes the run, not the fiscal year holding it
        closing = month_span(*month, calendar)
        return PeriodSpan(closing.fiscal_year, closing.last - count + 1, closing.last)
    period = normalize_period(match["end"], day, calendar)
    if period is None:
        return None
    last = span_of(period).last
    return PeriodSpan(period.year, last - count + 1, last)


def _fiscal_year(raw: str, day: date, calendar: FiscalCalendar) -> int | None:
    """The fiscal year ``raw`` names alone ("2025", "2025年", "FY2025", "this year", "去年")."""
    period = normalize_period(raw.strip(), day, calendar)
    return period.year if period is not None and period.type == "FY" else None


def _quarter_number(raw: str) -> int:
    return _CN_QUARTER.get(raw) or int(raw)


def _quarters(span: PeriodSpan | None) -> tuple[Period, ...]:
    if span is None or not 1 <= span.first <= span.last <= 12:
        return ()
    if span.first % 3 != 1 or span.last % 3 != 0 or span.first == span.last - 11:
        return ()
    return tuple(
        Period(span.fiscal_year, f"Q{q}") for q in range(span.first // 3 + 1, span.last // 3 + 1)
    )


# "YTD Q3 2025", "2025年第三季度年初至今": the year to date through the quarter or half beside it.
_TO_DATE = re.compile(r"year[-\s]to[-\s]date|YTD|年初至今|本年迄今|年内迄今", re.IGNORECASE)
# What may stand between the year-to-date word and its period: spaces, "through", "to", "of".
_BESIDE = re.compile(r"\s*(?:(?:through|thru|to|of|in|at|for)\s+)?(?:的)?\s*", re.IGNORECASE)


class PartYear(NamedTuple):
    """A part of a year a question names, and what of the question's reading it takes."""

    quarters: tuple[Period, ...]
    said: str  # as written, for an answer that does not compute it
    span: tuple[int, int]  # the unnamed span read
    hit: PeriodMatch | None  # the quarter or half a year-to-date word ran to


def part_year(
    text: str,
    unnamed: list[tuple[int, int]],
    hits: list[PeriodMatch],
    day: date,
    calendar: FiscalCalendar,
) -> PartYear | None:
    """The one part of a year ``text`` names as its only period, as its quarters; None when
    there is none, several, another period beside it, or it is no run of whole quarters."""
    if len(unnamed) != 1 or len(hits) > 1:
        return None
    start, end = unnamed[0]
    said = " ".join(text[start:end].split())
    if not hits:
        quarters = quarters_of(said, day, calendar)
        return PartYear(quarters, said, (start, end), None) if quarters else None
    hit = hits[0]
    if (
        _TO_DATE.fullmatch(said) is None
        or hit.first is not None
        or not _adjacent(text, start, end, hit)
    ):
        return None
    quarters = _quarters(PeriodSpan(hit.period.year, 1, span_of(hit.period).last))
    if not quarters:
        return None
    both = " ".join(text[min(start, hit.start) : max(end, hit.end)].split())
    return PartYear(quarters, both, (start, end), hit)


def _adjacent(text: str, start: int, end: int, hit: PeriodMatch) -> bool:
    gap = (end, hit.start) if end <= hit.start else (hit.end, start)
    return _BESIDE.fullmatch(text, *gap) is not None
