"""Turn one extracted table into candidate facts and review items — nothing guessed.

The grid is read the way an analyst reads it: leading rows without numbers are column
headers, leading columns without numbers are row headers, and every number cell takes its
metric, entity, period and channel from its row and column headers. Whatever the headers do
not say comes from the table's title (metric, channel, entity, period) and then, for entity and
period only, from the text around the table and the document title — prose mentions metrics
and channels in passing, so those are never taken from it. Anything that cannot be pinned
down becomes a review item with its reason and locator instead of a fact.

A bare year ("2024") is a header where headers are, and a value past them: a metric row may
well read "2050". A header that names its year relative to the document ("本年", "Prior year",
"PY") takes the period the title, context or document title names, shifted by that many years.
Every value cell of a metric's row (or column) ends as a fact or a review item: a cell that
holds neither a number nor an empty marker ("—", "n/a", "nm", "不适用") is ``unreadable``.

A value merged over several cells is one figure: it becomes one fact at its anchor (top-left)
cell when every cell it spans reads the same metric, period, entity and channel, and one
``ambiguous_cell`` item otherwise (a figure merged across FY2023 and FY2024 belongs to
neither). Two value rows or columns whose headers name the same codes (two "FY2024" columns)
cannot be told apart: their cells are ``ambiguous_cell`` items, each locator made distinct by
the line's 1-based position (``col=FY2024#3``).
"""

from __future__ import annotations

from collections.abc import Callable

from ragspine.ingestion.labels import LabelReading, read_label
from ragspine.ingestion.model import Cell, Table
from ragspine.ingestion.numbers import ParsedNumber
from ragspine.ingestion.ocr import MIN_CONFIDENCE, confidence_mark
from ragspine.ingestion.table_headers import (
    Chain,
    Lines,
    dimensions,
    header_text,
    is_year_header,
    leading,
    period_of,
    read_chain,
    row_text,
    value_at,
)
from ragspine.ingestion.table_layout import (
    Twins,
    any_in,
    duplicates,
    merge_groups,
    merged_at,
    review_merge,
    review_twin,
    review_unlabelled,
    review_unmapped,
    review_unread_section,
    review_unreadable,
    under_sections,
    value_locator,
)
from ragspine.ingestion.table_results import (
    ABSURD_MAGNITUDE,
    MAX_UNMAPPED_ITEMS,
    CandidateFact,
    ReviewCandidate,
    ReviewReason,
    TableMapping,
)
from ragspine.ingestion.table_units import UnitProblem, cell_number, resolve_unit
from ragspine.profile.glossary import Glossary

__all__ = [
    "ABSURD_MAGNITUDE",
    "MAX_UNMAPPED_ITEMS",
    "CandidateFact",
    "ReviewCandidate",
    "ReviewReason",
    "TableMapping",
    "map_table",
]


def map_table(table: Table, glossary: Glossary, doc_title: str = "") -> TableMapping:
    grid = table.cells
    reporting = glossary.profile.company.reporting_currency
    numbers = [[cell_number(cell, reporting) for cell in row] for row in grid]
    years = {
        (r, c)
        for r, row in enumerate(grid)
        for c, cell in enumerate(row)
        if (number := numbers[r][c]) is not None and is_year_header(cell.text, number, glossary)
    }
    lines = Lines(table, numbers, years, glossary)
    header_rows = leading(len(grid), lines.header_row)
    data = range(header_rows, len(grid))
    header_cols = leading(table.n_cols, lambda c: lines.header_col(c, header_rows))
    # Past the headers every number is a value, a bare year ("2050") included.
    values = [
        [n if r >= header_rows and c >= header_cols else None for c, n in enumerate(row)]
        for r, row in enumerate(numbers)
    ]
    col_labels = [
        read_label(header_text(table, c, header_rows), glossary) for c in range(table.n_cols)
    ]
    sections = under_sections(
        [read_label(row_text(table, r, header_cols), glossary) for r in range(len(grid))],
        values,
        data,
    )
    row_labels = sections.labels
    # Whether the rows name the metrics: then a row without a label fails alone.
    rows_name_metrics = any(row_labels[r].metrics for r in data)
    # The corner cell above the row labels ("£'000", "US$m") speaks for the whole grid.
    corner = col_labels[0] if header_rows and header_cols else None
    chain = read_chain(table, glossary, doc_title, corner)
    result = TableMapping()
    skipped_rows = review_unmapped(
        table, row_labels, values, header_rows, header_cols, result, rows=True
    )
    skipped_cols = review_unmapped(
        table, col_labels, values, header_rows, header_cols, result, rows=False
    )
    scope = {
        (r, c)
        for r in data
        if r not in skipped_rows
        for c in range(header_cols, len(grid[r]))
        if c not in skipped_cols
    }
    # A header merged over several lines makes them one wide line, not two with one name.
    # A line whose figures are all hidden (read with ``include_hidden``) is no twin of a
    # visible one: the visible line's figures stand, and the hidden one's are set aside by key
    # (``set_aside_hidden``).
    twins = Twins(
        _hidden_apart(
            row_labels,
            [r for r in data if any(values[r]) and not merged_at(table, r, header_cols - 1)],
            lambda r: all(grid[r][c].hidden for c, v in enumerate(values[r]) if v),
        ),
        _hidden_apart(
            col_labels,
            [
                c
                for c in range(header_cols, table.n_cols)
                if any_in(values, c) and not merged_at(table, header_rows - 1, c)
            ],
            lambda c: all(grid[r][c].hidden for r in range(len(grid)) if value_at(values, r, c)),
        ),
    )
    merges = merge_groups(grid, values, scope)
    table_problems: dict[ReviewReason, str] = {}
    for r, c in sorted(scope):
        cell, row, col = grid[r][c], row_labels[r], col_labels[c]
        parsed = values[r][c]
        if parsed is None:
            review_unreadable(table, cell, row, col, chain, result, twins)
            continue
        group = merges.get((r, c))
        if group is not None:
            if group[0] != (r, c):
                continue  # a copy of a merged value: its anchor speaks for it
            spanned = {dimensions(row_labels[i], col_labels[j], chain) for i, j in group}
            if len(spanned) > 1:
                review_merge(table, cell, row, col, group, result)
                continue
        elif twins.any(r, c):  # (a merged header over a merged value is one wide column)
            review_twin(table, cell, row, col, twins, result)
            continue
        if r in sections.unread and not col.entities:
            review_unread_section(table, cell, row, col, sections.unread[r], result)
            continue
        if rows_name_metrics and not (row.metrics or col.metrics or chain.metric):
            review_unlabelled(table, cell, row, col, result)
            continue
        _map_cell(table, cell, parsed, row, col, chain, glossary, result, table_problems)
    if table_problems:
        # One problem with the table's context spoils every number in it: review the table.
        result.facts.clear()
        # Facts of the source, not of the table's context:
        kept = (ReviewReason.UNMAPPED_LABEL, ReviewReason.UNIT_UNKNOWN, ReviewReason.UNREADABLE)
        result.review = [r for r in result.review if r.reason in kept]
        result.review += [
            ReviewCandidate(table.locator_prefix, reason, detail)
            for reason, detail in table_problems.items()
        ]
    return result


