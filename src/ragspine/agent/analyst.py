"""Analyst answers computed in code: rankings, totals, exclusions, averages, CAGR, spans and
derived metrics (``agent.analyst_derived``).

The parser says what to compute (``ParsedIntent.analysis``, read by ``agent.analysis_cues``);
this module looks up every input itself (no model: like listed values, a computed answer is
our own queries), shows each input it used as a found fact with its source, and states the
result of our arithmetic over them. Nothing is computed from a missing input, across units or
currencies, by adding ratios, or by adding up over periods an amount that is not a flow (a
balance at each period's end, ``profile.metric_nature``): the answer says which input is
missing or why not, and a ranking lists the units without a figure instead of skipping them.
A cue nothing here computes (a share, a median) is answered by saying so — never by the plain
figure.
"""

from __future__ import annotations

import math
from typing import Protocol

from ragspine.agent.analysis_cues import GROUP_PREFIX, POPULATION_PREFIX
from ragspine.agent.analysis_pair import SUM_OR_DIFFERENCE_PREFIX, entities_of
from ragspine.agent.analyst_derived import over_ratio
from ragspine.agent.analyst_job import (
    Job,
    facts_of,
    missing,
    one_unit,
    positions,
    ties_and_unranked,
)
from ragspine.agent.analyst_periods import over_periods
from ragspine.agent.guard import ToolContext
from ragspine.agent.messages import Messages
from ragspine.agent.messages.analysis import AnalysisMessages, analysis_messages
from ragspine.agent.period_breakdown import BREAKDOWN_PREFIX
from ragspine.agent.types import (
    AgentResult,
    Analysis,
    AnalysisOp,
    AnswerKind,
    ClarificationResult,
    FoundFact,
    ParsedIntent,
    Slots,
    Source,
    ToolResult,
)
from ragspine.agent.unit_request import computed_unit_lines, unit_request_lines
from ragspine.profile.display import Names, format_percent_change, plain_number
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period


class _Fetch(Protocol):
    def __call__(self, entity: str, when: Period = ...) -> ToolResult: ...


def run_analysis(
    intent: ParsedIntent,
    clarification: ClarificationResult,
    tools: ToolContext,
    msgs: Messages,
) -> AgentResult:
    """The computed answer ``intent.analysis`` asks for (the gateway has filled any slot)."""
    analysis = intent.analysis
    assert analysis is not None  # the agent routes only such intents here
    text = analysis_messages(intent.language)
    if analysis.op is AnalysisOp.UNSUPPORTED:
        return AgentResult(
            _unsupported(analysis, text, tools.profile, intent.language, intent.period),
            intent.route,
            clarification,
            answer_kind=AnswerKind.CLARIFY,
        )
    job = Job(tools, msgs, text, intent.language, Names(tools.profile, intent.language))
    channel = intent.channel or tools.profile.defaults.channel
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    ratios = {ratio.code: ratio for ratio in analysis.ratios}
    for metric in metrics:
        if metric in ratios:
            units = analysis.population or entities
            over_ratio(job, analysis, ratios[metric], units, periods, channel, intent.growth)
        elif analysis.op is AnalysisOp.DERIVED:  # a stated metric asked beside a derived one
            for entity in entities:
                for period in periods:
                    job.show_once(job.fetch(Slots(metric, entity, period, channel)))
        elif analysis.population:
            for period in periods:
                _over_units(job, analysis, metric, period, channel)
        else:
            for entity in entities:
                over_periods(job, analysis, metric, entity, periods, channel)
    found = [r for r in job.results if isinstance(r, FoundFact)]
    # "in billions", "以港币计": each input rescaled, a conversion refused — never dropped.
    job.lines += unit_request_lines(intent, found, msgs, tools.profile.defaults.channel, job.names)
    job.lines += computed_unit_lines(intent, job.computed, msgs, job.names)
    if not found:
        tools.trace.fabrication_guard_triggered = True
        kind = AnswerKind.NOT_FOUND
    else:
        kind = AnswerKind.PARTIAL if job.short else AnswerKind.FOUND
    return AgentResult(
        "\n".join(job.lines),
        intent.route,
        clarification,
        tool_results=job.results,
        sources=_sources(found),
        answer_kind=kind,
        pending=job.pending,
    )


