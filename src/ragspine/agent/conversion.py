"""Currency conversion at a rate the profile declares: the rate a figure takes, the converted
figure computed in decimal, and the lines that show it (``agent.unit_request`` asks).

A figure of a period is converted at the latest rate of its pair dated on or before the end
of that period (``profile.exchange_rates.rate_on``; the profile's fiscal calendar gives the
end). The figure is the found value times the rate, exact in decimal, shifted to the scale
asked for (else the figure's own), then rounded for display: two decimals, or three
significant digits below one. Every converted line shows the original figure, the rate, its
date and its source. A computed figure (a total, an average, an exclusion, a change) is
converted once, from the computed figure, at the one rate all its inputs take; when its inputs
take different rates (an average over years), it is not converted and the answer says so,
each input being converted on its own line.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from ragspine.agent.messages import Messages
from ragspine.agent.types import FoundFact
from ragspine.profile.display import Names
from ragspine.profile.exchange_rates import ExchangeRateDef, PostDated, rate_on
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import FiscalCalendar, Period
from ragspine.units import Unit, UnitKind

__all__ = [
    "Computed",
    "PostDated",
    "computed_conversion_lines",
    "converted",
    "exchange_rate",
    "rate_words",
]


def exchange_rate(
    profile: DomainProfile, source: str, target: str, period: Period
) -> ExchangeRateDef | PostDated | None:
    """The rate the profile declares for converting a ``source`` figure of ``period`` into
    ``target``: ``PostDated`` when all of the pair's rates are dated after the period ended,
    ``None`` when the profile declares none for the pair. No rate is assumed or looked up."""
    if not profile.exchange_rates:
        return None
    end = FiscalCalendar(profile.fiscal.year_end_month).period_end(period)
    return rate_on(profile.exchange_rates, source, target, end)


def converted(value: float, unit: Unit, rate: ExchangeRateDef, scale: int | None) -> Decimal:
    """``value`` (in ``unit``) times ``rate``, in decimal, at ``scale`` (the unit's own when
    ``None``), rounded for display."""
    shift = 0 if scale is None or unit.kind is not UnitKind.AMOUNT else unit.scale - scale
    return _for_display((Decimal(repr(value)) * rate.rate).scaleb(shift))


def _for_display(number: Decimal) -> Decimal:
    """Two decimals; three significant digits for a figure below one (0.0312 bn)."""
    if number == 0 or abs(number) >= 1:
        places = Decimal("0.01")
    else:
        places = Decimal(1).scaleb(number.adjusted() - 2)
    return number.quantize(places, rounding=ROUND_HALF_UP)


def target_unit(unit: Unit, target: str, scale: int | None) -> Unit:
    """The unit a converted figure is shown in: the target currency, at the scale asked."""
    if unit.kind is not UnitKind.AMOUNT:
        return Unit(unit.kind, target)
    return Unit(UnitKind.AMOUNT, target, unit.scale if scale is None else scale)


class RateWords(NamedTuple):
    """A rate as an answer writes it: "7.8", the pair, its date and its source."""

    rate: str
    source: str
    target: str
    as_of: str
    reference: str


def rate_words(rate: ExchangeRateDef) -> RateWords:
    return RateWords(
        format(rate.rate.normalize(), "f"),
        rate.from_currency,
        rate.to_currency,
        rate.as_of.isoformat(),
        rate.source,
    )


class Computed(NamedTuple):
    """A figure a computed answer states (a total, an average, a change), in ``unit``, and
    the found facts it was computed from."""

    value: float
    unit: str
    inputs: tuple[FoundFact, ...]


def computed_conversion_lines(
    profile: DomainProfile,
    computed: Sequence[Computed],
    asked: tuple[int | None, str | None],
    label: str,
    msgs: Messages,
    names: Names,
) -> list[str]:
    """Each computed figure converted once at the one rate its inputs take, or the reason it
    is not; nothing when no currency other than the figure's own is asked for. ``label`` names
    the currency and scale asked ("HKD billions", "亿港元")."""
    scale, currency = asked
    lines: list[str] = []
    for figure in computed:
        unit = Unit.parse(figure.unit)
        if currency is None or unit.currency is None or unit.currency == currency:
            continue
        source = unit.currency
        rates = [exchange_rate(profile, source, currency, f.slots.period) for f in figure.inputs]
        declared = [r for r in rates if isinstance(r, ExchangeRateDef)]
        if not rates or len(declared) < len(rates):
            continue  # a missing or post-dated rate: the inputs' lines say why
        stated = names.value(figure.value, unit)
        if len(set(declared)) > 1:
            dates = sorted({r.as_of.isoformat() for r in declared})
            lines.append(msgs.computed_not_converted(stated, source, currency, dates))
            continue
        rate = declared[0]
        shown = names.value(
            float(converted(figure.value, unit, rate, scale)), target_unit(unit, currency, scale)
        )
        lines.append(msgs.computed_converted(label, shown, stated, *rate_words(rate)))
    return lines
