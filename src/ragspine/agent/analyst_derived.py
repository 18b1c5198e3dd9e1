"""Derived metrics (the profile's ``[[derived]]``): one unit's ratio of two found facts of the
same period and channel, computed in code, or a ranking of the units by it (``agent.analyst``).

The answer names the rule in the profile's names ("Gross profit ÷ Sales") and shows both
inputs with their sources. A figure a document states for the derived metric wins over the
computed one; when both exist and differ beyond the stated figure's rounding, the difference is
disclosed with both sources. Nothing is computed when an operand is missing (the answer names
it), when the operands are in different currencies or scales (never converted), or from a zero
denominator; no combination of a derived metric (a total, an average, a growth rate) is
computed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragspine.agent.analyst_job import Job, positions, ties_and_unranked
from ragspine.agent.render import subject as line_subject
from ragspine.agent.types import (
    Analysis,
    AnalysisOp,
    FoundFact,
    Ratio,
    Slots,
    ToolResult,
)
from ragspine.profile.display import percent_points, plain_number
from ragspine.profile.periods import Period
from ragspine.units import PERCENT

# A computed ratio is shown, like every percentage computed here, with two decimals.
_DECIMALS = 2


@dataclass(frozen=True)
class _Figure:
    """One unit's derived figure for one period: the stated fact, the computed ratio, the
    inputs, and the sentence saying why there is none (``reason``, "" when there is one)."""

    stated: ToolResult
    top: ToolResult
    bottom: ToolResult
    computed: float | None
    reason: str

    @property
    def value(self) -> float | None:
        """What the answer gives: the stated figure, else the computed one."""
        if isinstance(self.stated, FoundFact):
            return self.stated.value
        return self.computed


def over_ratio(
    job: Job,
    a: Analysis,
    ratio: Ratio,
    entities: tuple[str, ...],
    periods: tuple[Period, ...],
    channel: str,
    growth: bool,
) -> None:
    """The derived answer ``a`` asks for: each unit and period's figure, or a ranking."""
    if a.op is AnalysisOp.RANK and not a.by_growth:
        for period in periods:
            _rank(job, a, ratio, period, channel)
    elif a.op is AnalysisOp.DERIVED and not growth:
        for entity in entities:
            for period in periods:
                _one(job, ratio, entity, period, channel)
    else:
        metric = job.names.metric(ratio.code)
        job.lines.append(job.text.ratio_not_combined(metric, _rule(job, ratio)))
        job.short = True


def _rule(job: Job, ratio: Ratio) -> str:
    return f"{job.names.metric(ratio.numerator)} ÷ {job.names.metric(ratio.denominator)}"


def _subject(job: Job, ratio: Ratio, entity: str, period: Period, channel: str) -> str:
    """``<entity> <period> <derived metric>`` as an answer line names a figure."""
    return line_subject(Slots(ratio.code, entity, period, channel), job.default_channel, job.names)


def _figure(job: Job, ratio: Ratio, entity: str, period: Period, channel: str) -> _Figure:
    stated = job.fetch(Slots(ratio.code, entity, period, channel))
    top = job.fetch(Slots(ratio.numerator, entity, period, channel))
    bottom = job.fetch(Slots(ratio.denominator, entity, period, channel))
    subject = _subject(job, ratio, entity, period, channel)
    rule = _rule(job, ratio)
    if not isinstance(top, FoundFact) or not isinstance(bottom, FoundFact):
        absent = [
            job.names.metric(code)
            for result, code in ((top, ratio.numerator), (bottom, ratio.denominator))
            if not isinstance(result, FoundFact)
        ]
        reason = job.text.ratio_missing(subject, rule, absent)
        return _Figure(stated, top, bottom, None, reason)
    if top.unit != bottom.unit:
        parts = [
            f"{job.names.metric(f.slots.metric)}: {job.names.unit(f.unit)}" for f in (top, bottom)
        ]
        reason = job.text.ratio_mixed_units(subject, rule, parts)
        return _Figure(stated, top, bottom, None, reason)
    if bottom.value == 0:
        reason = job.text.ratio_zero(subject, job.names.metric(ratio.denominator))
        return _Figure(stated, top, bottom, None, reason)
    return _Figure(stated, top, bottom, top.value / bottom.value * 100, "")


def _percent(job: Job, value: float) -> str:
    return job.value(round(value, _DECIMALS), PERCENT.code)