def _unsupported(
    analysis: Analysis,
    text: AnalysisMessages,
    profile: DomainProfile,
    language: str,
    period: Period | None,
) -> str:
    first = analysis.unsupported[0] if analysis.unsupported else ""
    if first.startswith(POPULATION_PREFIX):
        named = Names(profile, language).entity(first.removeprefix(POPULATION_PREFIX))
        return text.no_population(named)
    if first.startswith(BREAKDOWN_PREFIX):
        unit = first.removeprefix(BREAKDOWN_PREFIX)
        label = period.label if period is not None else ""
        example = ""
        if unit == "quarter" and period is not None and period.type == "FY":
            # Its number in words: the answer states no figure the question did not hold.
            zh, en = f"「{label}第一季度」", f'"the first quarter of {label}"'
            example = zh if language == "zh" else en
        return text.no_breakdown(unit, label, example)
    if first.startswith(SUM_OR_DIFFERENCE_PREFIX):
        names = Names(profile, language)
        return text.sum_or_difference([names.entity(code) for code in entities_of(first)])
    if first.startswith(GROUP_PREFIX):
        known = [(g.name_zh if language == "zh" else g.name_en) or g.code for g in profile.groups]
        return text.unknown_population(first.removeprefix(GROUP_PREFIX), known)
    return text.unsupported(list(analysis.unsupported))


def _sources(found: list[FoundFact]) -> list[Source]:
    seen: dict[tuple[str, str], Source] = {}
    for fact in found:
        seen.setdefault((fact.source.doc, fact.source.locator), fact.source)
    return list(seen.values())


# --------------------------------------------------------------------------- across units


def _missing_units(job: Job, codes: list[str], period: Period) -> None:
    """Say which units have no figure for ``period``, by their names ("Lisbon FY2025")."""
    missing(job, [f"{name} {period.label}" for name in job.entities(codes)])


def _over_units(job: Job, a: Analysis, metric: str, period: Period, channel: str) -> None:
    def at(entity: str, when: Period = period) -> ToolResult:
        return job.fetch(Slots(metric, entity, when, channel))

    if a.op is AnalysisOp.RANK:
        _rank(job, a, metric, period, channel, at)
        return
    members = {e: at(e) for e in a.population}
    left_out = {e: at(e) for e in a.excluded}
    whole = at(a.whole) if a.whole and a.op is not AnalysisOp.AVERAGE else None
    inputs = [*members.values(), *left_out.values(), *([whole] if whole else [])]
    if job.ratio(metric) and a.op is not AnalysisOp.AVERAGE:
        job.lines.append(job.text.ratio_not_added(job.names.metric(metric)))
        job.short = True
    else:
        _sum_lines(job, a, metric, period, members, left_out, whole)
    for result in inputs:
        job.show(result)


