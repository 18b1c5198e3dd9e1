"""English sentences of computed answers (``agent.analyst``)."""

from __future__ import annotations

from ragspine.agent.messages.en import PERCENT_NOT_MEANINGFUL


def _names(names: list[str]) -> str:
    return ", ".join(names)


def rank_heading(metric: str, period: str, descending: bool, by_growth: bool) -> str:
    order = "highest first" if descending else "lowest first"
    what = f"{metric} growth over the year before" if by_growth else metric
    return f"Ranking by {what}, {period} ({order}; computed from the figures below):"


def top_heading(count: str) -> str:
    return f"Asked for the top {count}: the first positions below; the rest follow."


def ranked(position: str, line: str) -> str:
    return f"{position}. {line}"


def growth_line(entity: str, pct: str, later: str, earlier: str) -> str:
    return f"{entity}: {pct} ({later} vs {earlier})"


def tie(names: list[str]) -> str:
    return f"Tie: {_names(names)} have the same figure and share a position."


def unranked(names: list[str]) -> str:
    return f"Not ranked (no figure found): {_names(names)}."


def unranked_no_rate(names: list[str]) -> str:
    return (
        f"Not ranked (growth rate not meaningful: the base is zero or negative): {_names(names)}."
    )


def total(metric: str, period: str, value: str, parts: list[str]) -> str:
    return f"Total {metric} {period}: {value}, the sum of {_names(parts)}."


def excluded_sum(
    metric: str, period: str, left_out: list[str], value: str, parts: list[str]
) -> str:
    return (
        f"{metric} {period} excluding {_names(left_out)}: {value}, computed as the sum "
        f"of the other units ({_names(parts)})."
    )


def excluded_by_whole(metric: str, period: str, left_out: list[str], value: str, whole: str) -> str:
    return (
        f"{metric} {period} excluding {_names(left_out)}: {value}, computed as "
        f"{whole} minus {_names(left_out)}."
    )


def whole_agrees(whole: str, parts: list[str]) -> str:
    return f"Check: the units ({_names(parts)}) add up to the {whole} figure."


def whole_differs(whole: str, whole_value: str, parts_value: str, diff: str) -> str:
    return (
        f"Note: the units do not add up to the {whole} figure: they sum to {parts_value} "
        f"while {whole} reports {whole_value} (difference {diff})."
    )


def average(subject: str, over: str, value: str) -> str:
    return f"Average {subject} over {over}: {value} (a simple mean of the figures below)."


def cumulative(subject: str, over: str, value: str) -> str:
    return f"Cumulative {subject} over {over}: {value} (the sum of the figures below)."


def cagr(subject: str, first: str, last: str, pct: str) -> str:
    return f"CAGR of {subject} from {first} to {last}: {pct} a year."


def span(subject: str, first: str, last: str, diff: str, pct: str | None) -> str:
    return f"Change in {subject} from {first} to {last}: {diff} ({pct or PERCENT_NOT_MEANINGFUL})"


def span_pp(subject: str, first: str, last: str, diff: str) -> str:
    return f"Change in {subject} from {first} to {last}: {diff} percentage points"


def steps_heading() -> str:
    return "Year by year:"


def missing(names: list[str]) -> str:
    return (
        f"Not computed: no figure was found for {_names(names)}; no partial result is given "
        "in its place."
    )


def mixed_units(pairs: list[str]) -> str:
    return (
        f"Not computed: the figures are in different units ({_names(pairs)}) and no exchange "
        "rate or conversion is given."
    )


def ratio_not_added(metric: str) -> str:
    return f"Not computed: {metric} is a ratio, and ratios of different units do not add up."


def balance_not_added(metric: str, last: str) -> str:
    return (
        f"Not computed: {metric} is measured at a point in time (a balance), and figures at the "
        f"ends of different periods do not add up. The figure at the end of {last} is that "
        "period's own."
    )


def nature_unknown(metric: str) -> str:
    return (
        f"Not computed: the profile does not say whether {metric} accrues over each period "
        "(a flow, such as sales, whose periods add up) or is a balance at each period's "
        "end (such as total assets, whose periods do not), so the figures are not added."
    )


def cagr_one_period(period: str) -> str:
    return f"CAGR not computed: it needs a first and a last year, and only {period} was asked."


