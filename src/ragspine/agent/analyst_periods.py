"""Computed answers over the periods of one unit: averages, cumulative totals (of a flow
only), CAGR and the change from one period to another (``agent.analyst``)."""

from __future__ import annotations

import math

from ragspine.agent.analyst_job import Job, missing, one_unit
from ragspine.agent.compare import yearly_changes
from ragspine.agent.types import (
    Analysis,
    AnalysisOp,
    FoundFact,
    Slots,
)
from ragspine.profile.display import format_percent_change, plain_number
from ragspine.profile.metric_nature import MetricNature, nature_of
from ragspine.profile.model import MetricKind
from ragspine.profile.periods import Period


def over_periods(
    job: Job,
    a: Analysis,
    metric: str,
    entity: str,
    periods: tuple[Period, ...],
    channel: str,
) -> None:
    subject = job.subject(metric, entity, channel)
    if a.op is AnalysisOp.SPAN:
        _span(job, metric, entity, periods, channel, subject)
        return
    ordered = sorted(dict.fromkeys(periods))
    if a.op is AnalysisOp.CAGR:
        _cagr(job, metric, entity, ordered, channel, subject)
        return
    results = [job.fetch(Slots(metric, entity, p, channel)) for p in ordered]
    found = [r for r in results if isinstance(r, FoundFact)]
    over = f"{ordered[0].label}–{ordered[-1].label}" if len(ordered) > 1 else ordered[0].label
    if a.op is AnalysisOp.CUMULATIVE and job.ratio(metric):
        job.lines.append(job.text.ratio_not_added(job.names.metric(metric)))
        job.short = True
    elif a.op is AnalysisOp.CUMULATIVE and (why := _not_summed(job, metric, ordered[-1])):
        job.lines.append(why)
        job.short = True
    elif len(found) < len(results):
        missing(job, [p.label for p, r in zip(ordered, results, strict=True) if r not in found])
    elif one_unit(job, found):
        total = math.fsum(f.value for f in found)
        if a.op is AnalysisOp.AVERAGE:
            value = job.mean_value(found, found[0].unit)
            job.lines.append(job.text.average(subject, over, value))
        else:
            summed = job.computed_value(total, found[0].unit, found)
            job.lines.append(job.text.cumulative(subject, over, summed))
    for result in results:
        job.show(result)


def _not_summed(job: Job, metric: str, last: Period) -> str:
    """Why an amount or a count is not summed over periods ("" when it is a flow): a balance's
    figures at several period ends add up to a number no document means, and one of unknown
    nature may be a balance (``profile.metric_nature``)."""
    definition = job.tools.profile.metric(metric)
    if definition is None or definition.kind not in (MetricKind.AMOUNT, MetricKind.COUNT):
        return ""
    nature = nature_of(definition)
    if nature is MetricNature.FLOW:
        return ""
    name = job.names.metric(metric)
    if nature is MetricNature.BALANCE:
        return job.text.balance_not_added(name, last.label)
    return job.text.nature_unknown(name)


def _cagr(
    job: Job,
    metric: str,
    entity: str,
    ordered: list[Period],
    channel: str,
    subject: str,
) -> None:
    first, last = ordered[0], ordered[-1]
    years = last.year - first.year
    if len(ordered) < 2 or years <= 0 or first.type != last.type:
        job.lines.append(job.text.cagr_one_period(last.label))
        job.short = True
        return
    start = job.fetch(Slots(metric, entity, first, channel))
    end = job.fetch(Slots(metric, entity, last, channel))
    if not isinstance(start, FoundFact) or not isinstance(end, FoundFact):
        missing(
            job, [p.label for p, r in ((first, start), (last, end)) if not isinstance(r, FoundFact)]
        )
    elif one_unit(job, [start, end]):
        if start.value <= 0 or end.value <= 0:
            job.lines.append(job.text.cagr_not_positive(first.label, last.label))
            job.short = True
        else:
            rate = ((end.value / start.value) ** (1 / years) - 1) * 100
            job.lines.append(job.text.cagr(subject, first.label, last.label, f"{rate:+.2f}%"))
    job.show(start)
    job.show(end)


def _span(
    job: Job,
    metric: str,
    entity: str,
    periods: tuple[Period, ...],
    channel: str,
    subject: str,
) -> None:
    """The change from the first period named to the last (in the order asked: "from 2019 to
    2018" is the later year's figure minus the earlier's), then each year's step."""
    first, last = periods[0], periods[-1]
    results = {
        p: job.fetch(Slots(metric, entity, p, channel)) for p in sorted(dict.fromkeys(periods))
    }
    start, end = results[first], results[last]
    if not isinstance(start, FoundFact) or not isinstance(end, FoundFact):
        absent = [p.label for p in (first, last) if not isinstance(results[p], FoundFact)]
        missing(job, absent)
    elif one_unit(job, [start, end]):
        if job.ratio(metric):
            diff = plain_number(end.value - start.value, signed=True)
            job.lines.append(job.text.span_pp(subject, first.label, last.label, diff))
        else:
            diff = job.computed_value(end.value - start.value, end.unit, [start, end], signed=True)
            pct = format_percent_change(end.value, start.value)
            job.lines.append(job.text.span(subject, first.label, last.label, diff, pct))
    for result in results.values():
        job.show(result)
    found = [r for r in results.values() if isinstance(r, FoundFact)]
    if len(results) > 2:
        steps = yearly_changes(found, job.tools.profile, job.msgs, job.language)
        if steps:
            job.lines += [job.text.steps_heading(), *steps]