def _hidden_apart(
    labels: list[LabelReading], lines: list[int], hidden: Callable[[int], bool]
) -> set[int]:
    """The twin lines among ``lines``, visible and hidden ones compared apart."""
    shown = [line for line in lines if not hidden(line)]
    if len(shown) == len(lines):
        return duplicates(labels, lines)
    return duplicates(labels, shown) | duplicates(labels, [n for n in lines if hidden(n)])


def _map_cell(
    table: Table,
    cell: Cell,
    parsed: ParsedNumber,
    row: LabelReading,
    col: LabelReading,
    chain: Chain,
    glossary: Glossary,
    result: TableMapping,
    problems: dict[ReviewReason, str],
) -> None:
    metric = (row.metrics or col.metrics or ((chain.metric,) if chain.metric else ()))[:1]
    period = period_of(row, col, chain)
    entity = (row.entities or col.entities)[:1]
    if not metric:
        problems.setdefault(ReviewReason.MISSING_METRIC, "no metric in the headers or title")
        return
    if isinstance(period, str):
        problems.setdefault(ReviewReason.MISSING_PERIOD, period)
        return
    if not entity:
        if chain.entity is None:
            reason = chain.entity_problem or ReviewReason.MISSING_ENTITY
            problems.setdefault(reason, "the table's title and context do not name one entity")
            return
        entity = (chain.entity,)
    channel_code = row.channels or col.channels or ((chain.channel,) if chain.channel else ())
    if chain.unit.problem is not None:
        # A unit the table declares but nobody can read spoils every figure under it.
        problems.setdefault(*chain.unit.problem)
        return
    definition = glossary.profile.metric(metric[0])
    assert definition is not None
    locator = value_locator(table, cell, row, col)
    if cell.confidence is not None:  # read by OCR: the locator carries the engine's score
        locator += f",{confidence_mark(cell.confidence)}"
    own, other = (row, col) if row.metrics or not col.metrics else (col, row)
    reporting = glossary.profile.company.reporting_currency
    resolved = resolve_unit(parsed, own, other, chain.unit.marker, definition, reporting)
    if isinstance(resolved, UnitProblem):
        result.review.append(ReviewCandidate(locator, resolved.reason, resolved.detail))
        return
    unit, value = resolved[0].code, resolved[1]
    if not abs(value) <= ABSURD_MAGNITUDE:  # NaN and infinity included
        result.review.append(
            ReviewCandidate(
                locator,
                ReviewReason.ABSURD_VALUE,
                f"cell text {_clipped(cell.text)!r} reads as {value:.6g} {unit}, beyond "
                f"{ABSURD_MAGNITUDE:.0e} in absolute value",
            )
        )
        return
    fact = CandidateFact(
        metric_code=metric[0],
        entity=entity[0],
        channel=channel_code[0] if channel_code else glossary.profile.defaults.channel,
        period=period,
        value=value,
        unit=unit,
        locator=locator,
        hidden=cell.hidden,
        row_label=own.text if not own.blank else None,
    )
    if cell.confidence is not None and cell.confidence < MIN_CONFIDENCE:
        result.review.append(
            ReviewCandidate(
                locator,
                ReviewReason.LOW_CONFIDENCE,
                f"OCR read {cell.text!r} with confidence {cell.confidence:.2f}, "
                f"below {MIN_CONFIDENCE}",
                fact,
            )
        )
    elif parsed.approximate:
        result.review.append(
            ReviewCandidate(
                locator,
                ReviewReason.LOW_CONFIDENCE,
                f"cell text {cell.text!r} is approximate or footnoted",
                fact,
            )
        )
    else:
        result.facts.append(fact)


def _clipped(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
