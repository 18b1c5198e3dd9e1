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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from ragspine.profile.regex_starts import RuleScanner

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

    def years_later(self, years: int) -> Period:
        """The same period ``years`` fiscal years later (earlier when negative)."""
        return Period(self.year + years, self.type)


# Periods are values: the resolvers hand out one shared instance per period instead of
# building a frozen dataclass for every match.
_period = lru_cache(maxsize=4096)(Period)


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


_CN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_YEAR4 = r"(?:199\d|20\d\d)"
_YEAR = rf"(?:{_YEAR4}|\d\d)"
# Chinese writes a year in two digits before 年 ("25年上半年", "24年"); "10年来" / "3年期" are
# durations, not years.
_YEAR_ZH = rf"(?:{_YEAR4}|\d\d(?=\s*年(?![来间内期以多])))"
# A number glued to these is an amount, not a year: digits, a decimal or thousands separator
# followed by a digit, units. A list comma or a full stop ("2024, 2025", "in 2024.") is fine.
_NOT_AFTER_YEAR = (
    r"(?!\d|[.,]\d|\s*[%％万亿千百元]|\s*(?:(?:m|mn|bn|k)(?![A-Za-z])|million|billion|thousand))"
)
_NOT_BEFORE = r"(?<![\d.,$¥￥A-Za-z])"
# ASCII word edges: Python's \b treats CJK as word characters, so "港FY2024" has no \b.
_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"

_REL_YEAR_ZH = {"今年": 0, "本年": 0, "本年度": 0, "去年": -1, "上年": -1, "上一年": -1, "前年": -2}
_REL_YEAR_EN = {
    "this year": 0,
    "current year": 0,
    "last year": -1,
    "previous year": -1,
    "prior year": -1,
    "the year before last": -2,
}
# "近三年", "the past five years": how many years, in words or digits.
_COUNT_ZH = {**{w: n for n, w in enumerate("一二三四五六七八九十", start=1)}, "两": 2}
_COUNT_EN = {
    w: n
    for n, w in enumerate(
        ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2
    )
}
_ORDINAL_EN = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}


def _alt(words: list[str]) -> str:
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


# A question's relative years: the words above and their fiscal-year spellings (上一财年,
# 上个财年, 本财年, 上一年度, last fiscal year, the previous financial year), kept compact
# because several rules try them at every position they can start.
_RY_ZH = r"今年|本(?:年度?|财年)|去年|上一?个?(?:年度?|财年)|上一会计年度|前年"
_RY_EN = (
    r"(?:this|current|last|previous|prior)\s+(?:(?:fiscal|financial)\s+)?year"
    r"|the\s+year\s+before\s+last"
)
_ORD_Q = _alt(list(_ORDINAL_EN))
# "fiscal 2025", "fiscal year 2025", "FY 2025" after an English quarter or half.
_FISCAL = r"(?:fiscal\s+(?:year\s+)?|FY\s*)"
_ORD_H = _alt([w for w, n in _ORDINAL_EN.items() if n <= 2])


class _RuleMatch:
    """Presents one rule's groups under their plain names to that rule's resolver."""

    __slots__ = ("_match", "_names")

    def __init__(self, match: re.Match[str], names: dict[str, str]) -> None:
        self._match = match
        self._names = names  # plain name -> the rule's own group name ("y" -> "y_12")

    def __getitem__(self, name: str) -> str:
        value = self._match.group(self._names[name])
        return value if value is not None else ""


Resolver = Callable[[_RuleMatch, date, FiscalCalendar], Period | tuple[Period, Period]]


def _year(raw: str) -> int:
    return int(raw) if len(raw) == 4 else 2000 + int(raw)


def _count(raw: str) -> int:
    return int(raw) if raw.isdigit() else {**_COUNT_ZH, **_COUNT_EN}[raw.lower()]


def _latest_years(raw: str, day: date, cal: FiscalCalendar) -> tuple[Period, Period]:
    """The ``raw`` latest complete fiscal years, as (first, last)."""
    last = cal.latest_complete_year(day)
    return last.years_later(1 - max(1, _count(raw))), last


def _rel_year(raw: str, day: date, cal: FiscalCalendar) -> int:
    return cal.fiscal_year(day) + _rel_offset(raw.strip().lower())


def _rel_offset(word: str) -> int:
    """0 for this year, -1 for the last one, -2 for the one before (``_RY_ZH``/``_RY_EN``)."""
    if word.startswith(("前", "the")):
        return -2
    if word.startswith(("今", "本", "this", "current")):
        return 0
    return -1


