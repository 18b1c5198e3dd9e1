"""Scale and currency on request: "in billions", "以亿元计" and the like.

A question may ask for its figures in another scale ("in billions", "in thousands",
"以亿元计", "以百万元计") or another currency ("in euros", "换算成美元", "以亿美元计"), or ask how
many of them the figure is ("how many billion US dollars", "是多少亿美元", "几亿港元"). The parser
finds such a request (``find_unit_request``, ``agent.unit_request_words``), blanks it so that
no word of it reads as a name, and keeps it in the intent's ``extra``. The answer then keeps
every found fact's own line (the cited figure) and adds, for each amount, the same figure
rescaled by code: a power of ten within the fact's own currency, exact in decimal. A figure in
another currency than the one asked is converted at a rate the profile declares
(``agent.conversion``: the latest of its pair dated on or before the end of the figure's
period), the line showing the rate, its date
and its source; without such a rate the conversion is refused with the reason (none declared,
or every declared rate dated after the period) and the figure stays in its reported currency.
A percentage or a count has no scale or currency to change, which the answer says too. A
request is never silently dropped, on a plain answer or a computed one (``agent.analyst``).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from babel.numbers import get_currency_name

from ragspine.agent.conversion import (
    Computed,
    PostDated,
    computed_conversion_lines,
    converted,
    exchange_rate,
    rate_words,
    target_unit,
)
from ragspine.agent.messages import Messages
from ragspine.agent.render import found_subject
from ragspine.agent.types import AgentResult, FoundFact, ParsedIntent
from ragspine.agent.unit_request_words import (
    CURRENCY_KEY,
    SCALE_KEY,
    ZH_SCALES,
    UnitRequest,
    find_unit_request,
)
from ragspine.profile.display import Names
from ragspine.profile.exchange_rates import ExchangeRateDef
from ragspine.units import Unit, UnitKind

__all__ = [
    "CURRENCY_KEY",
    "SCALE_KEY",
    "UnitRequest",
    "computed_unit_lines",
    "exchange_rate",
    "find_unit_request",
    "rescale_factors",
    "unit_request_lines",
]


def requested(intent: ParsedIntent | None) -> tuple[int | None, str | None]:
    """The scale and currency ``intent`` asks for (``None`` each when it asks for none)."""
    if intent is None or not intent.extra:
        return None, None
    scale = intent.extra.get(SCALE_KEY)
    return (int(scale) if scale is not None else None), intent.extra.get(CURRENCY_KEY)


def unit_request_lines(
    intent: ParsedIntent,
    found: Sequence[FoundFact],
    msgs: Messages,
    default_channel: str,
    names: Names,
) -> list[str]:
    """The lines a unit request adds under the found facts: each amount rescaled or converted,
    a percentage or count left as is, a conversion refused, each said once."""
    scale, currency = requested(intent)
    if scale is None and currency is None:
        return []
    lines: list[str] = []
    zh = intent.language == "zh"
    not_scalable: list[str] = []
    refused: dict[str, None] = {}
    post_dated: dict[str, tuple[list[str], ExchangeRateDef]] = {}
    moneyless: list[str] = []  # a percentage or count asked for in a currency
    for fact in found:
        try:
            unit = Unit.parse(fact.unit)
        except ValueError:
            continue
        rate: ExchangeRateDef | None = None
        if currency is None or unit.currency == currency:
            pass
        elif unit.currency is None:
            moneyless.append(names.metric(fact.slots.metric))
        else:
            choice = exchange_rate(names.profile, unit.currency, currency, fact.slots.period)
            if isinstance(choice, ExchangeRateDef):
                rate = choice
            elif isinstance(choice, PostDated):
                periods, _ = post_dated.setdefault(unit.currency, ([], choice.earliest))
                periods.append(fact.slots.period.label)
            else:
                refused[unit.currency] = None
        if scale is not None and (unit.kind is not UnitKind.AMOUNT or unit.currency is None):
            not_scalable.append(names.metric(fact.slots.metric))
        if rate is not None and currency is not None:
            lines.append(_converted_line(fact, unit, rate, scale, currency, msgs, names, zh))
            continue
        if scale is None or unit.kind is not UnitKind.AMOUNT or unit.currency is None:
            continue
        shifted = float(_shifted(fact.value, unit.scale - scale))
        value = names.value(shifted, Unit(UnitKind.AMOUNT, unit.currency, scale))
        label = _scale_label(scale, unit.currency, zh)
        where = fact.source
        lines.append(
            msgs.rescaled(
                found_subject(fact, msgs, default_channel, names),
                label,
                value,
                names.value(fact.value, fact.unit),
                where.doc,
                where.locator,
            )
        )
    if not_scalable:
        lines.append(msgs.not_rescalable(list(dict.fromkeys(not_scalable))))
    if currency is not None and refused:
        lines.append(msgs.no_conversion(currency, list(refused)))
    for reported, (periods, earliest) in post_dated.items():
        assert currency is not None  # only a currency asked for is converted
        when = list(dict.fromkeys(periods))
        lines.append(msgs.rate_post_dated(currency, reported, when, earliest.as_of.isoformat()))
    if moneyless:
        lines.append(msgs.no_currency(list(dict.fromkeys(moneyless))))
    return lines


def _converted_line(
    fact: FoundFact,
    unit: Unit,
    rate: ExchangeRateDef,
    scale: int | None,
    currency: str,
    msgs: Messages,
    names: Names,
    zh: bool,
) -> str:
    """A found figure converted at ``rate``, with the original, the rate and both sources."""
    to = target_unit(unit, currency, scale)
    value = names.value(float(converted(fact.value, unit, rate, scale)), to)
    return msgs.converted(
        found_subject(fact, msgs, names.profile.defaults.channel, names),
        _conversion_label(currency, scale if unit.kind is UnitKind.AMOUNT else None, zh),
        value,
        names.value(fact.value, fact.unit),
        *rate_words(rate),
        fact.source.doc,
        fact.source.locator,
    )


def computed_unit_lines(
    intent: ParsedIntent, computed: Sequence[Computed], msgs: Messages, names: Names
) -> list[str]:
    """Each computed figure of an answer converted into the currency asked, once, or why not
    (``agent.conversion.computed_conversion_lines``)."""
    scale, currency = requested(intent)
    if currency is None:
        return []
    label = _conversion_label(currency, scale, intent.language == "zh")
    return computed_conversion_lines(names.profile, computed, (scale, currency), label, msgs, names)


def rescale_factors(result: AgentResult) -> list[float]:
    """The factors by which the answer's rescaled lines multiply a found amount (for the
    fabrication check: such a figure is a found value times a power of ten asked for)."""
    scale, _ = requested(result.intent)
    if scale is None:
        return []
    factors = set()
    for r in result.tool_results:
        if isinstance(r, FoundFact):
            try:
                unit = Unit.parse(r.unit)
            except ValueError:
                continue
            if unit.kind is UnitKind.AMOUNT:
                factors.add(10.0 ** (unit.scale - scale))
    return sorted(factors)


def _shifted(value: float, power: int) -> str:
    """``value`` times 10**power, exact in decimal, written without exponent or trailing 0."""
    return _plain_decimal(Decimal(repr(value)).scaleb(power))


def _plain_decimal(number: Decimal) -> str:
    return format(number.normalize(), "f")


_EN_SCALE_NAMES = {
    3: "thousands",
    4: "ten-thousands",
    6: "millions",
    7: "ten-millions",
    8: "hundred-millions",
    9: "billions",
    10: "ten-billions",
    11: "hundred-billions",
    12: "trillions",
}


def _conversion_label(currency: str, scale: int | None, zh: bool) -> str:
    """ "HKD" / "HKD billions" / "港元" / "亿港元": what a converted figure is in."""
    if scale is not None:
        return _scale_label(scale, currency, zh)
    return get_currency_name(currency, locale="zh") if zh else currency


def _scale_label(scale: int, currency: str, zh: bool) -> str:
    """ "亿美元" / "USD billions" (every scale a request can name has a name)."""
    if zh:
        name = get_currency_name(currency, locale="zh")
        word = next(w for w, s in ZH_SCALES.items() if s == scale)
        return f"{word}{name}"
    return f"{currency} {_EN_SCALE_NAMES[scale]}"
