"""The typed unit of a fact — kind, ISO 4217 currency and scale — and the code string it is
stored as.

A fact row keeps one unit *code*, and the code says the whole unit so it round-trips:

===========  ==============================================  ================================
code         unit                                            example
===========  ==============================================  ================================
``USD_M``    amount, US dollars, millions (10^6)             the canonical scale of amounts
``AUD_K``    amount, Australian dollars, thousands (10^3)    (``_B`` 10^9, ``_T`` 10^12)
``EUR_E0``   amount, euros, any other power of ten           ``_E<n>`` is 10^n
``AUD_PS``   per-share amount, Australian dollars (units)    earnings per share
``PCT``      percent (ratio)                                 55.2 means 55.2%
``COUNT``    a count of things (units)                       head count, policies
===========  ==============================================  ================================

Codes written before this module (``USD_M``, ``CNY_M``, ``PCT``, ``COUNT``) keep their meaning.
Currencies are any ISO 4217 code CLDR knows (via Babel); nothing here converts between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from babel.numbers import get_currency_name, get_currency_symbol, list_currencies


class UnitKind(StrEnum):
    AMOUNT = "amount"
    COUNT = "count"
    PERCENT = "percent"
    PER_SHARE = "per_share"


# Amounts are stored in millions: one key always means one scale, whatever the table wrote.
CANONICAL_SCALE = 6
_SCALE_LETTERS = {3: "K", 6: "M", 9: "B", 12: "T"}
_LETTER_SCALES = {letter: scale for scale, letter in _SCALE_LETTERS.items()}
_CODE = re.compile(r"^([A-Z]{3})_(?:([KMBT])|E(-?\d{1,2})|(PS))$")


@dataclass(frozen=True)
class Unit:
    """A fact's unit. ``scale`` is the power of ten one stored unit is worth (6: millions);
    ``currency`` is set for amounts and per-share amounts only."""

    kind: UnitKind
    currency: str | None = None
    scale: int = 0

    def __post_init__(self) -> None:
        money = self.kind in (UnitKind.AMOUNT, UnitKind.PER_SHARE)
        if money != (self.currency is not None):
            raise ValueError(f"a {self.kind.value} unit {'needs' if money else 'has no'} currency")
        if self.currency is not None and not is_currency(self.currency):
            raise ValueError(f"{self.currency!r} is not an ISO 4217 currency code")
        if self.kind != UnitKind.AMOUNT and self.scale != 0:
            raise ValueError(f"a {self.kind.value} unit has no scale")

    @property
    def code(self) -> str:
        if self.kind == UnitKind.PERCENT:
            return "PCT"
        if self.kind == UnitKind.COUNT:
            return "COUNT"
        if self.kind == UnitKind.PER_SHARE:
            return f"{self.currency}_PS"
        return f"{self.currency}_{_SCALE_LETTERS.get(self.scale, f'E{self.scale}')}"

    @classmethod
    def parse(cls, code: str) -> Unit:
        """The unit a code names; a ValueError says why a code is not one."""
        return _parse(code)


@lru_cache(maxsize=1024)  # a handful of codes, parsed for every figure shown
def _parse(code: str) -> Unit:
    if code == "PCT":
        return PERCENT
    if code == "COUNT":
        return COUNT
    found = _CODE.match(code)
    if found is None:
        raise ValueError(
            f"unit code {code!r} is not PCT, COUNT, <ISO>_PS or <ISO>_<K|M|B|T|E<n>> (e.g. USD_M)"
        )
    currency, letter, power, per_share = found.groups()
    if per_share:
        return Unit(UnitKind.PER_SHARE, currency)
    scale = _LETTER_SCALES[letter] if letter else int(power)
    return Unit(UnitKind.AMOUNT, currency, scale)


PERCENT = Unit(UnitKind.PERCENT)
COUNT = Unit(UnitKind.COUNT)


def amount(currency: str, scale: int = CANONICAL_SCALE) -> Unit:
    return Unit(UnitKind.AMOUNT, currency, scale)


# The X-codes that are money; the rest (XAU gold, XAG silver, XDR, XTS testing…) are not what
# a report's figures are counted in, and their Chinese names ("银", "黄金") are common words.
_MONEY_X_CODES = frozenset({"XAF", "XOF", "XCD", "XPF", "XCG"})


@lru_cache(maxsize=1)
def currency_codes() -> frozenset[str]:
    """Every ISO 4217 currency code CLDR knows (current and historic), metals and funds aside."""
    return frozenset(c for c in list_currencies() if not c.startswith("X") or c in _MONEY_X_CODES)


def is_currency(code: str) -> bool:
    return code in currency_codes()


# Spellings CLDR does not hold but reports write: "RMB" is the everyday name of CNY, "港币" the
# mainland name of the HKD, "美金" a colloquial US dollar.
_EXTRA_SPELLINGS = {
    "rmb": "CNY",
    "renminbi": "CNY",
    "人民币": "CNY",
    "人民幣": "CNY",
    "hk dollars": "HKD",
    "hk dollar": "HKD",
    "港币": "HKD",
    "港幣": "HKD",
    "港圆": "HKD",
    "美金": "USD",
    "日圆": "JPY",
    "yuan": "CNY",
    "yen": "JPY",
    "sterling": "GBP",
    "pounds sterling": "GBP",
    "pounds": "GBP",
}
_LOCALES = ("en", "zh", "zh_Hant", "zh_Hant_HK")


@lru_cache(maxsize=1)
def currency_spellings() -> dict[str, tuple[str, ...]]:
    """Lower-cased spelling → the ISO codes it may name, from CLDR (codes, symbols, English and
    Chinese names, singular and plural). A spelling naming several ("$", "¥") lists them all."""
    found: dict[str, set[str]] = {}
    for code in currency_codes():
        spellings = {code, *(get_currency_symbol(code, loc) for loc in _LOCALES)}
        spellings |= {get_currency_name(code, locale=loc) for loc in _LOCALES}
        spellings.add(get_currency_name(code, count=2, locale="en"))
        for spelling in spellings:
            if spelling and not spelling.isdigit() and spelling != "¤":
                found.setdefault(spelling.lower(), set()).add(code)
    for spelling, code in _EXTRA_SPELLINGS.items():
        found[spelling] = {code}
    # A bare "$" or "dollars" may be any dollar: read through the profile (see resolve).
    dollars = {c for c in currency_codes() if get_currency_symbol(c, "en").endswith("$")}
    found["$"] = dollars | {"USD"}
    found["dollars"] = found["dollar"] = dollars | {"USD"}
    found["¥"] = {"CNY", "JPY"}
    return {spelling: tuple(sorted(codes)) for spelling, codes in found.items()}


# Which currency an ambiguous spelling means when the profile does not settle it: "$" in a
# report is the US dollar unless the company reports in another dollar, "¥" and "元" the yuan.
_CONVENTIONAL = {"$": "USD", "¥": "CNY", "元": "CNY", "dollars": "USD", "dollar": "USD"}


def resolve(spelling: str, reporting_currency: str | None) -> str | None:
    """The ISO code ``spelling`` names: itself when unique; else the reporting currency when it
    is one of the candidates; else the conventional reading; None when nothing settles it."""
    key = spelling.lower()
    codes = currency_spellings().get(key, ())
    if len(codes) == 1:
        return codes[0]
    if reporting_currency is not None and (reporting_currency in codes or key == "元"):
        return reporting_currency if key != "元" or _yuan_like(reporting_currency) else "CNY"
    return _CONVENTIONAL.get(key)


def _yuan_like(code: str) -> bool:
    """Whether Chinese names this currency with "元" (港元, 美元, 日元 — not 英镑, 瑞士法郎)."""
    return get_currency_name(code, locale="zh").endswith("元") or code == "CNY"
