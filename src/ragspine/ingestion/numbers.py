"""Read numbers and units the way report tables write them.

"(123)" is −123, "1,234.5" and full-width "１２３" are plain numbers, "55.2%" is a percentage,
"—", "n/a" or "nm" is an empty cell (``is_empty``), and "约1,300" or "1,300*" is a number
nobody should trust without a look (approximate or footnoted). Units and scales ("US$m",
"百万美元", "亿元", "bps") normalise amounts to millions so one key always means one scale.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class ParsedNumber:
    value: float
    percent: bool = False
    approximate: bool = False


@dataclass(frozen=True)
class UnitSpec:
    """A normalised unit and the factor that converts a written number into it."""

    unit: str
    factor: float = 1.0
    percent: bool = False


# What report tables write for "no value here"; "nm" is "not meaningful".
_EMPTY = frozenset(
    {"", "-", "—", "–", "--", "n/a", "na", "n.a.", "nm", "n.m.", "nil", "/", "不适用", "无"}
)
_APPROX_PREFIX = re.compile(r"^(?:约|大约|近|逾|~|≈|c\.|ca\.|approx\.?|about)\s*", re.IGNORECASE)
_FOOTNOTE_SUFFIX = re.compile(r"(?:\*+|†|‡|\([a-z]\)|[¹²³])$")
_CURRENCY_PREFIX = re.compile(r"^(?:US\$|HK\$|RMB|USD|HKD|CNY|\$|¥|￥)\s*", re.IGNORECASE)
_PLAIN = re.compile(r"^\d+(?:\.\d+)?$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def is_empty(text: str) -> bool:
    """Whether a cell says it holds no value (blank, a dash, "n/a", "不适用" …)."""
    return unicodedata.normalize("NFKC", text).strip().lower() in _EMPTY


def parse_number(text: str) -> ParsedNumber | None:
    """The number a cell shows, or None when the cell holds no number."""
    if is_empty(text):
        return None
    raw = unicodedata.normalize("NFKC", text).strip()
    approximate = False
    stripped = _APPROX_PREFIX.sub("", raw)
    if stripped != raw:
        approximate, raw = True, stripped
    stripped = _FOOTNOTE_SUFFIX.sub("", raw).rstrip()
    if stripped != raw:
        approximate, raw = True, stripped
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1].strip()
    if raw[:1] in "-−":
        negative, raw = not negative, raw[1:].strip()
    raw = _CURRENCY_PREFIX.sub("", raw)
    percent = raw.endswith("%")
    raw = raw.rstrip("%").strip()
    if not (_PLAIN.match(raw) or _GROUPED.match(raw)):
        return None
    value = float(raw.replace(",", ""))
    if math.isinf(value):
        return None  # more digits than a float holds ("9" x 400): unreadable, never infinity
    return ParsedNumber(-value if negative else value, percent, approximate)


# Most specific first: "US$bn" must not be read as "US$" + something else.
_UNITS: tuple[tuple[re.Pattern[str], UnitSpec], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), spec)
    for pattern, spec in (
        (r"US\$\s*bn|USD\s*bn|US\$\s*billion|USD\s*billion|十亿美元", UnitSpec("USD_M", 1000.0)),
        (
            r"US\$\s*'?000|USD\s*'?000|US\$\s*thousands?|USD\s*thousands?|千美元",
            UnitSpec("USD_M", 0.001),
        ),
        (
            r"US\$\s*m(?:n|illion)?(?![A-Za-z])|USD\s*m(?:n|illion)?(?![A-Za-z])|百万美元|美元百万",
            UnitSpec("USD_M"),
        ),
        (r"人民币亿元|亿元|RMB\s*100\s*m(?:illion)?(?![A-Za-z])", UnitSpec("CNY_M", 100.0)),
        (
            r"人民币百万元|百万元人民币|RMB\s*m(?:illion)?(?![A-Za-z])|CNY\s*m(?![A-Za-z])",
            UnitSpec("CNY_M"),
        ),
        (r"(?<![A-Za-z])bps(?![A-Za-z])|基点", UnitSpec("PCT", 0.01)),
        (r"%|％|百分比|percent(?:age)?", UnitSpec("PCT", percent=True)),
    )
)
UNIT_NOTE = re.compile(r"单位\s*[:：]?|units?\s*[:：]|in\s+(?=US\$|USD|RMB)", re.IGNORECASE)


def find_unit(text: str) -> tuple[UnitSpec, tuple[int, int]] | None:
    """The first unit marker in ``text`` and its span."""
    best: tuple[UnitSpec, tuple[int, int]] | None = None
    for pattern, spec in _UNITS:
        match = pattern.search(text)
        if match and (best is None or match.start() < best[1][0]):
            best = (spec, match.span())
    return best


def unit_from_number_format(number_format: str) -> UnitSpec | None:
    """Spreadsheet formats: "0.0%" is a percentage of a stored fraction."""
    if "%" in number_format:
        return UnitSpec("PCT", 100.0, percent=True)
    return None
