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

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from ragspine.ingestion.labels import LabelReading, read_label
from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.numbers import (
    ParsedNumber,
    UnitSpec,
    is_empty,
    parse_number,
    unit_from_number_format,
)
from ragspine.ingestion.ocr import MIN_CONFIDENCE, confidence_mark
from ragspine.profile.glossary import Glossary
from ragspine.profile.model import MetricKind
from ragspine.profile.periods import Period, find_periods

# No honest figure is this large in its normalised unit: 1e15 millions of dollars is ten
# million times world GDP, 1e15 % or 1e15 visitors is nonsense. Past it, and for values that
# overflowed to infinity (400 "9"s, 1e308 scaled by a "billion" label), a cell is a review item.
ABSURD_MAGNITUDE = 1e15


# Unmapped labels reviewed one by one per axis of a table; the rest are counted in one item.
MAX_UNMAPPED_ITEMS = 200


class ReviewReason(StrEnum):
    CONFLICT = "conflict"
    UNMAPPED_LABEL = "unmapped_label"
    AMBIGUOUS_ENTITY = "ambiguous_entity"
    MISSING_ENTITY = "missing_entity"
    MISSING_PERIOD = "missing_period"
    MISSING_METRIC = "missing_metric"
    LOW_CONFIDENCE = "low_confidence"
    UNIT_MISMATCH = "unit_mismatch"
    NEEDS_OCR = "needs_ocr"
    UNREADABLE = "unreadable"
    ABSURD_VALUE = "absurd_value"
    AMBIGUOUS_CELL = "ambiguous_cell"
    SUSPICIOUS_INSTRUCTION = "suspicious_instruction"


@dataclass(frozen=True)
class CandidateFact:
    """A fact as read from a table, before the document's lineage fields are attached."""

    metric_code: str
    entity: str
    channel: str
    period: Period
    value: float
    unit: str
    locator: str

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.metric_code, self.entity, self.period.type, self.period.period, self.channel)


@dataclass(frozen=True)
class ReviewCandidate:
    locator: str
    reason: ReviewReason
    detail: str
    fact: CandidateFact | None = None


@dataclass
class TableMapping:
    facts: list[CandidateFact] = field(default_factory=list)
    review: list[ReviewCandidate] = field(default_factory=list)


@dataclass(frozen=True)
class _Chain:
    """What the table's surroundings say, resolved once per table."""

    entity: str | None
    entity_problem: ReviewReason | None
    period: Period | None
    metric: str | None
    channel: str | None
    units: tuple[UnitSpec, ...]


