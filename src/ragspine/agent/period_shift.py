"""A follow-up's period named from the previous turn's: "the year before", "上个季度", "去年同期",
"and Q2?", "上半年呢？".

After "<单位>2025年第三季度<指标>是多少", "上一年呢？" means 2024Q3 (the same quarter a year
earlier), "and the previous quarter?" 2025Q2 and "第二季度呢？" 2025Q2: each is counted from the
period the conversation settled, at that period's granularity, never from today and never as a
full year.
A step the previous period has no place for (a quarter back from a full year, a year back when
no period was settled) is asked about, not answered for another period.

Words the parser also reads alone, counted from today ("上一年", "previous quarter", "上半年",
"Q2"), are read this way only in a question leaving out its metric or its entity (one that
inherits from the previous turn); a question naming both stands alone. "去年" and "last year" are
always today's last year. A prior year that is the base of a change ("跟上一年比", "compared with
the year before") stays a growth base (``cues.growth_bases``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from ragspine.agent import cues
from ragspine.agent.normalize import normalize_question
from ragspine.agent.parse import parse_intent
from ragspine.agent.types import ParsedIntent
from ragspine.profile.fiscal_calendar import FiscalCalendar, Period
from ragspine.profile.matching import mask
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import PeriodMatch, find_periods

__all__ = ["Shift", "find_shift", "shifted_periods", "with_shifted_period"]

_B, _E = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
_FISCAL_EN = r"(?:(?:fiscal|financial)\s+)?"
_HALF_EN = r"half(?:[\s-]year)?"
_YEAR_ZH = r"(?:年度?|财年)"
_BEFORE_EN = r"(?:before|earlier|prior)"
_AFTER_EN = r"(?:after|later)"
_NEXT_EN = r"(?:the\s+)?(?:next|following|subsequent)\s+"
_ONE_EN = r"(?:the|a|one)\s+"
# Group names: a step ("y" year, "h" half, "q" quarter), its direction ("b" back, "f" forward)
# and whether the parser reads the words alone as a period counted from today ("_d").
_SHIFTS = {
    "yb": [
        rf"(?:去年|上一?个?{_YEAR_ZH})同期",
        rf"前一个?{_YEAR_ZH}",
        r"(?:再)?往前一年|一年前",
        rf"{_B}(?:the\s+)?same\s+(?:period|quarter|{_HALF_EN}|time)\s+(?:(?:of|in)\s+)?(?:the\s+)?"
        rf"(?:last|previous|prior|preceding)\s+{_FISCAL_EN}year{_E}",
        rf"{_B}(?:the\s+)?same\s+(?:period|quarter|{_HALF_EN})\s+a\s+year\s+(?:{_BEFORE_EN}|ago){_E}",
        rf"{_B}{_ONE_EN}year\s+{_BEFORE_EN}(?!\s+last){_E}",
        rf"{_B}a\s+year\s+(?:ago|back){_E}",
        rf"{_B}(?:the\s+)?preceding\s+{_FISCAL_EN}year{_E}",
        rf"{_B}(?:the\s+)?year[\s-]earlier(?:\s+(?:period|quarter|{_HALF_EN}))?{_E}",
    ],
    "yb_d": [
        rf"上一?个?{_YEAR_ZH}|上一会计年度",
        rf"{_B}(?:the\s+)?(?:previous|prior)\s+{_FISCAL_EN}year{_E}",
    ],
    "yf": [
        rf"(?:下|后)(?:一个?|个){_YEAR_ZH}|下年度|次年|一年后|(?:再)?往后一年",
        rf"{_B}{_NEXT_EN}{_FISCAL_EN}year{_E}",
        rf"{_B}{_ONE_EN}year\s+{_AFTER_EN}{_E}",
    ],
    "qb": [
        r"前一个?季度",
        rf"{_B}(?:the\s+)?preceding\s+quarter{_E}",
        rf"{_B}{_ONE_EN}quarter\s+{_BEFORE_EN}{_E}",
    ],
    "qb_d": [
        r"上(?:一个?|个)?季度",
        rf"{_B}(?:the\s+)?(?:last|previous|prior)\s+quarter{_E}",
    ],
    "qf": [
        r"(?:下|后)(?:一个?|个)?季度",
        rf"{_B}{_NEXT_EN}quarter{_E}",
        rf"{_B}{_ONE_EN}quarter\s+{_AFTER_EN}{_E}",
    ],
    "hb": [
        r"(?:上|前)一?个半年",
        rf"{_B}(?:the\s+)?(?:previous|prior|preceding)\s+{_HALF_EN}{_E}",
        rf"{_B}{_ONE_EN}{_HALF_EN}\s+{_BEFORE_EN}{_E}",
    ],
    "hf": [
        r"(?:下|后)一?个半年",
        rf"{_B}{_NEXT_EN}{_HALF_EN}{_E}",
        rf"{_B}{_ONE_EN}{_HALF_EN}\s+{_AFTER_EN}{_E}",
    ],
    # A quarter named without its year that the parser does not read: "二季度", "the second
    # quarter" (a year or "last year" beside it is the parser's: such a span is skipped).
    "q1": [r"(?<![第上下前后个])一季度", rf"{_B}(?:the\s+)?(?:first|1st)\s+quarter{_E}"],
    "q2": [r"(?<![第上下前后个])二季度", rf"{_B}(?:the\s+)?(?:second|2nd)\s+quarter{_E}"],
    "q3": [r"(?<![第上下前后个])三季度", rf"{_B}(?:the\s+)?(?:third|3rd)\s+quarter{_E}"],
    "q4": [r"(?<![第上下前后个])四季度", rf"{_B}(?:the\s+)?(?:fourth|4th)\s+quarter{_E}"],
}
_SHIFT = re.compile(
    "|".join(f"(?P<{name}>{'|'.join(forms)})" for name, forms in _SHIFTS.items()), re.IGNORECASE
)
# How the parser writes a half or quarter named without its year (counted from today's year):
# a period match whose whole text is one of these is a part of the previous turn's year.
_BARE_PART = re.compile(
    r"[上下]半年|第\s*[一二三四1-4]\s*季度|[QqHh][1-4]|(?:the\s+)?(?:first|second|1st|2nd)\s+half",
    re.IGNORECASE,
)
_STEP_TYPES = {"y": "FY", "h": "H", "q": "Q"}


@dataclass(frozen=True)
class Shift:
    """A period named from the previous one: ``steps`` years, halves or quarters (``unit``
    "y", "h", "q"; negative is earlier), or the ``part`` ("H1", "Q2") of its year."""

    start: int
    end: int
    unit: str = "y"
    steps: int = 0
    part: str | None = None
    deictic: bool = False  # the parser reads the words alone as a period counted from today


def find_shift(text: str, day: date, calendar: FiscalCalendar) -> Shift | None:
    """The first period ``text`` (normalized) names from the previous turn's, or ``None``."""
    named = find_periods(text, day, calendar)
    bases = cues.growth_bases(text)
    for match in _SHIFT.finditer(text):
        start, end = match.span()
        if _crosses(named, start, end) or _is_base(text, bases, start, end):
            continue
        name = str(match.lastgroup)
        if name[1].isdigit():
            return Shift(start, end, part=name.upper())
        steps = -1 if name[1] == "b" else 1
        return Shift(start, end, name[0], steps, deictic=name.endswith("_d"))
    for period in named:
        if _BARE_PART.fullmatch(text, period.start, period.end):
            return Shift(period.start, period.end, part=period.period.type, deictic=True)
    return None


