"""Values, units and names as a person reads them, in the question's language.

One place turns a stored value and its unit code (``units``) into the text every answer line,
the web page, the CLI and the API's ``*_display`` fields show, and turns a profile code into its
name. The convention:

============  ===========================  ==========================  =========================
kind          English                      Chinese                     note
============  ===========================  ==========================  =========================
amount        ``US$ 2,850 m``              ``2,850 百万美元``           symbol, number, scale
amount (CNY)  ``RMB 1,250 m``              ``1,250 百万人民币``
per share     ``US$ 1.23``                 ``1.23 美元``               the currency, no scale
percent       ``63.80%``                   ``63.80%``                  at least two decimals
count         ``12,000``                   ``12,000``                  no unit word
============  ===========================  ==========================  =========================

English symbols are CLDR's international-English ones (``US$``, ``A$``, ``€``, ``JP¥``; a
code such as ``CHF`` where CLDR has no symbol), except the yuan, which reports write ``RMB``.
Chinese names are CLDR's (``美元``, ``欧元``, ``人民币``). Scales: ``k``/``m``/``bn``/``tn`` and
千/万/百万/亿/十亿/万亿; any other power of ten is written ``×10^n``. A number is printed as
stored — thousands grouped, every stored digit kept (up to six decimals), never rounded to a
display precision — except a change in percent, which code computes at full precision and
prints with two decimals. Nothing here converts between currencies or scales.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from babel.numbers import get_currency_name, get_currency_symbol

from ragspine.profile.model import DomainProfile
from ragspine.units import Unit, UnitKind

# Reports and readers write the yuan "RMB", not CLDR's symbol for it.
_SYMBOL_OVERRIDES = {"CNY": "RMB"}
_EN_SCALES = {0: "", 3: "k", 6: "m", 9: "bn", 12: "tn"}
_ZH_SCALES = {
    0: "",
    2: "百",
    3: "千",
    4: "万",
    6: "百万",
    7: "千万",
    8: "亿",
    9: "十亿",
    12: "万亿",
}
# Digits a stored value keeps: floats stored from written numbers never need more.
_DECIMALS = 6


def _zh(language: str) -> bool:
    return language == "zh"


def plain_number(value: float, *, signed: bool = False, min_decimals: int = 0) -> str:
    """``3480.0`` → ``3,480``, ``12.5`` → ``12.5``: grouped, every stored digit kept (up to six
    decimals), at least ``min_decimals``; ``signed`` puts "+" before a non-negative value."""
    if not math.isfinite(value):
        raise ValueError(f"cannot show non-finite value {value!r}")
    rounded = round(value, _DECIMALS)
    text = f"{abs(rounded):,.{_DECIMALS}f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    fraction = fraction.ljust(min_decimals, "0")
    text = f"{whole}.{fraction}" if fraction else whole
    negative = rounded < 0 and text.strip("0.,") != ""
    if negative:
        return f"-{text}"
    return f"+{text}" if signed else text


@lru_cache(maxsize=256)
def currency_label(currency: str, language: str) -> str:
    """How a person writes a currency: ``US$``/``RMB``/``€`` in English, ``美元`` in Chinese."""
    if _zh(language):
        return get_currency_name(currency, locale="zh")
    return _SYMBOL_OVERRIDES.get(currency) or get_currency_symbol(currency, "en_001")


def _scale_word(scale: int, language: str) -> str:
    words = _ZH_SCALES if _zh(language) else _EN_SCALES
    return words.get(scale, f"×10^{scale}")


def _unit(unit: Unit | str) -> Unit:
    return unit if isinstance(unit, Unit) else Unit.parse(unit)


def unit_label(unit: Unit | str, language: str) -> str:
    """A unit alone, as a column heading or chart caption says it: ``US$ m``, ``百万美元``,
    ``%``; empty for a count."""
    u = _unit(unit)
    if u.kind == UnitKind.PERCENT:
        return "%"
    if u.kind == UnitKind.COUNT or u.currency is None:
        return ""
    name = currency_label(u.currency, language)
    if u.kind == UnitKind.PER_SHARE:
        return f"{name}/股" if _zh(language) else f"{name} per share"
    scale = _scale_word(u.scale, language)
    if _zh(language):
        return f"{scale}{name}"
    return f"{name} {scale}".strip()


@lru_cache(maxsize=1024)  # pure; an answer shows the same few figures again and again
def format_value(value: float, unit: Unit | str, language: str, *, signed: bool = False) -> str:
    """A value with its unit, as a person reads it (see the module docstring)."""
    u = _unit(unit)
    if u.kind == UnitKind.PERCENT:
        return f"{plain_number(value, signed=signed, min_decimals=2)}%"
    number = plain_number(value, signed=signed)
    if u.kind == UnitKind.COUNT or u.currency is None:
        return number
    name = currency_label(u.currency, language)
    scale = _scale_word(u.scale, language) if u.kind == UnitKind.AMOUNT else ""
    if _zh(language):
        return f"{number} {scale}{name}"
    sign, digits = (number[0], number[1:]) if number[0] in "+-" else ("", number)
    return f"{sign}{name} {digits}{' ' + scale if scale else ''}"


def format_percent_change(later: float, earlier: float) -> str | None:
    """The relative change, computed at full precision and printed ``+13.63%``; None when the
    base is zero or negative: a change from a loss (-45 to 38) is no "+184%" growth."""
    if earlier <= 0:
        return None
    return f"{(later - earlier) / abs(earlier) * 100:+.2f}%"


def percent_points(value: float) -> str:
    """A difference of two percents, in points, with at least two decimals: ``+0.60``."""
    return plain_number(value, signed=True, min_decimals=2)


@dataclass(frozen=True)
class Names:
    """A profile's codes as names in one language; a code the profile lacks is shown as is."""

    profile: DomainProfile
    language: str

    def _pick(self, zh: str, en: str, code: str) -> str:
        first, second = (zh, en) if _zh(self.language) else (en, zh)
        return first or second or code

    def entity(self, code: str) -> str:
        found = self.profile.entity(code)
        return code if found is None else self._pick(found.name_zh, found.name_en, code)

    def metric(self, code: str) -> str:
        found = self.profile.metric(code)
        return code if found is None else self._pick(found.name_zh, found.name_en, code)

    def channel(self, code: str) -> str:
        found = self.profile.channel(code)
        return code if found is None else self._pick(found.name_zh, found.name_en, code)

    def value(self, value: float, unit: Unit | str, *, signed: bool = False) -> str:
        return format_value(value, unit, self.language, signed=signed)

    def unit(self, unit: Unit | str) -> str:
        return unit_label(unit, self.language)

    def unit_currency(self, unit: Unit | str) -> str:
        """The currency a unit is in, as a person writes it (``RMB``, ``US$``, ``美元``)."""
        currency = _unit(unit).currency
        return self.unit(unit) if currency is None else currency_label(currency, self.language)


def currency_of(unit: str) -> str | None:
    """The ISO currency of a unit code, None for a percent, a count or a code that is none."""
    try:
        return Unit.parse(unit).currency
    except ValueError:
        return None