def map_table(table: Table, glossary: Glossary, doc_title: str = "") -> TableMapping:
    grid = table.cells
    numbers = [[_number(cell) for cell in row] for row in grid]
    years = {
        (r, c)
        for r, row in enumerate(grid)
        for c, cell in enumerate(row)
        if numbers[r][c] is not None and _is_period(_clean(cell.text))
    }
    lines = _Lines(table, numbers, years, glossary)
    header_rows = _leading(len(grid), lines.header_row)
    data = range(header_rows, len(grid))
    header_cols = _leading(table.n_cols, lambda c: lines.header_col(c, header_rows))
    # Past the headers every number is a value, a bare year ("2050") included.
    values = [
        [n if r >= header_rows and c >= header_cols else None for c, n in enumerate(row)]
        for r, row in enumerate(numbers)
    ]
    col_labels = [
        read_label(_header_text(table, c, header_rows), glossary) for c in range(table.n_cols)
    ]
    row_labels = [read_label(_row_text(table, r, header_cols), glossary) for r in range(len(grid))]
    chain = _chain(table, glossary, doc_title)
    result = TableMapping()
    skipped_rows = _unmapped(table, row_labels, values, header_rows, header_cols, result, rows=True)
    skipped_cols = _unmapped(
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
    twins = _Twins(
        _duplicates(
            row_labels,
            [r for r in data if any(values[r]) and not _merged_at(table, r, header_cols - 1)],
        ),
        _duplicates(
            col_labels,
            [
                c
                for c in range(header_cols, table.n_cols)
                if _any_in(values, c) and not _merged_at(table, header_rows - 1, c)
            ],
        ),
    )
    merges = _merge_groups(grid, values, scope)
    table_problems: dict[ReviewReason, str] = {}
    for r, c in sorted(scope):
        cell, row, col = grid[r][c], row_labels[r], col_labels[c]
        parsed = values[r][c]
        if parsed is None:
            _unreadable(table, cell, row, col, chain, result, twins)
            continue
        group = merges.get((r, c))
        if group is not None:
            if group[0] != (r, c):
                continue  # a copy of a merged value: its anchor speaks for it
            spanned = {_dimensions(row_labels[i], col_labels[j], chain) for i, j in group}
            if len(spanned) > 1:
                _ambiguous_merge(table, cell, row, col, group, result)
                continue
        elif twins.any(r, c):  # (a merged header over a merged value is one wide column)
            _twin(table, cell, row, col, twins, result)
            continue
        _map_cell(table, cell, parsed, row, col, chain, glossary, result, table_problems)
    if table_problems:
        # One problem with the table's context spoils every number in it: review the table.
        result.facts.clear()
        kept = (ReviewReason.UNMAPPED_LABEL, ReviewReason.UNREADABLE)  # facts of the source
        result.review = [r for r in result.review if r.reason in kept]
        result.review += [
            ReviewCandidate(table.locator_prefix, reason, detail)
            for reason, detail in table_problems.items()
        ]
    return result


@dataclass(frozen=True)
class _Twins:
    """Value rows and columns whose header names the same codes as another's (0-based)."""

    rows: set[int]
    cols: set[int]

    def any(self, r: int, c: int) -> bool:
        return r in self.rows or c in self.cols


def _merged_at(table: Table, r: int, c: int) -> bool:
    cell = table.cell(r, c) if r >= 0 and c >= 0 else None
    return cell is not None and cell.merged


def _any_in(values: list[list[ParsedNumber | None]], c: int) -> bool:
    return any(_at(values, r, c) for r in range(len(values)))


def _duplicates(labels: list[LabelReading], positions: list[int]) -> set[int]:
    """The positions whose label's codes another position's label also names (labels that
    are not fully explained are reviewed as ``unmapped_label`` instead)."""
    seen: dict[str, list[int]] = {}
    for p in positions:
        if labels[p].key and labels[p].covered:
            seen.setdefault(labels[p].key, []).append(p)
    return {p for same in seen.values() if len(same) > 1 for p in same}


def _merge_groups(
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


def _dimensions(
    row: LabelReading, col: LabelReading, chain: _Chain
) -> tuple[tuple[str, ...], Period | str, tuple[str, ...], tuple[str, ...]]:
    """What a value cell's headers make of it: metric, period, entity, channel."""
    metric = (row.metrics or col.metrics)[:1]
    return (
        metric,
        _period(row, col, chain),
        (row.entities or col.entities)[:1],
        (row.channels or col.channels)[:1],
    )


def _leading(count: int, is_header: Callable[[int], bool]) -> int:
    n = 0
    while n < count and is_header(n):
        n += 1
    return n


def _at(numbers: list[list[ParsedNumber | None]], r: int, c: int) -> ParsedNumber | None:
    row = numbers[r]
    return row[c] if c < len(row) else None


def _clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _number(cell: Cell) -> ParsedNumber | None:
    """The number a cell holds, a bare year ("2024") included."""
    text = _clean(cell.text)
    if cell.value is not None and math.isfinite(cell.value):
        parsed = parse_number(text)
        approximate = parsed.approximate if parsed else False
        return ParsedNumber(cell.value, "%" in cell.number_format, approximate)
    return parse_number(text)


def _is_period(text: str) -> bool:
    matches = find_periods(text)
    return len(matches) == 1 and (matches[0].start, matches[0].end) == (0, len(text))


@dataclass(frozen=True)
class _Lines:
    """Tells header lines from data lines.

    A leading line without numbers is a header, and a bare year ("2024") counts as a header
    cell — except on a line after the first whose label (a row's first cell, a column's
    header) names a metric or a period while its other text cells name nothing: that line is
    data, so "<metric> | 2050 | 2010" holds two values and "<metric> | n/a | see note" two cells
    to account for.
    """

    table: Table
    numbers: list[list[ParsedNumber | None]]
    years: set[tuple[int, int]]
    glossary: Glossary

    def header_row(self, r: int) -> bool:
        cells = self.table.cells[r]
        if any(self._plain_number(r, c) for c in range(len(cells))):
            return False
        return r == 0 or not self._data_line(
            cells[0].text, [cell.text for c, cell in enumerate(cells) if c and not self._n(r, c)]
        )

    def header_col(self, c: int, header_rows: int) -> bool:
        data = range(header_rows, self.table.n_rows)
        if any(self._plain_number(r, c) for r in data):
            return False
        body = [cell.text for r in data if (cell := self.table.cell(r, c)) and not self._n(r, c)]
        return c == 0 or not self._data_line(_header_text(self.table, c, header_rows), body)

    def _n(self, r: int, c: int) -> bool:
        return _at(self.numbers, r, c) is not None

    def _plain_number(self, r: int, c: int) -> bool:
        return self._n(r, c) and (r, c) not in self.years

    def _data_line(self, label: str, others: list[str]) -> bool:
        reading = read_label(label, self.glossary)
        if not (reading.metrics or reading.periods or reading.relative_years):
            return False
        return not any(self._names(text) for text in others if text.strip())

    def _names(self, text: str) -> bool:
        """Whether ``text`` reads as a header: a code, a relative year, or a bare "H1" / "Q3"."""
        reading = read_label(text, self.glossary)
        return bool(reading.key or reading.relative_years or find_periods(text))


def _joined(texts: list[str]) -> str:
    """Header cells joined in order; a merged cell repeats, so consecutive repeats collapse."""
    out: list[str] = []
    for text in texts:
        text = text.strip()
        if text and (not out or out[-1] != text):
            out.append(text)
    return " ".join(out)


def _header_text(table: Table, col: int, header_rows: int) -> str:
    return _joined([c.text for r in range(header_rows) if (c := table.cell(r, col)) is not None])


def _row_text(table: Table, row: int, header_cols: int) -> str:
    return _joined(
        [c.text for col in range(header_cols) if (c := table.cell(row, col)) is not None]
    )


def _label_locator(table: Table, cell: Cell) -> str:
    if table.locator_style == LocatorStyle.CELL:
        return f"{table.locator_prefix},cell={cell.ref}"
    if table.locator_style == LocatorStyle.CHART:
        # Column 0 holds the series names; a category's label is its levels read downwards.
        if cell.col == 0:
            return f"{table.locator_prefix},series={cell.text}"
        return f"{table.locator_prefix},category={_header_text(table, cell.col, cell.row + 1)}"
    return f"{table.locator_prefix},row={cell.row + 1},col={cell.col + 1}"


def _value_locator(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    twins: _Twins | None = None,
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


def _twin(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    twins: _Twins,
    result: TableMapping,
) -> None:
    label = col if cell.col in twins.cols else row
    axis = "column" if label is col else "row"
    result.review.append(
        ReviewCandidate(
            _value_locator(table, cell, row, col, twins),
            ReviewReason.AMBIGUOUS_CELL,
            f"another {axis} is also headed {label.text!r}: which one holds its figure is "
            "ambiguous",
        )
    )


def _ambiguous_merge(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    group: list[tuple[int, int]],
    result: TableMapping,
) -> None:
    result.review.append(
        ReviewCandidate(
            _value_locator(table, cell, row, col),
            ReviewReason.AMBIGUOUS_CELL,
            f"the value {cell.text!r} is merged over {len(group)} cells whose headers name "
            "different periods or metrics",
        )
    )


def _unmapped(
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
            [_at(numbers, p, c) for c in range(table.n_cols)]
            if rows
            else [_at(numbers, r, p) for r in range(header_rows, table.n_rows)]
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
                    _label_locator(table, anchor),
                    ReviewReason.UNMAPPED_LABEL,
                    f"{axis} label {labels[p].text!r} is not in the glossary",
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


def _chain(table: Table, glossary: Glossary, doc_title: str) -> _Chain:
    title = read_label(table.title, glossary, prose=True)
    around = [read_label(t, glossary, prose=True) for t in (*table.context, doc_title) if t]
    entity: str | None = None
    problem: ReviewReason | None = ReviewReason.MISSING_ENTITY
    for source in (title, *around):
        if source.entities:
            entity = source.entities[0] if len(source.entities) == 1 else None
            problem = None if entity else ReviewReason.AMBIGUOUS_ENTITY
            break
    period = next((s.periods[0] for s in (title, *around) if len(s.periods) == 1), None)
    return _Chain(
        entity=entity,
        entity_problem=problem,
        period=period,
        metric=title.metrics[0] if len(title.metrics) == 1 else None,
        channel=title.channels[0] if len(title.channels) == 1 else None,
        units=tuple(s.unit for s in (title, *around) if s.unit is not None),
    )


def _period(row: LabelReading, col: LabelReading, chain: _Chain) -> Period | str:
    """The cell's period, or why there is none. Headers first; a relative header ("上年") is
    the document's period shifted; with neither, the document's period itself."""
    absolute = row.periods or col.periods
    if absolute:
        return absolute[0]
    relative = row if row.relative_years else col if col.relative_years else None
    if relative is not None:
        if chain.period is None:
            return (
                f"the header {relative.text!r} names its year relative to the document, but the "
                "title, context and document title name no period"
            )
        return chain.period.years_later(relative.relative_years[0])
    return chain.period or "no period in the headers or title"


def _unreadable(
    table: Table,
    cell: Cell,
    row: LabelReading,
    col: LabelReading,
    chain: _Chain,
    result: TableMapping,
    twins: _Twins,
) -> None:
    """A value cell of a metric's row or column that holds neither a number nor an empty marker
    ("see note 3", "12..5") is reported, never dropped."""
    if is_empty(cell.text) or not (row.covered and col.covered):
        return  # an empty cell, or a line whose label names nothing we map (a comments column)
    if row.metrics or col.metrics or chain.metric:
        result.review.append(
            ReviewCandidate(
                _value_locator(table, cell, row, col, twins),
                ReviewReason.UNREADABLE,
                f"cell text {cell.text!r} is neither a number nor an empty marker",
            )
        )


def _map_cell(
    table: Table,
    cell: Cell,
    parsed: ParsedNumber,
    row: LabelReading,
    col: LabelReading,
    chain: _Chain,
    glossary: Glossary,
    result: TableMapping,
    problems: dict[ReviewReason, str],
) -> None:
    metric = (row.metrics or col.metrics or ((chain.metric,) if chain.metric else ()))[:1]
    period = _period(row, col, chain)
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
    definition = glossary.profile.metric(metric[0])
    assert definition is not None
    locator = _value_locator(table, cell, row, col)
    if cell.confidence is not None:  # read by OCR: the locator carries the engine's score
        locator += f",{confidence_mark(cell.confidence)}"
    unit, value = _unit_and_value(cell, parsed, row, col, chain, definition.kind, definition.unit)
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
    )
    if unit == _MISMATCH:
        result.review.append(
            ReviewCandidate(
                locator,
                ReviewReason.UNIT_MISMATCH,
                f"{metric[0]} is measured as {definition.kind.value}, but the cell is a percentage "
                "or the header names another unit",
            )
        )
    elif cell.confidence is not None and cell.confidence < MIN_CONFIDENCE:
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


_MISMATCH = "?"


def _clipped(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _unit_and_value(
    cell: Cell,
    parsed: ParsedNumber,
    row: LabelReading,
    col: LabelReading,
    chain: _Chain,
    kind: MetricKind,
    default_unit: str,
) -> tuple[str, float]:
    """The normalised unit and value; ``_MISMATCH`` when the unit contradicts the metric."""
    spec: UnitSpec | None
    if parsed.percent:
        from_format = cell.value is not None and "%" in cell.number_format
        spec = (
            unit_from_number_format(cell.number_format)
            if from_format
            else UnitSpec("PCT", percent=True)
        )
    else:
        declared = [u for u in (row.unit, col.unit, *chain.units) if u is not None]
        spec = declared[0] if declared else None
    if spec is None:
        return default_unit, parsed.value
    value = round(parsed.value * spec.factor, 9)
    is_pct = spec.unit == "PCT"
    if (kind == MetricKind.RATIO) != is_pct:
        return _MISMATCH, value
    return spec.unit, value