def _sum_lines(
    job: Job,
    a: Analysis,
    metric: str,
    period: Period,
    members: dict[str, ToolResult],
    left_out: dict[str, ToolResult],
    whole: ToolResult | None,
) -> None:
    """The total, average or exclusion line over the units, and the check against the whole."""
    found, out = facts_of(members), facts_of(left_out)
    all_found = [*found.values(), *out.values(), *([whole] if isinstance(whole, FoundFact) else [])]
    if not one_unit(job, all_found):
        return
    unit = all_found[0].unit if all_found else ""
    parts = job.entities(list(found))
    summed = math.fsum(f.value for f in found.values()) if len(found) == len(members) else None
    label = job.names.metric(metric)
    if a.op is AnalysisOp.AVERAGE:
        if summed is None:
            _missing_units(job, [e for e in members if e not in found], period)
        else:
            mean = job.mean_value(list(found.values()), unit)
            job.lines.append(
                job.text.average(
                    f"{label} {period.label}",
                    "、".join(parts) if job.language == "zh" else ", ".join(parts),
                    mean,
                )
            )
        return
    by_whole = None
    if isinstance(whole, FoundFact) and len(out) == len(left_out):
        by_whole = whole.value - math.fsum(f.value for f in out.values())
    left = job.entities(list(left_out))
    whole_name = job.names.entity(a.whole) if a.whole else ""
    if a.op is AnalysisOp.TOTAL:
        if summed is None:
            _missing_units(job, [e for e in members if e not in found], period)
        else:
            total = job.computed_value(summed, unit, list(found.values()))
            job.lines.append(job.text.total(label, period.label, total, parts))
    elif summed is not None:
        kept = job.computed_value(summed, unit, list(found.values()))
        job.lines.append(job.text.excluded_sum(label, period.label, left, kept, parts))
    elif by_whole is not None and a.whole is not None:
        assert isinstance(whole, FoundFact)  # by_whole is computed from it
        rest = job.computed_value(by_whole, unit, [whole, *out.values()])
        job.lines.append(job.text.excluded_by_whole(label, period.label, left, rest, whole_name))
        job.short = True  # the other way could not be computed
    else:
        absent = [e for e in (*members, *left_out) if e not in found and e not in out]
        whole_absent = [a.whole] if a.whole and not isinstance(whole, FoundFact) else []
        _missing_units(job, absent + whole_absent, period)
        return
    if summed is None or not isinstance(whole, FoundFact) or a.whole is None:
        return
    everything = summed + math.fsum(f.value for f in out.values())
    if len(out) == len(left_out) and math.isclose(everything, whole.value, abs_tol=1e-6):
        job.lines.append(job.text.whole_agrees(whole_name, parts + left))
    elif len(out) == len(left_out):
        job.lines.append(
            job.text.whole_differs(
                whole_name,
                job.value(whole.value, unit),
                job.value(everything, unit),
                job.value(whole.value - everything, unit, signed=True),
            )
        )
        if by_whole is not None and left:
            job.lines.append(
                job.text.excluded_by_whole(
                    label, period.label, left, job.value(by_whole, unit), whole_name
                )
            )


def _rank(
    job: Job,
    a: Analysis,
    metric: str,
    period: Period,
    channel: str,
    at: _Fetch,
) -> None:
    """Every unit in order, each with its figure and source; ties and units without a figure
    said."""
    current = {e: at(e) for e in a.population}
    before = {e: at(e, period.previous_year()) for e in a.population} if a.by_growth else {}
    scored: dict[str, float] = {}
    shown: dict[str, str] = {}
    no_rate: list[str] = []  # a base of zero or a loss: no growth rate means anything
    ratio = job.ratio(metric)
    found_now = facts_of(current)
    if not a.by_growth and not one_unit(job, list(found_now.values())):
        for result in current.values():
            job.show(result)
        return
    for entity, fact in found_now.items():
        if not a.by_growth:
            scored[entity] = fact.value
            continue
        base = before.get(entity)
        if not isinstance(base, FoundFact) or base.unit != fact.unit:
            continue
        if ratio:
            scored[entity] = fact.value - base.value
            step = plain_number(scored[entity], signed=True)
            pct = f"{step} {'个百分点' if job.language == 'zh' else 'pp'}"
        else:
            change = format_percent_change(fact.value, base.value)
            if change is None:
                no_rate.append(entity)
                continue
            scored[entity] = (fact.value - base.value) / abs(base.value)
            pct = change
        shown[entity] = job.text.growth_line(
            job.names.entity(entity), pct, period.label, base.slots.period.label
        )
    ordered = sorted(scored, key=lambda e: scored[e], reverse=a.descending)
    job.lines.append(
        job.text.rank_heading(job.names.metric(metric), period.label, a.descending, a.by_growth)
    )
    if a.top is not None:
        job.lines.append(job.text.top_heading(str(a.top)))
    for position, entity in zip(positions(ordered, scored), ordered, strict=True):
        if a.by_growth:
            job.lines.append(job.text.ranked(str(position), shown[entity]))
            job.show(current[entity], "   ")
            job.show(before[entity], "   ")
        else:
            job.show(current[entity], lead=job.text.ranked(str(position), ""))
    if no_rate:
        job.lines.append(job.text.unranked_no_rate(job.entities(no_rate)))
        job.short = True
    others = tuple(e for e in a.population if e not in no_rate)
    for entity in [*no_rate, *ties_and_unranked(job, ordered, scored, others)]:
        job.show(current[entity], "   ")
        if a.by_growth and isinstance(current[entity], FoundFact):
            job.show(before[entity], "   ")
