"""Read the values an answer states, as a person reads them, back into numbers and unit codes.

Answers show ``US$ 2,850 m``, ``2,850 百万美元``, ``63.80%``, ``+US$ 255 m`` or ``12,000``
(``profile.display``). The eval reads them with its own reader — a number with the text around
it, read by ingestion's cell reader (``ingestion.numbers.parse_number``, the code that reads
report cells), never by the code that wrote them — so a display bug is measured, not shared:

- ``stated_values``: every (value, unit code) the answer states; thousands separators and the
  currency symbol or scale word are read, not counted as numbers;
- ``legacy_view``: the answer with each stated value rewritten the way golden cases write
  values (``-255 USD_M``, ``3105``), so ``derived`` and ``forbidden`` strings written in that
  form still match;
- ``states_percent``: whether the answer states a signed percentage that a ``derived`` one
  (``+8.9%``) rounds from at its own precision (answers print two decimals: ``+8.94%``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragspine.ingestion.numbers import parse_number
from ragspine.units import COUNT, PERCENT, Unit, UnitKind

# A sign, a currency-like prefix ("US$", "RMB", "€", "CHF"), the number, then what may follow
# it: a percent sign, a short scale word, or a run of CJK characters (a scale and currency name).
_VALUE = re.compile(
    r"(?P<sign>[+-])?"
    r"(?P<pre>(?:[A-Z]{1,3}\$|[A-Z]{3}|[A-Z]{1,2}[¥€£]|[$€£¥₹₩])\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<post>%|\s?(?:k|m|bn|tn)(?![A-Za-z0-9])|\s?[\u4e00-\u9fff]{1,8})?"
)
_DERIVED_VALUE = re.compile(r"^([+-]\d[\d,]*(?:\.\d+)?)\s+([A-Z][A-Z0-9_]*)$")
_DERIVED_PERCENT = re.compile(r"^([+-]\d+(?:\.(\d+))?)%$")


@dataclass(frozen=True)
class Stated:
    """One value the answer states: its signed value, unit code, whether a sign was written,
    and where it stands in the answer."""

    value: float
    unit: str
    signed: bool
    start: int
    end: int


def _read(sign: str, pre: str, num: str, post: str) -> tuple[float, Unit] | None:
    """The value and unit ``pre num post`` writes, trying shorter suffixes for CJK text that
    runs on past the unit name; None when no reading explains the text."""
    for tail in (post[:cut] for cut in range(len(post), -1, -1)):
        if tail.strip() == "" and tail:
            continue
        parsed = parse_number(f"{pre}{num}{tail}")
        if parsed is None:
            continue
        marker = parsed.marker
        value = -parsed.value if sign == "-" else parsed.value
        if marker is None:
            return value, COUNT
        if marker.kind == UnitKind.PERCENT and marker.scale == 0:
            return value, PERCENT
        if marker.kind == UnitKind.AMOUNT and marker.currency:
            scale = marker.scale
            kind = UnitKind.AMOUNT if scale is not None else UnitKind.PER_SHARE
            return value, Unit(kind, marker.currency, scale or 0)
        return None
    return None


def _matches(answer: str) -> list[tuple[re.Match[str], float, Unit]]:
    found = []
    for match in _VALUE.finditer(answer):
        sign, pre, num, post = (match.group(g) or "" for g in ("sign", "pre", "num", "post"))
        read = _read(sign, pre, num, post)
        if read is None and pre:
            read = _read(sign, "", num, post)
        if read is not None:
            found.append((match, *read))
    return found


def stated_values(answer: str) -> list[Stated]:
    """Every value the answer states with its unit code (a plain number reads as a count)."""
    return [
        Stated(value, unit.code, bool(m.group("sign")), m.start(), m.end())
        for m, value, unit in _matches(answer)
    ]


def _legacy(value: float, unit: Unit, signed: bool) -> str:
    number = f"{value:+}" if signed else str(value)
    number = number.removesuffix(".0")
    if unit == COUNT:
        return number
    if unit == PERCENT:
        return f"{number}%"
    return f"{number} {unit.code}"


def legacy_view(answer: str) -> str:
    """The answer with every stated value written ``-255 USD_M`` / ``3105`` / ``55.2%``."""
    parts: list[str] = []
    at = 0
    for match, value, unit in _matches(answer):
        parts += [answer[at : match.start()], _legacy(value, unit, bool(match.group("sign")))]
        at = match.end()
    parts.append(answer[at:])
    return "".join(parts)


def states_derived(answer: str, derived: str) -> bool:
    """Whether the answer states the ``derived`` string of a golden case: ``+255 USD_M`` as a
    signed value in that unit, ``+8.9%`` as a signed percentage rounding to it, anything else
    as written (or as written in the legacy view)."""
    value = _DERIVED_VALUE.match(derived)
    percent = _DERIVED_PERCENT.match(derived)
    stated = stated_values(answer)
    if value is not None:
        want = float(value.group(1).replace(",", ""))
        code = value.group(2)
        return any(s.signed and s.unit == code and abs(s.value - want) < 1e-6 for s in stated)
    if percent is not None:
        want = float(percent.group(1))
        decimals = len(percent.group(2) or "")
        # The true change lies within half a unit of the derived string's last digit; the
        # answer's two-decimal figure lies within 0.005 of the true change.
        slack = 0.5 * 10**-decimals + 0.005 + 1e-9
        return any(
            s.signed and s.unit == PERCENT.code and abs(s.value - want) <= slack for s in stated
        )
    return derived in answer or derived in legacy_view(answer)
