"""Period expressions that need the fiscal calendar to read: split years and dates.

A split-year label ("FY2024/25", "2024/25", "2024-25", "24/25财年") names the fiscal year that
ends in its second year; under a December year end no fiscal year spans two calendar years, so
such a label names no period of the profile. "Year ended 31 March 2025", "six months ended
30 September 2024" and "截至2025年3月31日止年度" name the year, half or quarter ending then,
or no period when the profile's calendar has none ending that month (a "year ended 31
December" under a March year end). A date alone ("as at 31 March 2025", "December 31, 2019",
"2019年12月31日", "31-Dec-2019") names the longest fiscal period ending in its month, else the
fiscal year that holds it. A period "ended" in a month written without its day ("six months
ended December 2024", "截至2024年12月止六个月") is read as with the day. A month of a year alone
("December 2024", "2024年12月") names the fiscal year holding that month: under a June year end
December 2024 lies in FY2025, never in FY2024 (under a December year end it is the calendar
year, as a bare year is). A rule that finds no period for its text resolves to None: the text is
still read as one period expression, so neither its year nor its month name is read as anything
else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Protocol

from ragspine.profile.fiscal_calendar import FiscalCalendar, Period, shared_period


class Groups(Protocol):
    """One rule's match, its groups read by their plain names ("" for a group that did not
    take part)."""

    def __getitem__(self, name: str) -> str: ...


DateResolver = Callable[[Groups, date, FiscalCalendar], Period | None]

_MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
# Month names never name an entity: the question parser treats them as stopwords.
MONTH_NAMES = frozenset(_MONTHS)
ORDINAL_EN = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
CN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}


def alternation(words: list[str]) -> str:
    """``words`` as one alternation, longest first, any run of spaces in a word flexible."""
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


_Y4 = r"(?:199\d|20\d\d)"
_B = r"(?<![A-Za-z0-9])"
# Not glued to a number, an amount's decimal point or separator, a currency sign or a word.
_NOT_BEFORE = r"(?<![\d.,$¥￥A-Za-z])"
_MONTH = rf"(?:{alternation(list(_MONTHS))})(?![A-Za-z])\.?"
_DAY = r"[0-3]?\d(?:st|nd|rd|th)?"
# "December 31, 2019", "Dec. 31 2019", "31 December 2019", "31st Mar, 2025", "2019-12-31".
_DATE_EN = (
    rf"(?:(?P<ma>{_MONTH})\s*(?P<da>{_DAY}),?\s*(?P<ya>{_Y4})"
    rf"|(?P<db>{_DAY})(?:\s*|-)(?P<mb>{_MONTH})(?:,?\s*|-)(?P<yb>{_Y4})"
    rf"|(?P<yi>{_Y4})[-/.](?P<mi>1[0-2]|0?[1-9])[-/.](?P<di>[0-3]?\d))(?!\d)"
)
_DATE_ZH = (
    r"(?P<yz>(?:199\d|20\d\d))\s*年\s*(?P<mz>1[0-2]|0?[1-9])\s*月\s*(?P<dz>[0-3]?\d)\s*[日号]"
)
# A month of a year without its day: "December 2024", "Dec-2024", "2024年12月" — never the
# first month of a range ("2025年1月-9月", a part of a year) nor a date's month.
_MONTH_YEAR_EN = rf"(?P<mm>{_MONTH})(?:,?\s*|-)(?P<ym>{_Y4})(?!\d)"
_MONTH_YEAR_ZH = rf"(?P<ymz>{_Y4})\s*年\s*(?P<mmz>1[0-2]|0?[1-9])\s*月(?!\s*\d)(?!\s*[-–~～至到])"
_LENGTH_EN = {
    "year": 12,
    "fiscal year": 12,
    "financial year": 12,
    "twelve months": 12,
    "12 months": 12,
    "six months": 6,
    "6 months": 6,
    "half year": 6,
    "half-year": 6,
    "three months": 3,
    "3 months": 3,
    "quarter": 3,
    "nine months": 9,
    "9 months": 9,
}
_LENGTH_ZH = {
    "年度": 12,
    "财政年度": 12,
    "财年": 12,
    "十二个月": 12,
    "12个月": 12,
    "六个月": 6,
    "6个月": 6,
    "半年度": 6,
    "半年": 6,
    "中期": 6,
    "三个月": 3,
    "3个月": 3,
    "季度": 3,
    "九个月": 9,
    "9个月": 9,
}
# What closes a period ending on a date: "ended", "ending", "to", "through".
ENDED_EN = r"(?:end(?:ed|ing)|to|through|thru)"
_SPLIT_SUFFIX = r"(?:财年度?|财政年度|会计年度|年度)"
# The two years of a split fiscal year; a bare two-digit first year only before a fiscal-year
# word ("24/25财年"), since "24/25" alone is as likely a fraction or a date.
_SPLIT = (
    rf"(?:(?:FY|fiscal\s+(?:year\s+)?|financial\s+year\s+)\s*(?P<sf>{_Y4}|\d\d)"
    rf"|(?P<sy>{_Y4})"
    rf"|(?P<sz>\d\d)(?=\s*[/\-–]\s*\d\d\s*{_SPLIT_SUFFIX}))"
    rf"\s*[/\-–]\s*(?P<se>\d\d)(?!\d)(?:\s*{_SPLIT_SUFFIX})?"
)
_ORD_Q = alternation(list(ORDINAL_EN))
_ORD_H = alternation([w for w, n in ORDINAL_EN.items() if n <= 2])


def _month(raw: str) -> int:
    return int(raw) if raw.isdigit() else _MONTHS[raw.rstrip(".").lower()]


# An English month's name ("Jan", "September", "Sept."), and its number.
MONTH_EN = _MONTH
month_number = _month


def _day(m: Groups) -> tuple[int, int] | None:
    """The (year, month) of the matched date, None when its day cannot be a day."""
    if m["mm"] or m["mmz"]:  # a month written without its day
        return int(m["ym"] or m["ymz"]), _month(m["mm"] or m["mmz"])
    day = m["da"] or m["db"] or m["di"] or m["dz"]
    if not 1 <= int(day.rstrip("stndrh")) <= 31:
        return None
    year = m["ya"] or m["yb"] or m["yi"] or m["yz"]
    return int(year), _month(m["ma"] or m["mb"] or m["mi"] or m["mz"])


_MONTH_OF_YEAR = re.compile(rf"{_MONTH_YEAR_EN}|{_MONTH_YEAR_ZH}", re.IGNORECASE)


def month_of_year(text: str) -> tuple[int, int] | None:
    """The (year, month) ``text`` names when it is a month of a year written without its day
    ("September 2025", "2025年9月"); None for anything else."""
    m = _MONTH_OF_YEAR.fullmatch(text.strip())
    if m is None:
        return None
    return int(m["ym"] or m["ymz"]), _month(m["mm"] or m["mmz"])


def _ended(months: int, m: Groups, cal: FiscalCalendar) -> Period | None:
    found = _day(m)
    return None if found is None else cal.period_ending(*found, months)


def _on_date(m: Groups, cal: FiscalCalendar) -> Period | None:
    found = _day(m)
    return None if found is None else cal.period_of_month(*found)


def _in_month(m: Groups, cal: FiscalCalendar) -> Period:
    """The fiscal year holding the matched month."""
    year, month = int(m["ym"] or m["ymz"]), _month(m["mm"] or m["mmz"])
    return shared_period(cal.fiscal_year(date(year, month, 1)), "FY")


def _split(m: Groups, cal: FiscalCalendar, kind: str) -> Period | None:
    raw = m["sf"] or m["sy"] or m["sz"]
    first = int(raw) if len(raw) == 4 else 2000 + int(raw)
    if (first + 1) % 100 != int(m["se"]) or not cal.splits_years:
        return None
    return shared_period(first + 1, kind)


def _sub_period(m: Groups) -> str:
    """The half or quarter a split-year rule names ("FY"; "Q3"; "H1"; 上半年; 第三季度)."""
    if m["q"] or m["h"]:
        return (m["q"] or m["h"]).upper()
    if m["qn"]:
        return f"Q{m['qn']}"
    if m["hn"]:
        return f"H{m['hn']}"
    if m["hz"]:
        return "H1" if m["hz"] == "上" else "H2"
    if m["qz"]:
        return f"Q{CN_DIGITS[m['qz']]}"
    if m["qo"]:
        return f"Q{ORDINAL_EN[m['qo'].lower()]}"
    if m["ho"]:
        return f"H{ORDINAL_EN[m['ho'].lower()]}"
    return "FY"


_SUB_BEFORE = (
    rf"(?:(?P<q>[Qq][1-4])|(?P<h>[Hh][12])|(?P<qn>[1-4])\s*Q|(?P<hn>[12])\s*H)\s*(?:of\s+)?"
    rf"|(?:the\s+)?(?:(?P<qo>{_ORD_Q})\s+quarter|(?P<ho>{_ORD_H})\s+half)\s+(?:of\s+)?"
)
_SUB_AFTER = (
    r"\s*(?:的)?\s*(?:(?P<q>[Qq][1-4])|(?P<h>[Hh][12])|(?P<qn>[1-4])Q|(?P<hn>[12])H"
    r"|(?P<hz>[上下])半年度?"
    r"|第?\s*(?P<qz>[一二三四1-4])\s*季度)(?![A-Za-z0-9])"
)

# Found in every text one of the rules below matches (a month name's first three letters, a
# 月…日 date, a dash or slash before two digits, a numeric date). Searched in lower case with
# every alternative opening on a plain character, which the regex engine skips to quickly.
_DATE_HINT = re.compile(
    "|".join(sorted({m[:3] for m in _MONTHS}))
    + r"|月\s*\d{1,2}\s*[日号]|年\s*\d{1,2}\s*月|[/\-–]\s*\d\d(?!\d)|[-/.]\d{1,2}[-/.]\d"
)


def may_hold_date(text: str) -> bool:
    """False only when no rule of ``DATE_RULES`` can match anywhere in ``text``."""
    return _DATE_HINT.search(text.lower()) is not None


# Most specific first; periods.py puts them before its own absolute rules.
DATE_RULES: list[tuple[str, DateResolver]] = [
    # --- a period ending on a date: "for the year ended 31 March 2025", "截至…止六个月";
    # "the nine months to September 2025" is one too
    (
        rf"{_B}(?:for\s+the\s+)?(?P<len>{alternation(list(_LENGTH_EN))})\s+{ENDED_EN}\s+"
        rf"(?:on\s+)?(?:{_DATE_EN}|{_MONTH_YEAR_EN})",
        lambda m, d, c: _ended(_LENGTH_EN[" ".join(m["len"].lower().split())], m, c),
    ),
    (
        rf"{_NOT_BEFORE}(?:(?:截至|截止)\s*)?(?:{_DATE_ZH}|{_MONTH_YEAR_ZH})\s*止?\s*"
        rf"(?P<lz>{alternation(list(_LENGTH_ZH))})",
        lambda m, d, c: _ended(_LENGTH_ZH[m["lz"]], m, c),
    ),
    # A two-line Chinese header read top to bottom: "截至12月31日止年度" above "2019年".
    (
        rf"{_NOT_BEFORE}(?:(?:截至|截止)\s*)?(?P<mz>1[0-2]|0?[1-9])\s*月\s*(?P<dz>[0-3]?\d)\s*[日号]"
        rf"\s*止\s*(?P<lz>{alternation(list(_LENGTH_ZH))})\s*(?P<yz>{_Y4})\s*年?度?(?!\d)",
        lambda m, d, c: _ended(_LENGTH_ZH[m["lz"]], m, c),
    ),
    # --- a date alone: "as at 31 March 2025", "December 31, 2019", "于2019年12月31日"
    (rf"{_B}(?:(?:as\s+(?:at|of)|at)\s+)?{_DATE_EN}", lambda m, d, c: _on_date(m, c)),
    (rf"{_NOT_BEFORE}(?:(?:于|截至|截止)\s*)?{_DATE_ZH}", lambda m, d, c: _on_date(m, c)),
    # --- a month of a year: "December 2024", "2024年12月" (not "Jan-Dec 2024", a range)
    (rf"{_B}(?<![-–~～/])(?<![-–~～/]\s){_MONTH_YEAR_EN}", lambda m, d, c: _in_month(m, c)),
    (rf"{_NOT_BEFORE}{_MONTH_YEAR_ZH}", lambda m, d, c: _in_month(m, c)),
    # --- split fiscal years, with a half or quarter before or after
    (rf"{_B}(?:{_SUB_BEFORE}){_SPLIT}", lambda m, d, c: _split(m, c, _sub_period(m))),
    (rf"{_NOT_BEFORE}{_SPLIT}{_SUB_AFTER}", lambda m, d, c: _split(m, c, _sub_period(m))),
    (rf"{_NOT_BEFORE}{_SPLIT}", lambda m, d, c: _split(m, c, "FY")),
]


def _no_period(m: Groups, day: date, cal: FiscalCalendar) -> Period | None:
    """A part of a year that is no fiscal year, half or quarter: read, never mapped."""
    return None


_SPAN_COUNT_EN = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
_SPAN_YEAR_EN = (
    rf"(?:(?:fiscal|financial)\s+(?:year\s+)?|FY\s*)?{_Y4}"
    r"|(?:this|current|last|previous|prior)\s+(?:(?:fiscal|financial)\s+)?year"
)
_SPAN_COUNT_ZH = r"(?:十[一二]?|[一二两三四五六七八九]|\d{1,2})"
_SPAN_YEAR_ZH = rf"(?:{_Y4}\s*年?|今年|本年|去年|上年)"
# "第三", "3": the optional 第 and its space, never a bare space run (a rule that could begin
# at any space would try every position of a long blank run: quadratic).
_Q_ZH = r"(?:第\s*)?[一二三四1-4]"
_TO = r"\s*(?:[-–~～至到]|to|through)\s*"

# Parts of a year no profile calendar names as one period, so a question about one is asked
# back instead of answered for the year around it (or a header column sent to review): the
# first N months or quarters ("first nine months of 2025", "9M2025", "2025年前三季度",
# "2025年1-9月"), a run of quarters ("Q1-Q3 2025", "第一至第三季度"), the year to date and the
# trailing twelve months (YTD, LTM, TTM, 年初至今, 近12个月).
PART_YEAR_RULES: list[tuple[str, DateResolver]] = [
    (
        rf"{_B}(?:the\s+)?first\s+{_SPAN_COUNT_EN}\s+(?:months?|quarters?)"
        rf"(?:\s+(?:of|in)\s+(?:the\s+)?(?:{_SPAN_YEAR_EN}))?(?![A-Za-z0-9])",
        _no_period,
    ),
    # "nine months 2025", "9 months of FY2025": a count of months with its year, "first" unsaid
    (
        rf"{_B}{_SPAN_COUNT_EN}\s+months\s+(?:(?:of|in)\s+)?(?:the\s+)?(?:{_SPAN_YEAR_EN})"
        r"(?![A-Za-z0-9])",
        _no_period,
    ),
    # "Jan-Sep 2025", "January to June 2025": a run of months with its year
    (rf"{_B}{_MONTH}{_TO}{_MONTH},?\s*(?:FY\s*)?{_Y4}(?!\d)", _no_period),
    (rf"(?<![\d.,$¥￥€£A-Za-z])(?:[1-9]|1[01])M\s*(?:FY\s*)?{_Y4}(?!\d)", _no_period),
    # "9M25", "9MFY25": the year in two digits, written against the count
    (r"(?<![\d.,$¥￥€£A-Za-z])(?:[1-9]|1[01])M(?:FY)?\d\d(?![\dA-Za-z])", _no_period),
    # A run of quarters with its year written once ("2024Q1 to Q1 2025" is two quarters).
    (
        rf"{_B}{_Y4}\s*[Qq][1-4]{_TO}[Qq][1-4](?!\s*(?:of\s+)?(?:FY\s*)?\d)"
        rf"|{_B}[Qq][1-4]{_TO}[Qq][1-4](?:\s*(?:of\s+)?(?:FY\s*)?{_Y4})?(?!\d)",
        _no_period,
    ),
    (
        rf"{_B}(?:year[-\s]to[-\s]date|YTD|LTM|TTM"
        r"|(?:the\s+)?(?:last|trailing|past)\s+(?:twelve|12)\s+months)(?![A-Za-z0-9])"
        rf"(?:\s*(?:(?:of|in)\s+)?(?:FY\s*)?{_Y4}(?!\d))?",
        _no_period,
    ),
    (
        rf"{_NOT_BEFORE}(?:{_SPAN_YEAR_ZH}\s*(?:的)?\s*)?前\s*{_SPAN_COUNT_ZH}\s*个?\s*(?:月|季度|季)"
        rf"(?:\s*{_Y4}\s*年?(?!\d))?",
        _no_period,
    ),
    (
        rf"{_NOT_BEFORE}(?:{_Y4}\s*年\s*)?(?:1[0-2]|0?[1-9])\s*(?:月\s*)?[-–~～至到]\s*"
        r"(?:1[0-2]|0?[1-9])\s*(?:月份|月)(?!\s*\d{1,2}\s*[日号])",
        _no_period,
    ),
    (
        rf"{_NOT_BEFORE}(?:{_Y4}\s*年\s*)?{_Q_ZH}\s*(?:季度\s*)?[-–~～至到]\s*{_Q_ZH}\s*季度",
        _no_period,
    ),
    (r"年初至今|今年以来|本年迄今|年内迄今|(?:过去|近|最近)\s*(?:十二|12)\s*个?月", _no_period),
]
