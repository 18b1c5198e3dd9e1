"""Decide the unit and the exact value of one table cell from every marker that speaks for it.

Markers speak from four places, nearest first: the cell (text around its number, its
spreadsheet number format), the header of the line that names the metric, the other header,
and the table (title and context lines). The nearest place that states anything says what
kind of figure the cell is; a currency may come from any place, and two places naming two
currencies send the cell to review; a scale comes from the nearest place that states one, and
an amount whose markers name a currency but no scale goes to review too.
A marker of the wrong kind for the metric (money on a count row, a percent on an amount, a
bare fraction for a percent metric) is ``unit_mismatch``; nothing is ever converted between
currencies or relabelled. Scaling is done in ``Decimal`` so 8,800 under 万元 is 88 exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ragspine.ingestion.labels import LabelReading
from ragspine.ingestion.model import Cell
from ragspine.ingestion.numbers import ParsedNumber, parse_number
from ragspine.ingestion.readers.number_format import displayed_exponent
from ragspine.ingestion.table_results import ReviewReason
from ragspine.ingestion.unit_words import Marker
from ragspine.profile.model import MetricDef, MetricKind
from ragspine.units import CANONICAL_SCALE, PERCENT, Unit, UnitKind, amount

_SCIENTIFIC = re.compile(r"^-?\d(?:\.\d+)?E[+-]?\d+$", re.IGNORECASE)
# The character of 元, 港元, 美元: with no 万, 百万 or 亿 before it, the currency in whole units.
_YUAN = re.compile("[元圆圓]")


@dataclass(frozen=True)
class TableUnit:
    """What a table's title and context declare, or the problem that spoils the table."""

    marker: Marker | None = None
    problem: tuple[ReviewReason, str] | None = None


@dataclass(frozen=True)
class UnitProblem:
    reason: ReviewReason
    detail: str


def table_unit(readings: Sequence[LabelReading]) -> TableUnit:
    """The table-wide marker from its title and context (nearest first), or why there is none
    to trust: a unit-like token nobody can read."""
    for reading in readings:
        if reading.unknown_units:
            token = reading.unknown_units[0]
            return TableUnit(
                problem=(
                    ReviewReason.UNIT_UNKNOWN,
                    f"unit-like token {token!r} in {reading.text!r} is not a unit the engine "
                    "can read",
                )
            )
    declared = [r.unit for r in readings if r.unit is not None]
    if not declared:
        return TableUnit()
    # Nearest first: the title speaks before a context line, a farther line only fills in
    # what nearer ones leave out ("Key figures (A$)" above "(in millions)").
    marker = declared[0]
    for farther in declared[1:]:
        marker = Marker(
            marker.kind or farther.kind,
            marker.currency or (farther.currency if marker.kind != UnitKind.PERCENT else None),
            marker.scale if marker.scale is not None else farther.scale,
            marker.text,
        )
    return TableUnit(marker)


def cell_number(cell: Cell, reporting_currency: str | None) -> ParsedNumber | None:
    """The number a cell holds, a bare year ("2024") included. A spreadsheet cell's stored
    value is read as its number format shows it: "#,##0,," shows 512 for 512000000 and "0.0%"
    13.1 for 0.131 — exactly, never rounded to the decimals displayed."""
    parsed = parse_number(cell.text, reporting_currency)
    if cell.value is None or not math.isfinite(cell.value):
        return parsed
    if parsed is None:
        if _SCIENTIFIC.match(cell.text.strip()):  # General shows 1e308 as "1E+308"
            return ParsedNumber(cell.value)
        return None  # the format wraps the number in text that is no unit ("12.5x")
    shown = exact(cell.value, displayed_exponent(cell.value, cell.number_format))
    return ParsedNumber(shown, parsed.percent, parsed.approximate, parsed.marker)


def exact(value: float, exponent: int) -> float:
    """``value`` × 10^``exponent`` computed on its decimal digits (0.131 × 100 is 13.1)."""
    if exponent == 0:
        return value
    return float(Decimal(repr(value)).scaleb(exponent))


