"""Whether a drafted (or mapped) amount or count is a flow or a balance
(``profile.metric_nature``), from its names and from the column headers of the tables its rows
were seen in, and the line that says so in the profile.

A table whose value columns are all headed by a date alone ("31 December 2024", "于2024年12月
31日") holds figures at a point in time: balances. One with a "year ended …" header holds
figures over a period: flows. Names and tables that disagree, or tables of both sorts, leave
the nature unset with a note, and so does nothing at all: a metric whose nature is not set is
never summed over periods, so guessing "flow" could only fabricate a sum. A metric added by
``ragspine review map`` is read by its names alone (``nature_by_name``): no table is read then.
"""

from __future__ import annotations

from ragspine.ingestion.suggest.observe import Seen, TableView
from ragspine.profile.metric_nature import MetricNature, nature_from_names


def table_natures(tables: list[TableView]) -> dict[Seen, MetricNature]:
    """The nature each table's column headers give its rows, by where each row was seen."""
    found: dict[Seen, MetricNature] = {}
    for view in tables:
        dated = [c.parts.dated and not c.parts.ended for c in view.columns]
        if any(c.parts.ended for c in view.columns):
            nature = MetricNature.FLOW
        elif dated and all(dated):
            nature = MetricNature.BALANCE
        else:
            continue
        found.update((line.seen, nature) for line in view.lines)
    return found


def settle_nature(
    names: list[str], seen: list[Seen], by_table: dict[Seen, MetricNature]
) -> tuple[MetricNature | None, str]:
    """A metric's nature and why (for the draft's comment); None with the reason it is not
    told."""
    named = nature_from_names(names)
    tabled = {by_table[s] for s in seen if s in by_table}
    if len(tabled) > 1:
        return None, "its rows sit in tables dated at a point in time and over a period"
    table = next(iter(tabled), None)
    if named is not None and table is not None and named != table:
        return None, f"its name reads as a {named.value} but its tables' columns as a {table.value}"
    if named is not None:
        return nature_by_name(names)
    if table is not None:
        return table, f"read from its tables' column headers: {_MEANS[table]}"
    return None, "neither its name nor its tables' columns tell"


def nature_by_name(names: list[str]) -> tuple[MetricNature | None, str]:
    """A metric's nature as its names (code, names, aliases) say, and why; None with the reason
    when they say neither or both."""
    named = nature_from_names(names)
    if named is None:
        return None, "its name does not tell"
    return named, f"read from its name: {_MEANS[named]}"


def nature_line(nature: MetricNature | None, why: str) -> str:
    """The profile line of a metric's ``nature`` with why it is; when unset, a comment saying
    what to set, and that until then its periods are never summed."""
    if nature is not None:
        return f'nature = "{nature.value}"  # {why}'
    return f'# nature = "flow" or "balance": {why}; until it is set, its periods are never summed'


_MEANS = {
    MetricNature.FLOW: "accrues over a period, so its quarters add up",
    MetricNature.BALANCE: "measured at a point in time, never summed over periods",
}