def _agrees(stated: float, computed: float) -> bool:
    """Whether the computed ratio rounds to the stated figure at the stated figure's precision
    (a stated 34% agrees with 33.96%; a stated 34.5% does not)."""
    shown = plain_number(stated)
    decimals = len(shown.partition(".")[2])
    return abs(stated - computed) <= 0.5 * 10.0**-decimals + 1e-9


def _one(job: Job, ratio: Ratio, entity: str, period: Period, channel: str) -> None:
    figure = _figure(job, ratio, entity, period, channel)
    subject = _subject(job, ratio, entity, period, channel)
    rule = _rule(job, ratio)
    stated = figure.stated
    if isinstance(stated, FoundFact):
        job.lines.append(job.text.ratio_stated(subject, job.value(stated.value, stated.unit)))
        job.show_once(stated)
        _check(job, figure, rule)
    elif figure.computed is not None:
        assert isinstance(figure.top, FoundFact) and isinstance(figure.bottom, FoundFact)
        inputs = (
            f"{job.value(figure.top.value, figure.top.unit)} ÷ "
            f"{job.value(figure.bottom.value, figure.bottom.unit)}"
        )
        job.lines.append(
            job.text.ratio_computed(subject, _percent(job, figure.computed), rule, inputs)
        )
    else:
        job.lines.append(figure.reason)
        job.short = True
    headline, waiting = len(job.lines) - 1, len(job.pending)
    job.show_once(figure.top)
    job.show_once(figure.bottom)
    _provisional(job, figure, headline, waiting)


def _provisional(job: Job, figure: _Figure, line: int, waiting: int) -> None:
    """Mark the computed figure's line provisional when an input it used has a value pending
    review (disclosed under that input since ``waiting`` values were disclosed)."""
    computed = not isinstance(figure.stated, FoundFact) and figure.computed is not None
    if computed and len(job.pending) > waiting:
        job.lines[line] = job.msgs.provisional(job.lines[line])


def _check(job: Job, figure: _Figure, rule: str, indent: str = "") -> None:
    """Beside a stated figure: whether the computed ratio agrees with it, or the difference."""
    stated = figure.stated
    if not isinstance(stated, FoundFact) or figure.computed is None:
        return
    computed = _percent(job, figure.computed)
    if _agrees(stated.value, figure.computed):
        job.lines.append(indent + job.text.ratio_agrees(rule, computed))
    else:
        diff = percent_points(round(stated.value - figure.computed, _DECIMALS))
        shown = job.value(stated.value, stated.unit)
        job.lines.append(indent + job.text.ratio_differs(rule, computed, shown, diff))


def _rank(job: Job, a: Analysis, ratio: Ratio, period: Period, channel: str) -> None:
    """Every unit in order of its derived figure, each with how it was had and its inputs;
    ties and units without a figure (and why) said."""
    figures = {e: _figure(job, ratio, e, period, channel) for e in a.population}
    scored = {e: value for e, f in figures.items() if (value := f.value) is not None}
    ordered = sorted(scored, key=lambda e: scored[e], reverse=a.descending)
    rule = _rule(job, ratio)
    job.lines.append(
        job.text.rank_heading(job.names.metric(ratio.code), period.label, a.descending, False)
    )
    if a.top is not None:
        job.lines.append(job.text.top_heading(str(a.top)))
    for position, entity in zip(positions(ordered, scored), ordered, strict=True):
        figure = figures[entity]
        stated = isinstance(figure.stated, FoundFact)
        value = scored[entity]
        shown = job.value(value, PERCENT.code) if stated else _percent(job, value)
        how = job.text.ratio_how(rule, stated)
        line = job.text.ratio_ranked(job.names.entity(entity), shown, how)
        job.lines.append(job.text.ranked(str(position), line))
        headline, waiting = len(job.lines) - 1, len(job.pending)
        _inputs(job, figure)
        _provisional(job, figure, headline, waiting)
        _check(job, figure, rule, "   ")
    for entity in ties_and_unranked(job, ordered, scored, a.population):
        job.lines.append(f"   {figures[entity].reason}")
        _inputs(job, figures[entity])


def _inputs(job: Job, figure: _Figure) -> None:
    if isinstance(figure.stated, FoundFact):
        job.show(figure.stated, "   ")
    job.show(figure.top, "   ")
    job.show(figure.bottom, "   ")