def resolve_unit(
    parsed: ParsedNumber,
    own: LabelReading,
    other: LabelReading,
    table: Marker | None,
    metric: MetricDef,
    reporting_currency: str | None,
) -> tuple[Unit, float] | UnitProblem:
    """The cell's unit and value in it; ``own`` is the header of the line naming the metric."""
    levels = (parsed.marker, own.unit, other.unit, table)
    stated = [m for m in levels if m is not None]
    clash = _currency_clash(levels)
    if clash is not None:
        return UnitProblem(
            ReviewReason.UNIT_MISMATCH,
            f"the cell's markers name two currencies ({clash}): which one holds is unclear",
        )
    currencies = [m.currency for m in stated if m.currency]
    nearest = stated[0] if stated else None
    scale = next((m.scale for m in stated if m.scale is not None), None)
    if metric.kind == MetricKind.RATIO:
        return _ratio(parsed, nearest, metric)
    if metric.kind == MetricKind.COUNT:
        if nearest is not None and nearest.kind not in (None, UnitKind.COUNT):
            return _mismatch(metric, nearest)
        return Unit(UnitKind.COUNT), exact(parsed.value, scale or 0)
    if nearest is not None and nearest.kind == UnitKind.PERCENT:
        return _mismatch(metric, nearest)
    if nearest is not None and nearest.kind == UnitKind.COUNT:
        return _mismatch(metric, nearest)
    default = metric.default_unit(reporting_currency)
    assert default is not None and default.currency is not None  # checked by the profile
    currency = currencies[0] if currencies else default.currency
    if metric.kind == MetricKind.PER_SHARE:
        # A table's scale ("A$ m") is for its amounts: a per-share figure is written in units.
        own_scale = next((m.scale for m in levels[:2] if m is not None and m.scale is not None), 0)
        if own_scale != 0:
            return _mismatch(metric, nearest)
        return Unit(UnitKind.PER_SHARE, currency), parsed.value
    if scale is None and currencies and default.scale != 0:
        if any(_YUAN.search(m.text) for m in stated):
            # "单位：人民币元", "（港元）": 元 with no 万, 百万 or 亿 before it is the currency's
            # own unit, stated as plainly as "millions" would be.
            return amount(currency), exact(parsed.value, -CANONICAL_SCALE)
        # "(US$)", a "2025 A$" header: a statement in whole units and a deck that left out
        # its "m" read alike; the profile's millions would only be a guess. (A profile whose
        # unit for the metric is the whole currency already says which.)
        said = next(m.text for m in stated if m.currency)
        return UnitProblem(
            ReviewReason.UNIT_UNKNOWN,
            f"{said!r} names a currency but no scale: units or millions of it is not stated",
        )
    written = default.scale if scale is None else scale
    return amount(currency), exact(parsed.value, written - CANONICAL_SCALE)


def _currency_clash(levels: tuple[Marker | None, ...]) -> str | None:
    """Two currencies where neither is nearer: the cell's own against any header or the
    table's, or the row header's against the column header's. A header's currency otherwise
    overrides the table's, as a row "Sales (RMB m)" does in a US$ table."""
    cell, own, other, _ = levels
    pairs = [(cell, m) for m in levels[1:]] + [(own, other)]
    for a, b in pairs:
        named = {m.currency for m in (a, b) if m is not None and m.currency}
        if len(named) > 1:
            return f"{a.text if a else ''!r}, {b.text if b else ''!r}"
    return None


def _ratio(
    parsed: ParsedNumber, nearest: Marker | None, metric: MetricDef
) -> tuple[Unit, float] | UnitProblem:
    if nearest is not None:
        if nearest.kind != UnitKind.PERCENT:
            return _mismatch(metric, nearest)
        return PERCENT, exact(parsed.value, nearest.scale or 0)
    if 0 < abs(parsed.value) < 1:
        return UnitProblem(
            ReviewReason.UNIT_MISMATCH,
            f"{metric.code} is a percentage, but {parsed.value:g} is written without a percent "
            "sign or format: it may be a fraction",
        )
    return PERCENT, parsed.value


def _mismatch(metric: MetricDef, marker: Marker | None) -> UnitProblem:
    said = f"{marker.text!r}" if marker is not None else "a scale"
    return UnitProblem(
        ReviewReason.UNIT_MISMATCH,
        f"{metric.code} is measured as {metric.kind.value}, but the cell is marked {said}",
    )
