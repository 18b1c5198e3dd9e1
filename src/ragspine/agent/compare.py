"""Our own arithmetic on two found facts: the change between periods or the gap between items.

The model never computes: a difference, a percentage change (or percentage points for a
ratio) is worked out here from the two facts' values, and only when both share one unit.
"""

from __future__ import annotations

from ragspine.agent.messages import Messages
from ragspine.agent.render import format_number, percent_change
from ragspine.agent.types import FoundFact
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
    if a.period != b.period and (a.metric, a.entity) == (b.metric, b.entity):
        (later, lv), (earlier, ev) = sorted(
            [(a.period, va), (b.period, vb)], key=lambda x: x[0], reverse=True
        )
        diff = format_number(lv - ev, signed=True)
        if ratio:
            return msgs.change_pp(later.label, earlier.label, diff)
        return msgs.change(later.label, earlier.label, diff, percent_change(lv, ev), first.unit)
    if a.period == b.period:
        names = (a.entity, b.entity) if a.entity != b.entity else (a.metric, b.metric)
        diff = format_number(va - vb, signed=True)
        if ratio:
            return msgs.difference_pp(names[0], names[1], diff)
        return msgs.difference(names[0], names[1], diff, percent_change(va, vb), first.unit)
    return None
