"""Render a spreadsheet number the way its cell's number format shows it ("55.2%", "1,320").

Covers the formats financial workbooks use — General, fixed decimals, thousands separators,
percent, currency symbols and literals, negative sections in parentheses, scaling by trailing
commas, scientific — and falls back to General for anything else (fractions, conditions), so a
reader always gets the number even when the decoration is lost.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

_PLACEHOLDERS = frozenset("0#?")
# "[$US$-409]" shows "US$"; "[$-409]" (a locale only) shows nothing; "[$€-x-euro2]" (a named
# currency style) shows "€".
_CURRENCY_TAG = re.compile(r"^\[\$([^-\]]*)(?:-[0-9A-Za-z][0-9A-Za-z-]*)?\]$")


@dataclass(frozen=True)
class _Section:
    prefix: str
    pattern: str  # the digit placeholders with their "," and "."
    suffix: str
    percent: int  # how many "%" (each multiplies by 100)
    scientific: bool


def render_number(value: float, number_format: str) -> str:
    """``value`` as ``number_format`` displays it; General rendering for unknown formats."""
    if not math.isfinite(value):
        return render_general(value)
    text, negative_by_sign = _pick_section(_split_sections(number_format.strip()), value)
    sign = "-" if negative_by_sign and value < 0 else ""
    if text.strip().lower() in ("", "general"):
        return sign + render_general(abs(value))
    section = _parse_section(text)
    if section is None:
        return render_general(value)
    if not section.pattern:
        return section.prefix + section.suffix  # a format of literals only, e.g. ";;;" or "-"
    try:
        number = _render_pattern(abs(Decimal(repr(float(value)))), section)
    except InvalidOperation:  # too many digits for the context (1e308 as "#,##0"): as Excel's
        return render_general(value)  # "#####" would not say the number, General does
    return f"{sign}{section.prefix}{number}{section.suffix}".strip()


def displayed_exponent(value: float, number_format: str) -> int:
    """The power of ten the format shows ``value`` at: "#,##0,," shows millions (-6), "0.0%"
    hundredths (+2); 0 for General and for formats it cannot read."""
    text, _ = _pick_section(_split_sections(number_format.strip()), value)
    if text.strip().lower() in ("", "general"):
        return 0
    section = _parse_section(text)
    if section is None or not section.pattern:
        return 0
    commas = len(section.pattern) - len(section.pattern.rstrip(","))
    return 2 * section.percent - 3 * commas


def render_general(value: float) -> str:
    """Excel's General: integers without a decimal point, other numbers without float noise."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".15g")


def _split_sections(number_format: str) -> list[str]:
    """Split on ";" outside quotes, brackets and escapes (positive;negative;zero;text)."""
    sections: list[str] = []
    current: list[str] = []
    quoted = bracketed = escaped = False
    for char in number_format:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif not quoted and char in "[]":
            bracketed = char == "["
        elif char == ";" and not (quoted or bracketed):
            sections.append("".join(current))
            current = []
            continue
        current.append(char)
    sections.append("".join(current))
    return sections


def _pick_section(sections: list[str], value: float) -> tuple[str, bool]:
    """The section that formats ``value`` and whether a minus sign must be added to it."""
    if value < 0 and len(sections) >= 2:
        return sections[1], False  # the negative section spells its own sign, e.g. "(#,##0)"
    if value == 0 and len(sections) >= 3:
        return sections[2], False
    return sections[0], True


def _parse_section(text: str) -> _Section | None:
    """Split a section into literal prefix, digit pattern and literal suffix; None if unsure."""
    prefix: list[str] = []
    pattern: list[str] = []
    suffix: list[str] = []
    percent = 0
    scientific = False
    i = 0
    while i < len(text):
        char = text[i]
        out = suffix if pattern else prefix
        if char == '"':
            end = text.find('"', i + 1)
            end = len(text) if end < 0 else end
            out.append(text[i + 1 : end])
            i = end + 1
            continue
        if char == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if char in "_*":  # "_)" pads to a glyph's width, "*-" fills the cell: no visible text
            i += 2
            continue
        if char == "[":
            end = text.find("]", i)
            end = len(text) if end < 0 else end
            tag = _CURRENCY_TAG.match(text[i : end + 1])
            if tag is None and not text[i + 1 : end].isalpha():
                return None  # a condition such as "[>=1000]" or a duration such as "[h]"
            out.append(tag.group(1) if tag else "")  # colours ("[Red]") show nothing
            i = end + 1
            continue
        if char in _PLACEHOLDERS or (char in ",." and pattern and not suffix):
            if suffix:
                return None  # a second digit group: a fraction "# ?/?" or similar
            pattern.append(char)
        elif char in "Ee" and pattern and text[i + 1 : i + 2] in ("+", "-"):
            scientific = True
            i += 2
            while i < len(text) and text[i] in _PLACEHOLDERS:
                i += 1
            continue
        elif char == "%":
            percent += 1
            out.append(char)
        elif char == "@":
            return None  # a text format: Excel shows a number in it as General
        else:
            out.append(char)
        i += 1
    return _Section("".join(prefix), "".join(pattern), "".join(suffix), percent, scientific)


def _render_pattern(value: Decimal, section: _Section) -> str:
    with localcontext() as context:
        context.prec = 60  # room for any float's digits plus the decimals asked for
        return _render_digits(value, section)


def _render_digits(value: Decimal, section: _Section) -> str:
    pattern = section.pattern.rstrip(",")
    # Each comma right after the last digit divides by a thousand ("#,##0," shows thousands).
    value = value / (Decimal(1000) ** (len(section.pattern) - len(pattern)))
    value = value * (Decimal(100) ** section.percent)
    integer_part, _, fraction_part = pattern.partition(".")
    max_decimals = sum(c in _PLACEHOLDERS for c in fraction_part)
    if section.scientific:
        return f"{float(value):.{max_decimals}E}"
    min_decimals = fraction_part.count("0")
    rounded = value.quantize(Decimal(1).scaleb(-max_decimals), rounding=ROUND_HALF_UP)
    grouping = "," if "," in integer_part else ""
    text = f"{rounded:{grouping}.{max_decimals}f}"
    if max_decimals > min_decimals:
        whole, _, decimals = text.partition(".")
        decimals = decimals.rstrip("0").ljust(min_decimals, "0")
        text = f"{whole}.{decimals}" if decimals else whole
    if "0" not in integer_part and text.startswith("0") and (max_decimals or rounded == 0):
        text = text[1:]  # "#.00" shows ".55", "#,###" shows nothing for zero
    return text
