""" "The latest quarter" / "最近半年": the latest period of that kind the stored facts report.

The parser leaves such a question's period empty and marks the kind asked
(``ParsedIntent.latest``); once the gateway has filled the entity, the period is looked up among
the approved facts the caller may see for every metric and unit asked, ending on or before the
reference date. When those that have one all have the same latest one it is answered for
(a unit with none is then reported not found for it), and the answer says which; when none
has one, or they differ, the question is asked back — never answered for the latest full
year.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import product

from ragspine.agent.guard import ToolContext
from ragspine.agent.messages import Messages
from ragspine.agent.types import ClarificationResult, ClarifyMode, ClarifyReason, ParsedIntent
from ragspine.profile.display import Names
from ragspine.profile.periods import FiscalCalendar, Period


def with_latest(
    intent: ParsedIntent,
    tools: ToolContext,
    msgs: Messages,
    previous: Sequence[tuple[str, str]] = (),
) -> tuple[ParsedIntent, str] | ClarificationResult:
    """``intent`` (``latest`` set, no period named) with its latest period filled and the
    note saying so, or the question to ask instead. ``previous`` are the (metric, unit) pairs
    of the earlier turn a follow-up took "the latest quarter" from ("And <another unit>?"): its
    latest period is the one the user was answered for, so the follow-up's must be the same."""
    kind = intent.latest
    assert kind is not None  # the agent calls this only for such intents
    profile = tools.profile
    calendar = FiscalCalendar(profile.fiscal.year_end_month)
    channel = intent.channel or profile.defaults.channel
    analysis = intent.analysis
    units = (analysis.population if analysis is not None else ()) or intent.entities
    ratios = {r.code: (r.numerator, r.denominator) for r in (analysis.ratios if analysis else ())}
    metrics = [m for code in intent.metrics for m in ratios.get(code, (code,))]
    pairs = [*product(dict.fromkeys(metrics), units), *previous]
    latest = _latest_by_pair(kind, pairs, channel, tools, calendar)
    # A unit with no such period at all does not block the others' (a ranking of every
    # unit in the latest quarter): it is reported not found for that period.
    found = {period for period in latest.values() if period is not None}
    if len(found) == 1:
        (period,) = found
        return replace(intent, period=period, periods=(period,)), msgs.latest_assumed(
            kind, period.label
        )
    names = Names(profile, intent.language)
    seen = [
        f"{names.entity(unit)} {names.metric(metric)} {period.label}"
        for (metric, unit), period in latest.items()
        if period is not None
    ]
    return ClarificationResult(
        mode=ClarifyMode.ASK_FIRST,
        narrowing_options=tuple(sorted({p.label for p in latest.values() if p is not None})),
        question=msgs.ask_latest(kind, seen),
        reason=ClarifyReason.UNKNOWN_PERIOD,
    )


def settled_latest(
    kind: str, pairs: Sequence[tuple[str, str]], channel: str, tools: ToolContext
) -> tuple[Period, ...]:
    """The latest period of ``kind`` an earlier turn asking for "the latest quarter / half" of
    these (metric, unit) ``pairs`` was answered for, found as ``with_latest`` finds it: that
    one period, or none when the pairs have none or different ones (that turn was asked back)."""
    calendar = FiscalCalendar(tools.profile.fiscal.year_end_month)
    latest = _latest_by_pair(kind, pairs, channel, tools, calendar)
    found = {period for period in latest.values() if period is not None}
    return tuple(found) if len(found) == 1 else ()


def _latest_by_pair(
    kind: str,
    pairs: Sequence[tuple[str, str]],
    channel: str,
    tools: ToolContext,
    calendar: FiscalCalendar,
) -> dict[tuple[str, str], Period | None]:
    """For each (metric, unit), its latest period of ``kind`` among the approved facts the
    caller may see, ended on or before the reference date (``None`` when it has none)."""
    latest: dict[tuple[str, str], Period | None] = {}
    for metric, unit in dict.fromkeys(pairs):
        stored = tools.store.available_periods(metric, unit, channel, clearance=tools.clearance)
        ended = [
            period
            for period in (Period(int(year), part) for part, year in stored)
            if period.type.startswith(kind) and calendar.period_end(period) <= tools.reference_date
        ]
        latest[metric, unit] = max(ended, key=calendar.period_end, default=None)
    return latest
