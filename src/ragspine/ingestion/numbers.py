"""Read numbers and units the way report tables write them.

"(123)" is −123, "1,234.5" and full-width "１２３" are plain numbers, "55.2%" is a percentage,
"—", "n/a" or "nm" is an empty cell (``is_empty``), and "约1,300" or "1,300*" is a number
nobody should trust without a look (approximate or footnoted). A unit written around the number
("HK$ 950", "3.5bn", "8,800万元") is kept as the number's marker; text around it that is not a
unit marker makes the cell no number. Footnote marks of every form ("1300¹", "1300⁽¹⁾",
"1300 (1)", "1300*", "1300†", "1300[a]") are taken off before NFKC, which would read "¹" as "1".
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from ragspine.ingestion.unit_markers import read_affix
from ragspine.ingestion.unit_words import Marker
from ragspine.units import UnitKind


@dataclass(frozen=True)
class ParsedNumber:
    value: float
    percent: bool = False
    approximate: bool = False
    marker: Marker | None = None  # the unit written around the number, if any


# What report tables write for "no value here"; "nm" is "not meaningful".
_EMPTY = frozenset(
    {"", "-", "—", "–", "--", "n/a", "na", "n.a.", "nm", "n.m.", "nil", "/", "不适用", "无"}
)
_APPROX_PREFIX = re.compile(r"^(?:约|大约|近|逾|~|≈|c\.|ca\.|approx\.?|about)\s*", re.IGNORECASE)
# Read on the raw text, before NFKC turns "¹" into "1"; one or more marks at the end.
_FOOTNOTE_SUFFIX = re.compile(
    r"(?:[⁰¹²³⁴⁵⁶⁷⁸⁹]+|⁽[⁰¹²³⁴⁵⁶⁷⁸⁹a-z]+⁾|\s*\((?:\d{1,2}|[a-z])\)|\s*\[(?:\d{1,2}|[a-z])\]"
    r"|\s*[*†‡]+)+$"
)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_PLAIN = re.compile(r"^\d+(?:\.\d+)?$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def is_empty(text: str) -> bool:
    """Whether a cell says it holds no value (blank, a dash, "n/a", "不适用" …)."""
    return unicodedata.normalize("NFKC", text).strip().lower() in _EMPTY


def parse_number(text: str, reporting_currency: str | None = None) -> ParsedNumber | None:
    """The number a cell shows, or None when the cell holds no number.

    ``reporting_currency`` settles a symbol several currencies write ("$", "¥").
    """
    if is_empty(text):
        return None
    raw, footnoted = _without_footnote(text.strip())
    raw = unicodedata.normalize("NFKC", raw).strip()
    approximate = footnoted
    stripped = _APPROX_PREFIX.sub("", raw)
    if stripped != raw:
        approximate, raw = True, stripped
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1].strip()
    elif raw.startswith("(") and ")" in raw:
        # "(3.0)%", "(12)m": the parentheses close before the unit, which must still read as one
        inside, _, after = raw[1:].rpartition(")")
        if after.strip() and not any(c.isdigit() for c in after):
            negative, raw = True, inside.strip() + after
    if raw[:1] in "-−":
        negative, raw = not negative, raw[1:].strip()
    found = _NUMBER.search(raw)
    if found is None:
        return None
    prefix, digits, suffix = raw[: found.start()], found.group(), raw[found.end() :]
    if prefix.endswith(("'", "’")):
        return None  # "HK$'000", "£'000": a thousands marker in a header, not the number 0
    if prefix.rstrip().endswith(("-", "−")):
        negative, prefix = not negative, prefix.rstrip()[:-1]  # "HK$-950"
    try:
        marker = _one_marker(
            read_affix(prefix, reporting_currency), read_affix(suffix, reporting_currency)
        )
    except ValueError:
        return None  # "FY2024", "12.5x", "2024年": text around the number that is no unit
    if not (_PLAIN.match(digits) or _GROUPED.match(digits)):
        return None
    value = float(digits.replace(",", ""))
    if math.isinf(value):
        return None  # more digits than a float holds ("9" x 400): unreadable, never infinity
    percent = marker is not None and marker.kind == UnitKind.PERCENT and marker.scale == 0
    return ParsedNumber(-value if negative else value, percent, approximate, marker)


def _without_footnote(text: str) -> tuple[str, bool]:
    """``text`` without a trailing footnote mark, and whether it had one. "(1)" alone is −1."""
    found = _FOOTNOTE_SUFFIX.search(text)
    if found is None or not any(c.isdigit() for c in text[: found.start()]):
        return text, False
    return text[: found.start()].rstrip(), True


def _one_marker(before: Marker | None, after: Marker | None) -> Marker | None:
    """The unit a prefix and a suffix state together ("HK$" + "m"); ValueError on a clash."""
    if before is None or after is None:
        return before or after
    if before.kind == UnitKind.PERCENT or after.kind == UnitKind.PERCENT:
        raise ValueError("a percent beside another unit")
    if before.currency and after.currency and before.currency != after.currency:
        raise ValueError("two currencies")
    if before.scale is not None and after.scale is not None:
        raise ValueError("two scales")
    return Marker(
        before.kind or after.kind,
        before.currency or after.currency,
        before.scale if before.scale is not None else after.scale,
        f"{before.text} {after.text}",
    )