def cagr_not_positive(first: str, last: str) -> str:
    return f"CAGR not computed: the {first} or {last} figure is not positive."


def unsupported(words: list[str]) -> str:
    return (
        f"Not answered: the question asks for {_names([repr(w) for w in words])}, which this "
        "engine does not compute from the reported figures, and no plain figure is given in "
        "its place. Ask for the figures themselves (for instance each unit's figure for the "
        "period) and they are shown with their sources."
    )


def no_breakdown(unit: str, period: str, example: str) -> str:
    within = f" of {period}" if period else ""
    ask = (
        f"Ask for one {unit} by name (for example {example}) to get its figure with its source."
        if example
        else "Figures are kept by fiscal year, half and quarter: ask for one of those instead."
    )
    return (
        f"Not answered: the question asks for a figure for each {unit}{within}, which this "
        f"engine does not break down, and the whole period's figure is not given in its "
        f"place. {ask}"
    )


def sum_or_difference(names: list[str]) -> str:
    both = " and ".join(names)
    return (
        f"Not answered: the question asks both for a total and for a comparison of {both}, "
        'so no figure is computed. Do you want their sum (for instance "combined") or the '
        'difference between them (for instance "vs")?'
    )


def no_population(entity: str) -> str:
    return (
        f"Not answered: the profile defines no units under {entity} to rank, total or leave "
        "one out of, so no figure is given. Name the units to compare instead."
    )


def unknown_population(word: str, known: list[str]) -> str:
    defined = f" (it defines: {_names(known)})" if known else ""
    return (
        f"Not answered: the profile defines no population called {word!r}{defined}, so there "
        "is nothing to rank or total over and no figure is given in its place."
    )


# --------------------------------------------------------------------------- derived metrics


def ratio_computed(subject: str, value: str, rule: str, inputs: str) -> str:
    return f"{subject}: {value}, computed as {rule} ({inputs}) from the figures below."


def ratio_stated(subject: str, value: str) -> str:
    return f"{subject}: {value}, as a document states it (source below)."


def ratio_agrees(rule: str, computed: str) -> str:
    return (
        f"Check: {rule} from the figures shown gives {computed}, which agrees with the stated "
        "figure at its precision."
    )


def ratio_differs(rule: str, computed: str, stated: str, diff: str) -> str:
    return (
        f"Note: {rule} from the figures shown gives {computed}, while the document states "
        f"{stated} (difference {diff} percentage points); the stated figure is given, and "
        "both sources are shown."
    )


def ratio_missing(subject: str, rule: str, names: list[str]) -> str:
    return (
        f"{subject} not computed: it is {rule}, and no figure was found for "
        f"{_names(names)}; no partial result is given in its place."
    )


def ratio_mixed_units(subject: str, rule: str, parts: list[str]) -> str:
    return (
        f"{subject} not computed: it is {rule}, and the figures are in different "
        f"currencies or scales ({_names(parts)}); a ratio across them would need a conversion "
        "no document gives, so no figure is given."
    )


def ratio_zero(subject: str, name: str) -> str:
    return f"{subject} not computed: the {name} figure is zero."


def ratio_ranked(entity: str, value: str, how: str) -> str:
    return f"{entity}: {value} ({how})"


def ratio_how(rule: str, stated: bool) -> str:
    return "as stated" if stated else f"{rule}"


def ratio_not_combined(metric: str, rule: str) -> str:
    return (
        f"Not computed: {metric} is derived ({rule}) for one unit and period at a time; a "
        "total, average, growth rate or other combination of it is not computed here, and no "
        "figure is given in its place. Ask for it by unit and period, or for a ranking of the "
        "units."
    )


_KEPT = {
    "rank": "the ranking",
    "total": "the total",
    "exclude": "the exclusion",
    "average": "the average",
    "cumulative": "the cumulative total",
    "cagr": "the CAGR",
    "span": "the change over the period",
    "unsupported": "what was asked",
}


def kept(op: str, descending: bool) -> str:
    """The computation a follow-up keeps from the previous question, for its assumption line."""
    if op == "rank":
        return f"the ranking ({'highest' if descending else 'lowest'} first)"
    return _KEPT.get(op, op)