def _half_zh(raw: str) -> str:
    return "H1" if raw == "上" else "H2"


def _half_en(raw: str) -> str:
    return f"H{_ORDINAL_EN[raw.lower()]}"


def _q(raw: str) -> str:
    return f"Q{_CN_DIGITS[raw]}"


def _q_en(raw: str) -> str:
    return f"Q{_ORDINAL_EN[raw.lower()]}"


# Rules are tried in order at each position, most specific first; each returns a Period.
# Relative rules resolve against the reference date; documents only use absolute ones.
_RELATIVE_COMBOS: list[tuple[str, Resolver]] = [
    # --- relative year + sub-period
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*(?P<h>[上下])半年",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), _half_zh(m["h"])),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*(?:第\s*)?(?P<q>[一二三四1-4])\s*季度",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), _q(m["q"])),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*[Qq](?P<q>[1-4])",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), f"Q{m['q']}"),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*[Hh](?P<h>[12])",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), f"H{m['h']}"),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})\s+half\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), _half_en(m["h"])),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<q>{_ORD_Q})\s+quarter\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), _q_en(m["q"])),
    ),
    (
        rf"{_B}(?P<ry>{_RY_EN})'s\s+(?P<h>{_ORD_H})\s+half",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), _half_en(m["h"])),
    ),
    (
        rf"{_B}[Hh](?P<h>[12])\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), f"H{m['h']}"),
    ),
    (
        rf"{_B}[Qq](?P<q>[1-4])\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: _period(_rel_year(m["ry"], d, c), f"Q{m['q']}"),
    ),
]
_ABSOLUTE: list[tuple[str, Resolver]] = [
    # --- absolute year + sub-period
    (
        rf"{_B}(?:the\s+)?(?P<q>{_ORD_Q})\s+quarter\s+(?:of\s+)?(?:{_FISCAL})?(?P<y>{_YEAR4})(?![\d])",
        lambda m, d, c: _period(int(m["y"]), _q_en(m["q"])),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})\s+half\s+(?:of\s+)?(?:{_FISCAL})?(?P<y>{_YEAR4})(?![\d])",
        lambda m, d, c: _period(int(m["y"]), _half_en(m["h"])),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR_ZH})\s*年?\s*(?:的)?\s*(?:第\s*)?(?P<q>[一二三四1-4])\s*季度",
        lambda m, d, c: _period(_year(m["y"]), _q(m["q"])),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR_ZH})\s*年?\s*(?:的)?\s*(?P<h>[上下])半年",
        lambda m, d, c: _period(_year(m["y"]), _half_zh(m["h"])),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*年?\s*[Qq](?P<q>[1-4])(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*年?\s*[Hh](?P<h>[12])(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"H{m['h']}"),
    ),
    (
        rf"{_B}[Qq](?P<q>[1-4])\s*(?:of\s+)?(?:FY|'|’)?\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"{_B}[Hh](?P<h>[12])\s*(?:of\s+)?(?:FY|'|’)?\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"H{m['h']}"),
    ),
    (
        rf"(?<![\dA-Za-z])(?P<q>[1-4])\s*Q\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"(?<![\dA-Za-z])(?P<h>[12])\s*H\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), f"H{m['h']}"),
    ),
    # --- whole fiscal years
    (rf"{_B}FY\s*(?:'|’)?(?P<y>{_YEAR})(?![\d])", lambda m, d, c: _period(_year(m["y"]), "FY")),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR})\s*年?\s*(?:财年度?|财政年度|会计年度)",
        lambda m, d, c: _period(_year(m["y"]), "FY"),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR_ZH})\s*年度?(?![\d])",
        lambda m, d, c: _period(_year(m["y"]), "FY"),
    ),
    (rf"{_NOT_BEFORE}(?P<y>{_YEAR4}){_NOT_AFTER_YEAR}", lambda m, d, c: _period(int(m["y"]), "FY")),
]
_RELATIVE_ALONE: list[tuple[str, Resolver]] = [
    # --- the latest complete fiscal years: "近三年", "过去5个财年", "the past three years"
    (
        r"(?:近|最近|过去)\s*(?P<n>[一二两三四五六七八九十]|\d{1,2})\s*个?\s*(?:财年|会计年度|年度|年)",
        lambda m, d, c: _latest_years(m["n"], d, c),
    ),
    (
        rf"{_B}(?:past|last|previous|prior)\s+(?P<n>{_alt(list(_COUNT_EN))}|\d{{1,2}})"
        rf"\s+(?:(?:fiscal|financial|full)\s+)?years{_E}",
        lambda m, d, c: _latest_years(m["n"], d, c),
    ),
    # --- relative, standalone
    (
        rf"本季度|这个季度|这季度|当季|{_B}(?:this|current)\s+quarter{_E}",
        lambda m, d, c: c.current_quarter(d),
    ),
    (
        rf"上季度|上个季度|上一季度|{_B}(?:last|previous|prior)\s+quarter{_E}",
        lambda m, d, c: c.previous_quarter(d),
    ),
    (rf"(?P<ry>{_RY_ZH})", lambda m, d, c: _period(_rel_year(m["ry"], d, c), "FY")),
    (rf"{_B}(?P<ry>{_RY_EN}){_E}", lambda m, d, c: _period(_rel_year(m["ry"], d, c), "FY")),
    (r"(?P<h>[上下])半年", lambda m, d, c: _period(c.fiscal_year(d), _half_zh(m["h"]))),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})\s+half{_E}",
        lambda m, d, c: _period(c.fiscal_year(d), _half_en(m["h"])),
    ),
    (r"第\s*(?P<q>[一二三四1-4])\s*季度", lambda m, d, c: _period(c.fiscal_year(d), _q(m["q"]))),
    (rf"{_B}[Qq](?P<q>[1-4]){_E}", lambda m, d, c: _period(c.fiscal_year(d), f"Q{m['q']}")),
    (rf"{_B}[Hh](?P<h>[12]){_E}", lambda m, d, c: _period(c.fiscal_year(d), f"H{m['h']}")),
]
_RULES = [*_RELATIVE_COMBOS, *_ABSOLUTE, *_RELATIVE_ALONE]
_FIRST_RELATIVE_ALONE = len(_RELATIVE_COMBOS) + len(_ABSOLUTE)


