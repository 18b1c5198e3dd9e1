"""How a period is written: the rules ``periods.find_periods`` scans a text with.

Each rule is a pattern and a resolver that turns its match into a ``Period`` (or a run of fiscal
years, or ``None`` for an expression naming no period of the calendar). Rules are tried in
order at each position, most specific first: relative ones combined with a sub-period, then the
absolute ones (the date and split-year rules of ``period_dates`` first), then relative words
alone. The scanners try at each position only the rules that can begin there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import NamedTuple

from ragspine.profile.fiscal_calendar import FiscalCalendar, Period, shared_period
from ragspine.profile.period_dates import (
    CN_DIGITS,
    DATE_RULES,
    ORDINAL_EN,
    PART_YEAR_RULES,
    alternation,
)
from ragspine.profile.regex_starts import RuleScanner

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
ASCII_WORD_START = r"(?<![A-Za-z0-9])"
ASCII_WORD_END = r"(?![A-Za-z0-9])"
_B, _E = ASCII_WORD_START, ASCII_WORD_END  # short, for the rules below

REL_YEAR_ZH = {
    "今年": 0,
    "本年": 0,
    "本年度": 0,
    "去年": -1,
    "上年": -1,
    "上一年": -1,
    "前年": -2,
    "大前年": -3,
}
REL_YEAR_EN = {
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


# A question's relative years: the words above and their fiscal-year spellings (上一财年,
# 上个财年, 本财年, 上一年度, last fiscal year, the previous financial year), kept compact
# because several rules try them at every position they can start.
# "两年前", "two years ago": a count of years back; never a year's "年" before "前三季度"
# ("2025年前三季度", "24年前9个月": the first months of that year).
_RY_ZH = (
    r"今年|本(?:年度?|财年)|去年|上一?个?(?:年度?|财年)|上一会计年度|大前年|前年"
    r"|(?<![\d.A-Za-z])(?:[一二两三四五六七八九十]|[1-9])\s*年前(?!\s*[一二两三四五六七八九十\d])"
)
_RY_EN = (
    r"(?:this|current|last|previous|prior)\s+(?:(?:fiscal|financial)\s+)?year"
    r"|the\s+year\s+before\s+last"
    rf"|(?:a|one|{'|'.join(_COUNT_EN)}|\d{{1,2}})\s+(?:(?:fiscal|financial)\s+)?years?\s+ago"
)
_YEARS_AGO = re.compile(r"(?P<n>\S+?)\s*(?:\s(?:fiscal\s+|financial\s+)?years?\s+ago|年前)")
_ORD_Q = alternation(list(ORDINAL_EN))
# "fiscal 2025", "fiscal year 2025", "FY 2025" after an English quarter or half.
_FISCAL = r"(?:fiscal\s+(?:year\s+)?|FY\s*)"
_ORD_H = alternation([w for w, n in ORDINAL_EN.items() if n <= 2])
# A year beside an English quarter or half: "2025", "fiscal 2025", "FY2025", "FY25", "FY'25".
_FY_YEAR = rf"(?:{_FISCAL}(?:'|’)?(?P<y2>\d\d)(?!\d)|(?:{_FISCAL})?(?P<y>{_YEAR4}))"


class RuleMatch:
    """Presents one rule's groups under their plain names to that rule's resolver."""

    __slots__ = ("_match", "_names")

    def __init__(self, match: re.Match[str], names: dict[str, str]) -> None:
        self._match = match
        self._names = names  # plain name -> the rule's own group name ("y" -> "y_12")

    def __getitem__(self, name: str) -> str:
        # A name the rule does not have reads as a group that did not take part: resolvers
        # shared by several rules ask for every group any of them has.
        own = self._names.get(name)
        value = self._match.group(own) if own is not None else None
        return value if value is not None else ""


# None: the text is a period expression naming no period of the calendar ("FY2024/25" under a
# December year end), read so that no part of it is taken for anything else.
Resolver = Callable[[RuleMatch, date, FiscalCalendar], Period | tuple[Period, Period] | None]


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
    """0 for this year, -1 for the last one, -2 for the one before (``_RY_ZH``/``_RY_EN``),
    -N for N years ago."""
    ago = _YEARS_AGO.fullmatch(word)
    if ago is not None:
        count = ago["n"]
        return -(int(count) if count.isdigit() else _COUNT_ZH.get(count) or _COUNT_EN.get(count, 1))
    if word.startswith("大前"):
        return -3
    if word.startswith(("前", "the")):
        return -2
    if word.startswith(("今", "本", "this", "current")):
        return 0
    return -1


def _half_zh(raw: str) -> str:
    return "H1" if raw == "上" else "H2"


def _half_en(raw: str) -> str:
    return f"H{ORDINAL_EN[raw.lower()]}"


def _q(raw: str) -> str:
    return f"Q{CN_DIGITS[raw]}"


def _q_en(raw: str) -> str:
    return f"Q{ORDINAL_EN[raw.lower()]}"


# Rules are tried in order at each position, most specific first; each returns a Period.
# Relative rules resolve against the reference date; documents only use absolute ones.
_RELATIVE_COMBOS: list[tuple[str, Resolver]] = [
    # --- relative year + sub-period
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*(?P<h>[上下])半年",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), _half_zh(m["h"])),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*(?:第\s*)?(?P<q>[一二三四1-4])\s*季度",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), _q(m["q"])),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*[Qq](?P<q>[1-4])",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), f"Q{m['q']}"),
    ),
    (
        rf"(?P<ry>{_RY_ZH})\s*(?:的)?\s*[Hh](?P<h>[12])",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), f"H{m['h']}"),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})[\s-]+half(?:\s+of\s+|\s*,\s*|\s+)(?P<ry>{_RY_EN})",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), _half_en(m["h"])),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<q>{_ORD_Q})[\s-]+quarter(?:\s+of\s+|\s*,\s*|\s+)(?P<ry>{_RY_EN})",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), _q_en(m["q"])),
    ),
    (
        rf"{_B}(?P<ry>{_RY_EN})'s\s+(?P<h>{_ORD_H})\s+half",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), _half_en(m["h"])),
    ),
    (
        rf"{_B}[Hh](?P<h>[12])\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), f"H{m['h']}"),
    ),
    (
        rf"{_B}[Qq](?P<q>[1-4])\s+(?:of\s+)?(?P<ry>{_RY_EN})",
        lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), f"Q{m['q']}"),
    ),
]
# A quarter or half no year has ("Q5 2024", "2024H3", "2024年第五季度"): matched, so the year
# beside it is not answered for, and resolved to no period, so the question is asked about.
_NO_PART = r"(?:[Qq](?:0|[5-9])|[Hh](?:0|[3-9]))(?!\d)"
_NO_QUARTER_ZH = r"第\s*[五六七八九十5-9]\s*季度"
# What may stand between a year and its quarter or half in Chinese: "2024年", "2024财年",
# "FY2024 年度" (a year written "FY2024" takes the same words).
_YEAR_WORD_ZH = r"(?:财年|财政年度|年度|年)?"
_IMPOSSIBLE_PARTS: list[tuple[str, Resolver]] = [
    (rf"{_NOT_BEFORE}(?:FY\s*)?{_YEAR_ZH}\s*年?\s*{_NO_PART}", lambda m, d, c: None),
    (rf"{_B}{_NO_PART}\s*(?:of\s+)?(?:FY|'|’)?\s*{_YEAR}(?![\d])", lambda m, d, c: None),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?{_YEAR_ZH}\s*{_YEAR_WORD_ZH}\s*(?:的)?\s*{_NO_QUARTER_ZH}",
        lambda m, d, c: None,
    ),
]
_ABSOLUTE: list[tuple[str, Resolver]] = [
    *DATE_RULES,  # first: WITHOUT_DATES leaves out this range of rules by position
    *_IMPOSSIBLE_PARTS,
    *PART_YEAR_RULES,
    # --- absolute year + sub-period
    (
        rf"{_B}(?:the\s+)?(?P<q>{_ORD_Q})[\s-]+quarter(?:\s+of\s+|\s*,\s*|\s+){_FY_YEAR}(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"] or m["y2"]), _q_en(m["q"])),
    ),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})[\s-]+half(?:\s+of\s+|\s*,\s*|\s+){_FY_YEAR}(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"] or m["y2"]), _half_en(m["h"])),
    ),
    # "2025 first quarter", "2024 second-half": the year written first.
    (
        rf"{_B}{_FY_YEAR}(?:'s)?\s+(?:the\s+)?(?P<q>{_ORD_Q})[\s-]+quarter{_E}",
        lambda m, d, c: shared_period(_year(m["y"] or m["y2"]), _q_en(m["q"])),
    ),
    (
        rf"{_B}{_FY_YEAR}(?:'s)?\s+(?:the\s+)?(?P<h>{_ORD_H})[\s-]+half{_E}",
        lambda m, d, c: shared_period(_year(m["y"] or m["y2"]), _half_en(m["h"])),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*{_YEAR_WORD_ZH}\s*(?:的)?\s*(?:第\s*)?(?P<q>[一二三四1-4])\s*季度",
        lambda m, d, c: shared_period(_year(m["y"]), _q(m["q"])),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*{_YEAR_WORD_ZH}\s*(?:的)?\s*(?P<h>[上下])半年",
        lambda m, d, c: shared_period(_year(m["y"]), _half_zh(m["h"])),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*年?\s*[Qq](?P<q>[1-4])(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"{_NOT_BEFORE}(?:FY\s*)?(?P<y>{_YEAR_ZH})\s*年?\s*[Hh](?P<h>[12])(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"H{m['h']}"),
    ),
    (
        rf"{_B}[Qq](?P<q>[1-4])\s*(?:of\s+)?(?:FY|'|’)?\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"{_B}[Hh](?P<h>[12])\s*(?:of\s+)?(?:FY|'|’)?\s*(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"H{m['h']}"),
    ),
    # "3Q25", "1H 2025", "1H FY2025", "3QFY25": the count before its letter
    (
        rf"(?<![\dA-Za-z])(?P<q>[1-4])\s*Q\s*(?:FY\s*)?(?:'|’)?(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"Q{m['q']}"),
    ),
    (
        rf"(?<![\dA-Za-z])(?P<h>[12])\s*H\s*(?:FY\s*)?(?:'|’)?(?P<y>{_YEAR})(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), f"H{m['h']}"),
    ),
    # "FY25 H1", "FY25Q3", "2025-Q3", "Q3/2025", "Q3-25": a letter and its count beside a year
    (
        rf"{_B}FY\s*(?:'|’)?(?P<y>{_YEAR})\s*[-/]?\s*(?:(?P<q>[Qq][1-4])|(?P<h>[Hh][12])){_E}",
        lambda m, d, c: shared_period(_year(m["y"]), (m["q"] or m["h"]).upper()),
    ),
    (
        rf"{_B}(?P<y>{_YEAR4})\s*[-/]\s*(?:(?P<q>[Qq][1-4])|(?P<h>[Hh][12])){_E}",
        lambda m, d, c: shared_period(int(m["y"]), (m["q"] or m["h"]).upper()),
    ),
    (
        rf"{_B}(?:(?P<q>[Qq][1-4])|(?P<h>[Hh][12]))\s*[-/]\s*(?P<y>{_YEAR})(?![\d/.-])",
        lambda m, d, c: shared_period(_year(m["y"]), (m["q"] or m["h"]).upper()),
    ),
    # "FY2025 1H", "FY25 3Q", "2025 1H": the year first
    (
        rf"{_B}(?:FY\s*(?:'|’)?(?P<y>{_YEAR})|(?P<y4>{_YEAR4}))\s*(?P<q>[1-4])\s*Q{_E}",
        lambda m, d, c: shared_period(_year(m["y"] or m["y4"]), f"Q{m['q']}"),
    ),
    (
        rf"{_B}(?:FY\s*(?:'|’)?(?P<y>{_YEAR})|(?P<y4>{_YEAR4}))\s*(?P<h>[12])\s*H{_E}",
        lambda m, d, c: shared_period(_year(m["y"] or m["y4"]), f"H{m['h']}"),
    ),
    # --- whole fiscal years
    (
        rf"{_B}(?:FY\s*(?:'|’)?(?P<y>{_YEAR})|(?:fiscal|financial)\s+(?:year\s+)?(?P<yw>{_YEAR4}))"
        r"(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"] or m["yw"]), "FY"),
    ),
    # An apostrophe year: "in '23", "'24" (a quote mark glued to two digits, not to a word).
    (
        r"(?<![A-Za-z0-9'’])['’](?P<y>\d\d)(?![\d'’%％]|[.,]\d|[A-Za-z])",
        lambda m, d, c: shared_period(_year(m["y"]), "FY"),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR})\s*年?\s*(?:财年度?|财政年度|会计年度)",
        lambda m, d, c: shared_period(_year(m["y"]), "FY"),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR_ZH})\s*年度?(?![\d])",
        lambda m, d, c: shared_period(_year(m["y"]), "FY"),
    ),
    (
        rf"{_NOT_BEFORE}(?P<y>{_YEAR4}){_NOT_AFTER_YEAR}",
        lambda m, d, c: shared_period(int(m["y"]), "FY"),
    ),
]
_RELATIVE_ALONE: list[tuple[str, Resolver]] = [
    # --- the latest complete fiscal years: "近三年", "过去5个财年", "the past three years"
    (
        r"(?:近|最近|最新|过去)\s*(?P<n>[一二两三四五六七八九十]|\d{1,2})\s*个?\s*(?:财年|会计年度|年度|年)",
        lambda m, d, c: _latest_years(m["n"], d, c),
    ),
    (
        rf"{_B}(?:past|last|previous|prior)\s+(?P<n>{alternation(list(_COUNT_EN))}|\d{{1,2}})"
        rf"\s+(?:(?:fiscal|financial|full)\s+)?years{_E}",
        lambda m, d, c: _latest_years(m["n"], d, c),
    ),
    # "the latest year", "the most recent fiscal year": the latest complete one, as "最近一年"
    (
        rf"{_B}(?:the\s+)?(?:latest|most\s+recent)\s+(?:(?:fiscal|financial|full)\s+)?year{_E}",
        lambda m, d, c: _latest_years("1", d, c),
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
    (rf"(?P<ry>{_RY_ZH})", lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), "FY")),
    (rf"{_B}(?P<ry>{_RY_EN}){_E}", lambda m, d, c: shared_period(_rel_year(m["ry"], d, c), "FY")),
    (r"(?P<h>[上下])半年", lambda m, d, c: shared_period(c.fiscal_year(d), _half_zh(m["h"]))),
    (
        rf"{_B}(?:the\s+)?(?P<h>{_ORD_H})\s+half{_E}",
        lambda m, d, c: shared_period(c.fiscal_year(d), _half_en(m["h"])),
    ),
    (
        r"第\s*(?P<q>[一二三四1-4])\s*季度",
        lambda m, d, c: shared_period(c.fiscal_year(d), _q(m["q"])),
    ),
    (rf"{_B}[Qq](?P<q>[1-4]){_E}", lambda m, d, c: shared_period(c.fiscal_year(d), f"Q{m['q']}")),
    (rf"{_B}{_NO_PART}{_E}", lambda m, d, c: None),
    (_NO_QUARTER_ZH, lambda m, d, c: None),
    (rf"{_B}[Hh](?P<h>[12]){_E}", lambda m, d, c: shared_period(c.fiscal_year(d), f"H{m['h']}")),
]
_RULES = [*_RELATIVE_COMBOS, *_ABSOLUTE, *_RELATIVE_ALONE]
_FIRST_RELATIVE_ALONE = len(_RELATIVE_COMBOS) + len(_ABSOLUTE)


def alternatives() -> list[str]:
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
SCANNER = RuleScanner(alternatives(), re.IGNORECASE)
# The date and split-year rules begin at common letters (month names, "year", "as"), which
# nearly doubled the positions tried in English text. Each needs a hint to match, so a
# text without any (``may_hold_date``) is read by the other rules alone — the same matches,
# found sooner.
_DATE_RULES = range(len(_RELATIVE_COMBOS), len(_RELATIVE_COMBOS) + len(DATE_RULES))
WITHOUT_DATES = RuleScanner(
    [rule for i, rule in enumerate(alternatives()) if i not in _DATE_RULES], re.IGNORECASE
)


class Rule(NamedTuple):
    """One rule as a match of the scanners reads it."""

    resolve: Resolver
    relative: bool  # resolved against the reference date
    names: dict[str, str]  # the rule's groups: plain name -> its own (suffixed) name


def _rule_table() -> dict[str, Rule]:
    """Each rule under the name of its outer group ("r12"), read once per match."""
    table = {}
    for index, (pattern, resolve) in enumerate(_RULES):
        names = {name: f"{name}_{index}" for name in re.findall(r"\(\?P<(\w+)>", pattern)}
        relative = index < len(_RELATIVE_COMBOS) or index >= _FIRST_RELATIVE_ALONE
        table[f"r{index}"] = Rule(resolve, relative, names)
    return table


RULE_OF = _rule_table()
