"""Our own arithmetic on found facts: the change between periods or the gap between items.

The model never computes: a difference, a percentage change (or percentage points for a
ratio) is worked out here from two facts' values, and only when both share one unit. A run of
years of one figure ("FY2023 through FY2025") gets the change of each year over the one before.
"""

from __future__ import annotations

from ragspine.agent.messages import Messages
from ragspine.agent.render import format_number, percent_change
from ragspine.agent.types import FoundFact, Slots
from ragspine.profile.model import DomainProfile, MetricKind


def comparison(
    first: FoundFact, second: FoundFact, profile: DomainProfile, msgs: Messages
) -> str | None:
    """One line comparing two found facts of one unit, or None when they do not compare."""
    if first.unit != second.unit:
        return None
    a, b = first.slots, second.slots
    va, vb = first.value, second.value
    metric = profile.metric(a.metric)
    ratio = metric is not None and metric.kind == MetricKind.RATIO and a.metric == b.metric
    if a.period != b.period and (a.metric, a.entity, a.channel) == (b.metric, b.entity, b.channel):
        (later, lv), (earlier, ev) = sorted(
            [(a.period, va), (b.period, vb)], key=lambda x: x[0], reverse=True
        )
        diff = format_number(lv - ev, signed=True)
        if ratio:
            return msgs.change_pp(later.label, earlier.label, diff)
        return msgs.change(later.label, earlier.label, diff, percent_change(lv, ev), first.unit)
    if a.period == b.period:
        names = _names(a, b)
        diff = format_number(va - vb, signed=True)
        if ratio:
            return msgs.difference_pp(names[0], names[1], diff)
        return msgs.difference(names[0], names[1], diff, percent_change(va, vb), first.unit)
    return None


def _names(a: Slots, b: Slots) -> tuple[str, str]:
    """What tells two facts of one period apart: entities, else channels, else metrics."""
    if a.entity != b.entity:
        return a.entity, b.entity
    if a.channel != b.channel and a.metric == b.metric:
        return a.channel, b.channel
    return a.metric, b.metric


def yearly_changes(found: list[FoundFact], profile: DomainProfile, msgs: Messages) -> list[str]:
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
        line = comparison(by_period[period], earlier, profile, msgs) if earlier else None
        if line:
            lines.append(line)
    return lines