def _alternatives() -> list[str]:
    # Each rule is a named group, so a match says which rule made it; inner group names repeat
    # across rules, so each rule's inner groups get a unique suffix.
    return [f"(?P<r{i}>{_suffix_groups(pattern, i)})" for i, (pattern, _) in enumerate(_RULES)]


def _suffix_groups(pattern: str, index: int) -> str:
    def rename(group: re.Match[str]) -> str:
        return f"(?P<{group[1]}_{index}>"

    return re.sub(r"\(\?P<(\w+)>", rename, pattern)


# Trying ~30 rules at every character was most of a question's parse time; the scanner tries,
# at each position, only the rules that can begin there (a digit, the first character of a word
# a rule spells, a letter only at a word edge where the rule demands one), read from the rules
# themselves, so a rule added later cannot be missed.
_SCANNER = RuleScanner(_alternatives(), re.IGNORECASE)


def find_periods(
    text: str, reference_date: date | None = None, calendar: FiscalCalendar | None = None
) -> list[PeriodMatch]:
    """Every period expression in ``text``, left to right, without overlaps."""
    return list(_iter_periods(text, reference_date or date.today(), calendar or FiscalCalendar()))


class _Rule(NamedTuple):
    resolve: Resolver
    relative: bool  # resolved against the reference date
    names: dict[str, str]  # the rule's groups: plain name -> its own (suffixed) name


def _rule_table() -> dict[str, _Rule]:
    """Each rule under the name of its outer group ("r12"), read once per match."""
    table = {}
    for index, (pattern, resolve) in enumerate(_RULES):
        names = {name: f"{name}_{index}" for name in re.findall(r"\(\?P<(\w+)>", pattern)}
        relative = index < len(_RELATIVE_COMBOS) or index >= _FIRST_RELATIVE_ALONE
        table[f"r{index}"] = _Rule(resolve, relative, names)
    return table


_RULE_OF = _rule_table()


def _iter_periods(text: str, day: date, cal: FiscalCalendar) -> Iterator[PeriodMatch]:
    for match in _SCANNER.finditer(text):
        # Each rule's outer group closes after its inner groups, so it is the last one closed.
        rule = _RULE_OF[str(match.lastgroup)]
        resolved = rule.resolve(_RuleMatch(match, rule.names), day, cal)
        start, end = match.span()
        # The tuple built directly: PeriodMatch(...) runs the named tuple's Python __new__.
        if isinstance(resolved, Period):
            yield _new(PeriodMatch, (resolved, start, end, rule.relative, None))
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
    **_REL_YEAR_ZH,
    **_REL_YEAR_EN,
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
    rf"{_B}(?:{_alt([w for w in _REL_HEADER if w.isascii()])}){_E}"
    rf"|{_alt([w for w in _REL_HEADER if not w.isascii()])}",
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
