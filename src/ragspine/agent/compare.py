"""Our own arithmetic on found facts: the change between periods or the gap between items.

The model never computes: a difference, a percentage change (or percentage points for a
ratio) is worked out here from two facts' values at full precision, and only when both share
one unit; two facts in different currencies (RMB and EUR, say) get a line saying so — "FY2013
is in RMB, FY2014 in US$; no exchange rate is given" — and no exchange rate is ever assumed.
A run of years of one figure ("FY2023 through FY2025") gets the change of each year over the
one before. Values and names are shown as ``profile.display`` writes them.
"""

from __future__ import annotations

from ragspine.agent.messages import Messages
from ragspine.agent.types import ChangeBase, FoundFact, Slots
from ragspine.profile.display import Names, currency_of, format_percent_change, percent_points
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.periods import Period


def comparison(
    first: FoundFact, second: FoundFact, profile: DomainProfile, msgs: Messages, language: str
) -> str | None:
    """One line comparing two found facts of one unit (or saying why two facts in different
    units are not compared), or None when they do not compare."""
    a, b = first.slots, second.slots
    names = Names(profile, language)
    if first.unit != second.unit:
        return _incomparable(first, second, msgs, names)
    va, vb = first.value, second.value
    metric = profile.metric(a.metric)
    ratio = metric is not None and metric.kind == MetricKind.RATIO and a.metric == b.metric
    if a.period != b.period and (a.metric, a.entity, a.channel) == (b.metric, b.entity, b.channel):
        (later, lv), (earlier, ev) = sorted(
            [(a.period, va), (b.period, vb)], key=lambda x: x[0], reverse=True
        )
        if ratio:
            return msgs.change_pp(later.label, earlier.label, percent_points(lv - ev))
        diff = names.value(lv - ev, first.unit, signed=True)
        return msgs.change(later.label, earlier.label, diff, format_percent_change(lv, ev))
    if a.period == b.period:
        pair = _names(a, b, names)
        if ratio:
            return msgs.difference_pp(pair[0], pair[1], percent_points(va - vb))
        diff = names.value(va - vb, first.unit, signed=True)
        return msgs.difference(pair[0], pair[1], diff, format_percent_change(va, vb))
    return None


def change_bases(period: Period, base: ChangeBase) -> list[Period]:
    """The periods a change of one figure in ``period`` is measured against: a year earlier,
    the period just before (2025Q2 for 2025Q3), or both, in that order."""
    preceding, year = period.preceding(), period.previous_year()
    if base is ChangeBase.PRECEDING:
        return [preceding]
    if base is ChangeBase.BOTH and preceding != year:
        return [preceding, year]
    return [year]


def _incomparable(first: FoundFact, second: FoundFact, msgs: Messages, names: Names) -> str | None:
    """Why one metric's two figures in different units (two currencies) give no change or gap;
    None for two metrics (a margin beside an amount), which were never to be compared."""
    a, b = first.slots, second.slots
    if a.metric != b.metric:
        return None
    if a.period == b.period:
        pair = _names(a, b, names)
    elif (a.entity, a.channel) == (b.entity, b.channel):
        pair = (a.period.label, b.period.label)
    else:
        return None
    currencies = currency_of(first.unit), currency_of(second.unit)
    if None not in currencies and currencies[0] != currencies[1]:
        return msgs.incomparable_currency(
            pair[0], names.unit_currency(first.unit), pair[1], names.unit_currency(second.unit)
        )
    return msgs.incomparable(pair[0], names.unit(first.unit), pair[1], names.unit(second.unit))


def _names(a: Slots, b: Slots, names: Names) -> tuple[str, str]:
    """What tells two facts of one period apart: entities, else channels, else metrics."""
    if a.entity != b.entity:
        return names.entity(a.entity), names.entity(b.entity)
    if a.channel != b.channel and a.metric == b.metric:
        return names.channel(a.channel), names.channel(b.channel)
    return names.metric(a.metric), names.metric(b.metric)


def yearly_changes(
    found: list[FoundFact], profile: DomainProfile, msgs: Messages, language: str
) -> list[str]:
    """The change of each year over the one before, for a run of years of one figure.

    Only when every fact is the same metric, entity and channel (several years of one series);
    a year whose predecessor was not found gets no line.
    """
    series = {(f.slots.metric, f.slots.entity, f.slots.channel) for f in found}
    if len(series) != 1:
        return []
    by_period = {f.slots.period: f for f in found}
    lines = []
    for period in sorted(by_period):
        earlier = by_period.get(period.previous_year())
        line = comparison(by_period[period], earlier, profile, msgs, language) if earlier else None
        if line:
            lines.append(line)
    return lines
