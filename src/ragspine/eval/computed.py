"""The numbers a computed answer may state, recomputed from the allowed values alone.

A ranking, total, exclusion, average, CAGR or span (``ParsedIntent.analysis``) states sums,
means, a whole minus a sum, compound annual rates and positions. The fabrication check
(``eval.fabrication``) accepts those only as recomputed here from the values it allows for the
keys asked — the ground truth in the eval — never from the answer's own arithmetic:

- the mean of every non-empty set of the distinct allowed values (when there are at most
  ``MAX_SUBSET_VALUES`` of them; else only of all of them);
- the sum of every such set drawn from one group of values the caller says add up
  (``sum_groups``: the eval keeps a balance's, or an unknown's, values at different period
  ends apart, since their sum is a number no document means), and one value minus such a sum
  (a whole less the units left out, or a whole less the units' sum);
- the compound annual rate, in percent, from any allowed value to any other over one to the
  number of years between the first and last periods asked;
- the positions 1..n of a ranking of n units (and the top count asked);
- for a derived metric (``Analysis.ratios``), its numerator's value over its denominator's, in
  percent, for each unit, period and channel asked — keyed: only the two values of one key
  divide each other (``ratio_values``; the caller says which values each key holds).

A stated number matches a value exactly or as rounded to one decimal, as everywhere else.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from itertools import combinations

from ragspine.agent.types import AnalysisOp, ParsedIntent, Slots

MAX_SUBSET_VALUES = 10
_TOLERANCE = 1e-6
_MAX_CAGR_YEARS = 30


def computed_values(
    values: list[float],
    intent: ParsedIntent,
    groups: Sequence[Sequence[float]] | None = None,
) -> list[float]:
    """Every number a computed answer over ``values`` may state (absolute values); sums are
    drawn from one of ``groups`` at a time (all of ``values`` together when None)."""
    analysis = intent.analysis
    if analysis is None:
        return []
    distinct = _distinct(values)
    found = [abs(total / size) for size, total in _subset_sums(distinct)]
    for group in [values] if groups is None else groups:
        for _, total in _subset_sums(_distinct(group)):
            found += [abs(total), *(abs(v - total) for v in distinct)]
    years = _years_spanned(intent)
    for start in distinct:
        for end in distinct:
            if start > 0 and end > 0:
                found += [abs((end / start) ** (1 / n) - 1) * 100 for n in range(1, years + 1)]
    if analysis.op is AnalysisOp.RANK:
        found += [float(n) for n in range(1, len(analysis.population) + 1)]
        if analysis.top is not None:
            found.append(float(analysis.top))
    return found


def ratio_values(
    intent: ParsedIntent | None,
    asked: Iterable[Slots],
    values_of: Callable[[Slots], Sequence[float]],
) -> list[float]:
    """Every derived figure the intent's ratios allow, in percent: for each ``asked`` key of a
    derived metric, each value ``values_of`` gives its numerator's key over each value it
    gives its denominator's (a zero denominator gives none)."""
    analysis = intent.analysis if intent is not None else None
    if analysis is None or not analysis.ratios:
        return []
    rules = {ratio.code: ratio for ratio in analysis.ratios}
    found: list[float] = []
    for slots in asked:
        rule = rules.get(slots.metric)
        if rule is None:
            continue
        tops = values_of(replace(slots, metric=rule.numerator))
        bottoms = values_of(replace(slots, metric=rule.denominator))
        found += [top / bottom * 100 for top in tops for bottom in bottoms if bottom]
    return found


def sum_groups(
    values: Iterable[tuple[str, str, float]], summed_over_periods: Callable[[str], bool]
) -> list[list[float]]:
    """``(metric, period label, value)`` triples in the groups a computed answer may add up:
    the values of every metric ``summed_over_periods`` says is a flow together (its quarters
    add up, and so do its units), each other metric's one period at a time (a balance's units
    at one period end add up; its period ends never do)."""
    flows: list[float] = []
    by_period: dict[str, list[float]] = {}
    for metric, period, value in values:
        if summed_over_periods(metric):
            flows.append(value)
        else:
            by_period.setdefault(period, []).append(value)
    return [flows, *by_period.values()]


def _distinct(values: Iterable[float]) -> list[float]:
    return sorted({round(v, 9) for v in values})


def _subset_sums(distinct: list[float]) -> list[tuple[int, float]]:
    if len(distinct) > MAX_SUBSET_VALUES:
        return [(len(distinct), math.fsum(distinct))] if distinct else []
    return [
        (size, math.fsum(chosen))
        for size in range(1, len(distinct) + 1)
        for chosen in combinations(distinct, size)
    ]


def _years_spanned(intent: ParsedIntent) -> int:
    periods = [*intent.periods, *((intent.period,) if intent.period else ())]
    if len(periods) < 2:
        return 1
    years = int(max(p.year for p in periods)) - int(min(p.year for p in periods))
    return max(1, min(years, _MAX_CAGR_YEARS))


class Allowed:
    """Allowed values, searchable by bisection: a computed answer allows thousands of them."""

    def __init__(self, values: Iterable[float]) -> None:
        kept = [v for v in values if math.isfinite(v)]
        self._exact = sorted(kept)
        # Answers print percentages with two decimals; older wording printed one.
        self._rounded = sorted({round(v, d) for v in kept for d in (1, 2)})

    def holds(self, number: str) -> bool:
        """Whether ``number`` (as written, "1,320" or "8.95") is a value, or one rounded to one
        or two decimals."""
        try:
            stated = float(number.replace(",", ""))
        except ValueError:  # "1.2.3": digits and points, but no number
            return False
        return _near(self._exact, stated) or _near(self._rounded, stated)


def _near(ordered: list[float], stated: float) -> bool:
    at = bisect.bisect_left(ordered, stated - _TOLERANCE)
    return at < len(ordered) and ordered[at] <= stated + _TOLERANCE
