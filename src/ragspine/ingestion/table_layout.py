"""The layout of a table's value cells and the review items it raises: lines that share a
header, values merged over several cells, lines whose label is not explained, cells that hold
no number — and the locator each cell and label gets."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ragspine.ingestion.labels import LabelReading
from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.numbers import ParsedNumber, is_empty
from ragspine.ingestion.table_headers import Chain, header_text, value_at
from ragspine.ingestion.table_results import (
    MAX_UNMAPPED_ITEMS,
    ReviewCandidate,
    ReviewReason,
    TableMapping,
)


@dataclass(frozen=True)
class Twins:
    """Value rows and columns whose header names the same codes as another's (0-based)."""

    rows: set[int]
    cols: set[int]

    def any(self, r: int, c: int) -> bool:
        return r in self.rows or c in self.cols


def merged_at(table: Table, r: int, c: int) -> bool:
    cell = table.cell(r, c) if r >= 0 and c >= 0 else None
    return cell is not None and cell.merged


def any_in(values: list[list[ParsedNumber | None]], c: int) -> bool:
    return any(value_at(values, r, c) for r in range(len(values)))


@dataclass(frozen=True)
class Sections:
    """Row labels qualified by their section heading, and the rows under a heading the
    profile cannot read (row → that heading's text)."""

    labels: list[LabelReading]
    unread: dict[int, str]


def under_sections(
    labels: list[LabelReading], values: list[list[ParsedNumber | None]], data: range
) -> Sections:
    """Row labels qualified by the section heading above them.

    A data row without figures whose label names an entity or a channel and no metric
    (a region, a sales channel) heads a section: the rows below it, up to the next heading,
    take its entity and channel where their own label names none, so one metric's row under
    two regions is two rows, not one label repeated. Rows under a heading the
    profile cannot read ("Segment B") are noted, so they fail alone. A metric's row whose
    cells are all empty ("<metric> | — | —") is that metric without figures, not a heading:
    the rows below it stay in its section.
    """
    qualified = list(labels)
    unread: dict[int, str] = {}
    section: LabelReading | None = None
    for r in data:
        label = labels[r]
        if not any(values[r]):
            if not label.blank and not (label.covered and label.metrics):
                section = label
            continue
        if section is None or label.blank or not label.covered:
            continue
        if section.covered and (section.entities or section.channels) and not section.metrics:
            qualified[r] = replace(
                label,
                entities=label.entities or section.entities,
                channels=label.channels or section.channels,
            )
        elif not section.covered and not label.entities:
            unread[r] = section.text
    return Sections(qualified, unread)


def review_unread_section(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    heading: str,
    result: TableMapping,
) -> None:
    """A figure under a section heading the profile cannot read: which entity or channel the
    heading names is unknown, so this row fails alone (the heading is what to map)."""
    result.review.append(
        ReviewCandidate(
            value_locator(table, cell, row, col),
            ReviewReason.UNMAPPED_LABEL,
            f"row {cell.row + 1} sits under the section heading {heading!r}, which is not in "
            "the glossary",
        )
    )


def duplicates(labels: list[LabelReading], positions: list[int]) -> set[int]:
    """The positions whose label's codes another position's label also names (labels that
    are not fully explained are reviewed as ``unmapped_label`` instead)."""
    seen: dict[str, list[int]] = {}
    for p in positions:
        if labels[p].key and labels[p].covered:
            seen.setdefault(labels[p].key, []).append(p)
    return {p for same in seen.values() if len(same) > 1 for p in same}