def shifted_periods(shift: Shift, periods: tuple[Period, ...]) -> tuple[Period, ...] | None:
    """``periods`` moved by ``shift``; ``None`` when one of them has no such step (a quarter
    back from a full year) or there is none to move."""
    if not periods:
        return None
    if shift.part is not None:
        years = {p.year for p in periods}
        return (Period(years.pop(), shift.part),) if len(years) == 1 else None
    moved = [_step(p, shift.unit, shift.steps) for p in periods]
    if any(p is None for p in moved):
        return None
    return tuple(dict.fromkeys(p for p in moved if p is not None))


def with_shifted_period(
    intent: ParsedIntent,
    previous: tuple[Period, ...],
    profile: DomainProfile,
    day: date,
    *,
    previous_latest: Callable[[], tuple[Period, ...]] | None = None,
) -> ParsedIntent | None:
    """``intent`` read again without its words naming a period from the previous turn's
    (``raw_question`` is then the text read), its period that one: ``periods`` when
    ``previous`` has the step, else the words in ``unknown_periods`` so the gateway asks.
    ``None`` when it names no such period, or names one of its own beside it.

    ``previous_latest``, when the previous turn asked for "the latest quarter / half" (so
    ``previous`` is empty), gives the period that turn was answered for; it is called only for
    a question naming a step."""
    text = normalize_question(intent.raw_question)
    calendar = FiscalCalendar(profile.fiscal.year_end_month)
    shift = find_shift(text, day, calendar)
    if shift is None:
        return None
    if shift.deictic and intent.metrics and intent.entities:
        return None  # a question naming every slot stands alone: today's "previous quarter"
    rest = mask(text, [(shift.start, shift.end)])
    again = parse_intent(rest, day, profile=profile)
    if again.periods or again.unknown_periods or again.long_range:
        return None
    if not previous and previous_latest is not None:
        previous = previous_latest()
    moved = shifted_periods(shift, previous)
    if moved is None:
        words = " ".join(text[shift.start : shift.end].split())
        return replace(again, raw_question=rest, unknown_periods=(words,))
    return replace(again, raw_question=rest, period=moved[0], periods=moved)


def _step(period: Period, unit: str, steps: int) -> Period | None:
    if unit == "y":
        return Period(period.year + steps, period.type)
    if period.type[0] != _STEP_TYPES[unit]:
        return None
    per_year = 2 if unit == "h" else 4
    index = period.year * per_year + int(period.type[1]) - 1 + steps
    return Period(index // per_year, f"{_STEP_TYPES[unit]}{index % per_year + 1}")


def _crosses(named: list[PeriodMatch], start: int, end: int) -> bool:
    """Whether a period the parser reads overlaps the span without lying inside it ("the
    second quarter of 2025" is the parser's; "last year" in "same period last year" is ours)."""
    return any(
        p.start < end and start < p.end and not (start <= p.start and p.end <= end) for p in named
    )


def _is_base(text: str, bases: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the span is the base of a change ("跟上一年比", "compared with the year
    before"). "and a year earlier?" opening a question is a follow-up's period, not a base."""
    for b_start, b_end in bases:
        if b_start < end and start < b_end:
            opening = not text[:b_start].strip() and text[b_start:].lower().startswith("and")
            return not opening
    return False
