"""Our own arithmetic on found facts: the change between periods or the gap between items.

The model never computes: a difference, a percentage change (or percentage points for a
ratio) is worked out here from two facts' values at full precision, and only when both share
one unit; two facts in different currencies (RMB and EUR, say) get a line saying so — "FY2013
is in RMB, FY2014 in US$; no exchange rate is given" — and no exchange rate is ever assumed.
A run of years of one figure ("FY2023 through FY2025") gets the change of each year over the
one before. Values and names are shown as ``profile.display`` writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import replace

from ragspine.agent.messages import Messages
from ragspine.agent.render import series_name
from ragspine.agent.types import ChangeBase, FoundFact, ParsedIntent, Slots, ToolResult
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
    found: list[FoundFact],
    profile: DomainProfile,
    msgs: Messages,
    language: str,
    held: Set[Slots] = frozenset(),
) -> list[str]:
    """The change of each year over the one before, for runs of years of a figure.

    Facts are grouped by series (metric, entity and channel); with several series (two metrics
    over two years) each line names its series. A year whose predecessor was
    not found gets no line; a line on a figure in ``held`` (a value pending review) is marked
    provisional.
    """
    series: dict[tuple[str, str, str], dict[Period, FoundFact]] = {}
    for fact in found:
        key = (fact.slots.metric, fact.slots.entity, fact.slots.channel)
        series.setdefault(key, {})[fact.slots.period] = fact
    names = Names(profile, language) if len(series) > 1 else None
    lines = []
    for by_period in series.values():
        for period in sorted(by_period):
            earlier = by_period.get(period.previous_year())
            later = by_period[period]
            line = comparison(later, earlier, profile, msgs, language) if earlier else None
            if line is None or earlier is None:
                continue
            if names is not None:
                name = series_name(later.slots, profile.defaults.channel, names)
                line = msgs.of_series(name, line)
            lines.append(marked(line, (later, earlier), held, msgs))
    return lines


def marked(line: str, facts: Iterable[FoundFact], held: Set[Slots], msgs: Messages) -> str:
    """``line`` marked provisional when a figure it is built on has a value pending review."""
    return msgs.provisional(line) if any(f.slots in held for f in facts) else line


def growth_width(intent: ParsedIntent, tasks: Sequence[Slots]) -> int:
    """How many tasks each figure takes when ``tasks`` are figures, each followed by the periods
    its change is measured against (1 + the bases); 0 when they are not."""
    if not intent.growth or len(tasks) < 2:
        return 0
    bases = change_bases(tasks[0].period, intent.change_base)
    width = 1 + len(bases)
    if len(tasks) % width:
        return 0
    for start in range(0, len(tasks), width):
        first = tasks[start]
        if list(tasks[start + 1 : start + width]) != [replace(first, period=p) for p in bases]:
            return 0
    return width


def grouped_changes(
    tasks: Sequence[Slots],
    results: Sequence[ToolResult],
    width: int,
    held: Set[Slots],
    profile: DomainProfile,
    msgs: Messages,
    language: str,
) -> list[str]:
    """The change lines of every figure asked (``growth_width`` tasks each); with several
    figures (two metrics' growth, two units' 同比) each line names its series."""
    names = Names(profile, language) if len(tasks) > width else None
    lines = []
    for start in range(0, len(tasks), width):
        fact = results[start]
        if not isinstance(fact, FoundFact):  # its own line already says it was not found
            continue
        stop = start + width
        for base, result in zip(tasks[start + 1 : stop], results[start + 1 : stop], strict=True):
            line = _change_over(fact, base, result, held, profile, msgs, language)
            if line is not None and names is not None:
                name = series_name(fact.slots, profile.defaults.channel, names)
                line = msgs.of_series(name, line)
            lines += [line] if line is not None else []
    return lines


def _change_over(
    fact: FoundFact,
    base: Slots,
    result: ToolResult,
    held: Set[Slots],
    profile: DomainProfile,
    msgs: Messages,
    language: str,
) -> str | None:
    """The change of ``fact`` over the base found (marked provisional when either figure has a
    value pending review); for a base not found, a line saying so (never the change over
    another period in its place)."""
    if isinstance(result, FoundFact):
        line = comparison(fact, result, profile, msgs, language)
        return marked(line, (fact, result), held, msgs) if line else None
    if base.period != fact.slots.period.previous_year():
        return msgs.preceding_missing(base.period.label)
    return msgs.growth_missing(base.period.label)