def merge_groups(
    grid: tuple[tuple[Cell, ...], ...],
    values: list[list[ParsedNumber | None]],
    scope: set[tuple[int, int]],
) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Value cells that are copies of one merged cell → all of them, anchor (top-left) first.

    Readers expand a merged cell into every position it covers, each marked ``merged`` with the
    anchor's text; neighbouring such cells with the same text are one merged figure.
    """
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for start in sorted(scope):
        r, c = start
        if start in groups or not grid[r][c].merged or values[r][c] is None:
            continue
        found, todo = {start}, [start]
        while todo:
            i, j = todo.pop()
            for near in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if near in scope and near not in found and _same_merge(grid, near, start):
                    found.add(near)
                    todo.append(near)
        if len(found) > 1:
            group = sorted(found)
            groups.update(dict.fromkeys(group, group))
    return groups


def _same_merge(
    grid: tuple[tuple[Cell, ...], ...], at: tuple[int, int], of: tuple[int, int]
) -> bool:
    cell, anchor = grid[at[0]][at[1]], grid[of[0]][of[1]]
    return cell.merged and cell.text == anchor.text


def label_locator(table: Table, cell: Cell) -> str:
    if table.locator_style == LocatorStyle.CELL:
        return f"{table.locator_prefix},cell={cell.ref}"
    if table.locator_style == LocatorStyle.CHART:
        # Column 0 holds the series names; a category's label is its levels read downwards.
        if cell.col == 0:
            return f"{table.locator_prefix},series={cell.text}"
        return f"{table.locator_prefix},category={header_text(table, cell.col, cell.row + 1)}"
    return f"{table.locator_prefix},row={cell.row + 1},col={cell.col + 1}"


def value_locator(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    twins: Twins | None = None,
) -> str:
    """The cell's locator; a header shared by two lines (``twins``) gets the line's position."""
    row_name, col_name = row.key or str(cell.row + 1), col.key or str(cell.col + 1)
    series, category = row.text, col.text
    if twins is not None and cell.row in twins.rows:
        row_name, series = f"{row_name}#{cell.row + 1}", f"{series}#{cell.row + 1}"
    if twins is not None and cell.col in twins.cols:
        col_name, category = f"{col_name}#{cell.col + 1}", f"{category}#{cell.col + 1}"
    if table.locator_style == LocatorStyle.CELL:
        return f"{table.locator_prefix},cell={cell.ref}"
    if table.locator_style == LocatorStyle.SEMANTIC:
        return f"{table.locator_prefix},row={row_name},col={col_name}"
    if table.locator_style == LocatorStyle.CHART:
        return f"{table.locator_prefix},series={series},category={category}"
    return f"{table.locator_prefix},row={cell.row + 1},col={cell.col + 1}"


def review_twin(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    twins: Twins,
    result: TableMapping,
) -> None:
    label = col if cell.col in twins.cols else row
    axis = "column" if label is col else "row"
    result.review.append(
        ReviewCandidate(
            value_locator(table, cell, row, col, twins),
            ReviewReason.AMBIGUOUS_CELL,
            f"another {axis} is also headed {label.text!r}: which one holds its figure is "
            "ambiguous",
        )
    )


def review_unlabelled(
    table: Table, cell: Cell, row: LabelReading, col: LabelReading, result: TableMapping
) -> None:
    """A figure on a row without a label (an unlabelled total, say), or whose label names no
    metric ("Total", a region), in a table whose rows name the metrics: that figure names no
    metric, but the labelled rows around it still do."""
    named = "has no label" if row.blank else f"is headed {row.text!r}, which names no metric"
    result.review.append(
        ReviewCandidate(
            value_locator(table, cell, row, col),
            ReviewReason.MISSING_METRIC,
            f"row {cell.row + 1} {named}, so its figure {cell.text!r} names no metric",
        )
    )


def review_merge(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    group: list[tuple[int, int]],
    result: TableMapping,
) -> None:
    result.review.append(
        ReviewCandidate(
            value_locator(table, cell, row, col),
            ReviewReason.AMBIGUOUS_CELL,
            f"the value {cell.text!r} is merged over {len(group)} cells whose headers name "
            "different periods or metrics",
        )
    )


def review_unmapped(
    table: Table,
    labels: list[LabelReading],
    numbers: list[list[ParsedNumber | None]],
    header_rows: int,
    header_cols: int,
    result: TableMapping,
    *,
    rows: bool,
) -> set[int]:
    """Rows (or columns) with numbers whose header label is not fully explained.

    Each gets one ``unmapped_label`` review item at its innermost header cell, and its numbers
    are left out: a label we cannot read names no metric we could vouch for. Past
    ``MAX_UNMAPPED_ITEMS`` per axis of a table, the rest share one item at the table.
    """
    skipped: set[int] = set()
    beyond: list[str] = []  # labels past MAX_UNMAPPED_ITEMS, reviewed as one item
    axis = "row" if rows else "column"
    positions = range(header_rows, table.n_rows) if rows else range(header_cols, table.n_cols)
    for p in positions:
        data = (
            [value_at(numbers, p, c) for c in range(table.n_cols)]
            if rows
            else [value_at(numbers, r, p) for r in range(header_rows, table.n_rows)]
        )
        if labels[p].covered or not any(data):
            continue
        skipped.add(p)
        headers = (
            [table.cell(p, c) for c in range(header_cols)]
            if rows
            else [table.cell(r, p) for r in range(header_rows)]
        )
        cells = [c for c in headers if c is not None and c.text.strip()]
        anchor = cells[-1] if cells else (table.cells[p][0] if rows else table.cells[0][p])
        if len(skipped) <= MAX_UNMAPPED_ITEMS:
            result.review.append(
                ReviewCandidate(
                    label_locator(table, anchor),
                    *_why_unmapped(labels[p], axis),
                )
            )
        else:
            beyond.append(labels[p].text)
    if beyond:
        # A sheet of 100,000 unknown lines is one thing to review, not 100,000.
        examples = ", ".join(repr(text) for text in beyond[:3])
        result.review.append(
            ReviewCandidate(
                table.locator_prefix,
                ReviewReason.UNMAPPED_LABEL,
                f"{len(beyond):,} more {axis} labels are not in the glossary (e.g. {examples})",
            )
        )
    return skipped


def review_unreadable(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    chain: Chain,
    result: TableMapping,
    twins: Twins,
) -> None:
    """A value cell of a metric's row or column that holds neither a number nor an empty marker
    ("see note 3", "12..5") is reported, never dropped."""
    if is_empty(cell.text) or not (row.covered and col.covered):
        return  # an empty cell, or a line whose label names nothing we map (a comments column)
    if row.metrics or col.metrics or chain.metric:
        result.review.append(
            ReviewCandidate(
                value_locator(table, cell, row, col, twins),
                ReviewReason.UNREADABLE,
                f"cell text {cell.text!r} is neither a number nor an empty marker",
            )
        )


def _why_unmapped(label: LabelReading, axis: str) -> tuple[ReviewReason, str]:
    if label.unknown_units:  # the label is plain, its unit is what nobody can read
        token = label.unknown_units[0]
        return (
            ReviewReason.UNIT_UNKNOWN,
            f"{axis} label {label.text!r} holds unit-like token {token!r} the engine cannot read",
        )
    return ReviewReason.UNMAPPED_LABEL, f"{axis} label {label.text!r} is not in the glossary"
