"""What a set of documents shows a profile author: every labelled line of every table with
its unit and place, column groups, sheet names, titles, and the fiscal year's end.

Tables are read the way the table mapper reads them, without a profile: leading rows and
columns holding no number (a bare year counts as a header) are headers; every other row with a
number is a labelled line whose label names a metric, every value column whose header says
more than a period and a unit is a column group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragspine.ingestion.discovery import SourceFile, discover
from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, Table
from ragspine.ingestion.numbers import ParsedNumber
from ragspine.ingestion.readers import read_document
from ragspine.ingestion.suggest.names import LabelParts, normalized, read_parts
from ragspine.ingestion.table_headers import clean, header_text, is_period, leading, row_text
from ragspine.ingestion.table_layout import label_locator
from ragspine.ingestion.table_units import cell_number
from ragspine.ingestion.unit_words import Marker


@dataclass(frozen=True, order=True)
class Seen:
    """Where something was seen: a document and a locator in it."""

    doc: str
    locator: str

    def __str__(self) -> str:
        return f"{self.doc} ({self.locator})" if self.locator else self.doc


@dataclass(frozen=True)
class Line:
    """A labelled table row with numbers: its label cells, the marker nearest it (its own,
    else its table's), and whether its cells are written as percentages."""

    cells: tuple[str, ...]
    parts: LabelParts
    table_marker: Marker | None
    percent_cells: bool
    seen: Seen


@dataclass(frozen=True)
class Column:
    """A value column's header with what is left of it once periods and units are out."""

    parts: LabelParts
    seen: Seen


@dataclass(frozen=True)
class TableView:
    doc: str
    table: Table
    title_parts: LabelParts
    sheet: str  # the sheet name for a workbook table, else ""
    lines: tuple[Line, ...]
    columns: tuple[Column, ...]
    values: tuple[tuple[float, ...], ...]  # value cells row by row, for bilingual twins


@dataclass
class Observations:
    docs: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    tables: list[TableView] = field(default_factory=list)
    titles: list[tuple[str, Seen]] = field(default_factory=list)  # document and table titles
    ended: list[tuple[int, Seen]] = field(default_factory=list)  # "year ended …" months
    dated: list[tuple[int, Seen]] = field(default_factory=list)  # date-only header months


def observe(paths: Sequence[Path]) -> Observations:
    found = Observations()
    for source in discover(list(paths)):
        if source.problem:
            found.failed.append((source.doc_id, source.problem))
            continue
        try:
            document = read_document(source.path)
        except Exception as exc:  # one unreadable file is reported, the rest still read
            found.failed.append((source.doc_id, f"{type(exc).__name__}: {exc}"))
            continue
        found.docs.append(source.doc_id)
        _observe_document(source, document, found)
    return found


def _observe_document(source: SourceFile, document: ExtractedDocument, found: Observations) -> None:
    doc = source.doc_id
    title = _document_title(document, source)
    found.titles.append((title, Seen(doc, "title")))
    for block in document.blocks:
        _note_dates(read_parts(block.text, prose=True), Seen(doc, block.locator), found, False)
    for table in document.tables:
        view = _view(doc, table)
        if view is None:
            continue
        found.tables.append(view)
        for text in (table.title, *table.context):
            if text.strip():
                seen = Seen(doc, table.locator_prefix)
                found.titles.append((text, seen))
                _note_dates(read_parts(text, prose=True), seen, found, False)
        for column in view.columns:
            _note_dates(column.parts, column.seen, found, True)


def _note_dates(parts: LabelParts, seen: Seen, found: Observations, header: bool) -> None:
    """Year-end months from "year ended …" anywhere; from a date alone only in a column
    header, where it names the period the column holds (in prose it may date anything)."""
    found.ended += [(month, seen) for month in parts.ended]
    if header:
        found.dated += [(month, seen) for month in parts.dated]


def _document_title(document: ExtractedDocument, source: SourceFile) -> str:
    if document.title:
        return document.title
    for block in document.blocks:
        if block.kind in ("title", "heading") and block.text.strip():
            return block.text.strip().splitlines()[0]
    return source.path.stem


def _view(doc: str, table: Table) -> TableView | None:
    grid = table.cells
    numbers = [[cell_number(cell, None) for cell in row] for row in grid]
    years = {
        (r, c)
        for r, row in enumerate(grid)
        for c, cell in enumerate(row)
        if numbers[r][c] is not None and is_period(clean(cell.text))
    }

    def plain(r: int, c: int) -> bool:
        return c < len(numbers[r]) and numbers[r][c] is not None and (r, c) not in years

    header_rows = leading(len(grid), lambda r: not any(plain(r, c) for c in range(len(grid[r]))))
    data = range(header_rows, len(grid))
    header_cols = leading(table.n_cols, lambda c: not any(plain(r, c) for r in data))
    if header_cols == 0 or header_rows == len(grid):
        return None
    corner = header_text(table, 0, header_rows) if header_rows else ""
    title_parts = read_parts(table.title, prose=True)
    table_marker = _first_marker(
        [read_parts(corner).marker if corner else None, title_parts.marker]
        + [read_parts(t, prose=True).marker for t in table.context]
    )
    value_cols = range(header_cols, table.n_cols)
    lines: list[Line] = []
    values: list[tuple[float, ...]] = []
    for r in data:
        row_numbers = [numbers[r][c] if c < len(numbers[r]) else None for c in value_cols]
        if not any(row_numbers):
            continue
        label_cells = tuple(
            cell.text.strip() for c in range(header_cols) if (cell := table.cell(r, c))
        )
        anchor = next(
            (
                cell
                for c in reversed(range(header_cols))
                if (cell := table.cell(r, c)) and cell.text.strip()
            ),
            grid[r][0],
        )
        lines.append(
            Line(
                cells=tuple(t for t in label_cells if t),
                parts=read_parts(row_text(table, r, header_cols)),
                table_marker=table_marker,
                percent_cells=_percent(table, r, row_numbers, header_cols),
                seen=Seen(doc, label_locator(table, anchor)),
            )
        )
        values.append(tuple(n.value for n in row_numbers if n is not None))
    columns = []
    for c in value_cols:
        if header_rows == 0 or not any(plain(r, c) for r in data):
            continue
        head = next(
            (
                cell
                for r in reversed(range(header_rows))
                if (cell := table.cell(r, c)) and cell.text.strip()
            ),
            None,
        )
        if head is None:
            continue
        text = header_text(table, c, header_rows)
        columns.append(Column(read_parts(text), Seen(doc, label_locator(table, head))))
    sheet = (
        table.locator_prefix.removeprefix("sheet=")
        if table.locator_style == LocatorStyle.CELL
        else ""
    )
    return TableView(doc, table, title_parts, sheet, tuple(lines), tuple(columns), tuple(values))


def _first_marker(markers: list[Marker | None]) -> Marker | None:
    return next((m for m in markers if m is not None), None)


def _percent(table: Table, r: int, row_numbers: list[ParsedNumber | None], first: int) -> bool:
    """Whether every number of the row is written as a percentage ("12.5%", a 0.0% format)."""
    flags = []
    for offset, number in enumerate(row_numbers):
        if number is None:
            continue
        cell = table.cell(r, first + offset)
        written = cell is not None and "%" in (cell.number_format + normalized(cell.text))
        flags.append(number.percent or written)
    return bool(flags) and all(flags)
