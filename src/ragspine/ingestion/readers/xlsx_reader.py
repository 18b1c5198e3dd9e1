"""Read an Excel workbook: each worksheet's used range becomes one table of computed values.

Lines of a single text cell above a sheet's grid ("<Company> <region> — five-year summary",
"USD m") are the table's title and context, nearest first, followed by the sheet name: they name
the entity, unit and period the grid's own headers leave out.

Hidden sheets (``hidden`` and ``veryHidden``), rows and columns are not part of what the
workbook shows, so they are skipped and their non-empty cells counted, unless the reader is
made with ``include_hidden``: a hidden "Draft" sheet must never state a figure beside the
visible one. Read with ``include_hidden``, their cells are marked ``hidden`` so a figure they
state never outranks a visible one.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl.reader.excel import ExcelReader
from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.utils.cell import coordinate_to_tuple
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.xml.constants import SHEET_MAIN_NS
from openpyxl.xml.functions import iterparse

from ragspine.ingestion.model import Cell, ExtractedDocument, LocatorStyle, ReaderIssue, Table
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.number_format import render_number
from ragspine.ingestion.safety import WorkBudget

# (row, column), both 1-based as in the sheet.
_Coord = tuple[int, int]

_MISSING_VALUE = "formula without a computed value"
_ROW_TAG = f"{{{SHEET_MAIN_NS}}}row"
_CELL_TAG = f"{{{SHEET_MAIN_NS}}}c"
_FORMULA_TAG = f"{{{SHEET_MAIN_NS}}}f"
# A sheet part without this byte pattern holds no formula and is not parsed a second time.
_ANY_FORMULA = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?f[\s/>]")
_CELL_START = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")
_ROW_START = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s/>]")
_LONGEST_TAG = 64  # bytes: room for a namespace prefix, the name and one more character


class XlsxReader:
    """One ``Table`` per non-empty worksheet (``sheet=<title>``, CELL style); no text blocks."""

    suffixes: tuple[str, ...] = (".xlsx", ".xlsm")

    def __init__(self, budget: WorkBudget | None = None, *, include_hidden: bool = False) -> None:
        self._budget = budget
        self._include_hidden = include_hidden

    def read(self, path: Path) -> ExtractedDocument:
        budget = self._budget or WorkBudget(path)
        # openpyxl's descriptors raise TypeError for a style or property of the wrong type
        # (``<sz val="eleven">``): a bad file, not a bug of ours.
        with bad_file_errors(
            path,
            "Excel workbook",
            InvalidFileException,
            SyntaxError,
            TypeError,
            inside=("openpyxl", "et_xmlfile"),
        ):
            _count_grid(path, budget)  # before openpyxl holds every cell in memory
            # data_only: the values Excel computed and cached, not the formulas' text. The
            # workbook is loaded once; where formulas are is read from the sheet parts directly.
            excel = ExcelReader(path, read_only=False, data_only=True, keep_links=False)
            excel.read()
            workbook = excel.wb
            parts = {sheet.name: rel.target for sheet, rel in excel.parser.find_sheets()}
            formulas = _formula_cells(path, parts)
            document = ExtractedDocument(path=path, title=workbook.properties.title or "")
            for sheet in workbook.worksheets:
                budget.tick(f"sheet {sheet.title!r}")
                hidden = _Hidden.of(sheet)
                skipped = _Hidden.nothing() if self._include_hidden else hidden
                cells = _Sheet(sheet, formulas.get(sheet.title, set()), hidden)
                _read_sheet(cells, document, budget, skipped)
            return document


@dataclass(frozen=True)
class _Hidden:
    """What a sheet hides: all of it, or some rows and columns."""

    sheet: bool
    rows: frozenset[int]
    cols: frozenset[int]

    @classmethod
    def nothing(cls) -> _Hidden:
        return cls(False, frozenset(), frozenset())

    @classmethod
    def of(cls, sheet: Any) -> _Hidden:
        if getattr(sheet, "sheet_state", "visible") != "visible":
            return cls(True, frozenset(), frozenset())
        if not hasattr(sheet, "row_dimensions"):
            return cls.nothing()
        # Iterated, never indexed: indexing a dimension that is not there creates it.
        rows = frozenset(r for r, dim in sheet.row_dimensions.items() if dim.hidden)
        cols: set[int] = set()
        for key, dim in sheet.column_dimensions.items():
            if dim.hidden:
                # One <col min max> element covers a run of columns; openpyxl keys it by the
                # first column's letter and keeps the run in min/max.
                first = dim.min or column_index_from_string(key)
                cols.update(range(first, (dim.max or first) + 1))
        return cls(False, rows, frozenset(cols))

    def hides(self, coord: _Coord) -> bool:
        return self.sheet or coord[0] in self.rows or coord[1] in self.cols


def _count_grid(path: Path, budget: WorkBudget) -> None:
    """Count the cells and rows of every sheet part as its bytes stream by: a 50 MB workbook of
    a million cells is refused in seconds and constant memory, where loading it would take
    minutes and gigabytes."""
    cells = rows = 0
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            with archive.open(name) as part:
                tail = b""
                for chunk in iter(lambda: part.read(1 << 20), b""):
                    data = tail + chunk
                    # Keep an unfinished tag for the next chunk (tags are short).
                    cut = data.rfind(b"<", max(0, len(data) - _LONGEST_TAG))
                    cut = len(data) if cut < 0 else cut
                    cells += len(_CELL_START.findall(data, 0, cut))
                    rows += len(_ROW_START.findall(data, 0, cut))
                    tail = data[cut:]
                cells += len(_CELL_START.findall(tail))
                rows += len(_ROW_START.findall(tail))
    budget.cells(cells)
    budget.rows(rows)


def _formula_cells(path: Path, parts: dict[str, str]) -> dict[str, set[_Coord]]:
    """Where each sheet holds a formula: the computed-values load cannot tell them from blanks."""
    found: dict[str, set[_Coord]] = {}
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        for title, part in parts.items():
            if part not in names:
                continue
            xml = archive.read(part)
            if _ANY_FORMULA.search(xml):
                found[title] = set(_formula_coords(xml))
    return found


def _formula_coords(xml: bytes) -> Iterator[_Coord]:
    """The cells with an ``<f>`` element, addressed the way openpyxl addresses them (a cell
    without an ``r`` attribute follows the previous one, a row without one the previous row)."""
    row_number = 0
    for _, element in iterparse(io.BytesIO(xml)):
        if element.tag != _ROW_TAG:
            continue
        raw = element.get("r")
        row_number = int(float(raw)) if raw else row_number + 1
        column = 0
        for cell in element.iter(_CELL_TAG):
            ref = cell.get("r")
            row, column = coordinate_to_tuple(ref) if ref else (row_number, column + 1)
            if cell.find(_FORMULA_TAG) is not None:
                yield row, column
        element.clear()


@dataclass(frozen=True)
class _Sheet:
    """A worksheet, where it holds formulas and what it hides (read or skipped)."""

    sheet: Any
    formulas: set[_Coord]
    hidden: _Hidden


def _read_sheet(
    source: _Sheet, document: ExtractedDocument, budget: WorkBudget, hidden: _Hidden
) -> None:
    """Read one sheet into ``document``, skipping and counting what ``hidden`` hides."""
    sheet, formulas = source.sheet, source.formulas
    if not hasattr(sheet, "iter_rows"):
        return  # a chartsheet has no cells
    # One small merge tag can span a whole sheet: its cells count before they are expanded.
    spans = sheet.merged_cells.ranges
    budget.cells(sum(merged.size["rows"] * merged.size["columns"] for merged in spans))
    origins = _merge_origins(sheet)
    content = {coord for coord, cell in _cells(sheet) if _has_content(cell)}
    # A merged cell shows its origin's content wherever the merge is visible, even when the
    # origin's own row or column is hidden.
    shown = {coord for coord in content if not hidden.hides(coord)}
    shown |= {c for c, origin in origins.items() if origin in content and not hidden.hides(c)}
    document.hidden += len(content - shown - {origins.get(c, c) for c in shown})
    missing = {c for c in formulas if sheet.cell(*c).value is None and not hidden.hides(c)}
    used = shown | missing
    if not used:
        return
    titles, first_row = _title_lines(sheet, used, origins)
    grid_used = {(r, c) for r, c in used if r >= first_row}
    rows = _visible(range(first_row, max(r for r, _ in grid_used) + 1), hidden.rows)
    cols = _visible(
        range(min(c for _, c in grid_used), max(c for _, c in grid_used) + 1), hidden.cols
    )
    budget.cells(len(rows) * len(cols))  # two far-apart cells span a grid of blanks
    grid = tuple(
        tuple(_cell(source, (r, c), origins, i, j) for j, c in enumerate(cols))
        for i, r in enumerate(rows)
    )
    prefix = f"sheet={sheet.title}"
    nearest_first = [*reversed(titles), sheet.title]
    table = Table(grid, prefix, LocatorStyle.CELL, nearest_first[0], tuple(nearest_first[1:]))
    document.tables.append(table)
    for r, c in sorted(missing):
        ref = f"{get_column_letter(c)}{r}"
        document.issues.append(ReaderIssue(f"{prefix},cell={ref}", _MISSING_VALUE))


def _visible(numbers: range, hidden: frozenset[int]) -> range | list[int]:
    return [n for n in numbers if n not in hidden] if hidden else numbers


def _title_lines(
    sheet: Any, used: set[_Coord], origins: dict[_Coord, _Coord]
) -> tuple[list[str], int]:
    """The text lines above the grid, top to bottom, and the grid's first row.

    A title line holds one text cell (merged across the sheet or not) starting in the used
    range's first column; blank rows between such lines belong to them. The grid starts at the
    first other row; a sheet with no such row keeps every row in its grid.
    """
    first_col = min(c for _, c in used)
    by_row: dict[int, set[_Coord]] = {}
    for r, c in used:
        by_row.setdefault(r, set()).add(origins.get((r, c), (r, c)))
    titles: list[str] = []
    for r in range(min(by_row), max(by_row) + 1):
        cells = by_row.get(r)
        if cells is None:
            continue
        if len(cells) != 1:
            return titles, r
        (origin,) = cells
        value = sheet.cell(*origin).value
        if origin[1] != first_col or not isinstance(value, str):
            return titles, r
        titles.append(" ".join(value.split()))
    return [], min(by_row)


def _cells(sheet: Any) -> Iterator[tuple[_Coord, Any]]:
    for row in sheet.iter_rows():
        for cell in row:
            yield (cell.row, cell.column), cell


def _has_content(cell: Any) -> bool:
    value = cell.value
    return value is not None and not (isinstance(value, str) and not value.strip())


def _merge_origins(sheet: Any) -> dict[_Coord, _Coord]:
    """Every cell of a merged range -> the range's top-left cell, which holds the content."""
    origins: dict[_Coord, _Coord] = {}
    for merged in sheet.merged_cells.ranges:
        origin = (merged.min_row, merged.min_col)
        for coord in merged.cells:
            origins[coord] = origin
    return origins


def _cell(sheet: _Sheet, coord: _Coord, origins: dict[_Coord, _Coord], i: int, j: int) -> Cell:
    source = sheet.sheet.cell(*origins.get(coord, coord))
    text, value = _render(source.value, source.number_format)
    return Cell(
        row=i,
        col=j,
        text=text,
        value=value,
        number_format=source.number_format or "",
        ref=f"{get_column_letter(coord[1])}{coord[0]}",
        merged=coord in origins,
        hidden=sheet.hidden.hides(coord),
    )


def _render(raw: object, number_format: str) -> tuple[str, float | None]:
    """The cell's displayed text and, for a number, its value."""
    if raw is None:
        return "", None
    if isinstance(raw, bool):
        return ("TRUE" if raw else "FALSE"), None
    if isinstance(raw, int | float):
        return render_number(raw, number_format or "General"), float(raw)
    if isinstance(raw, dt.datetime):
        return (raw.date().isoformat() if raw.time() == dt.time() else raw.isoformat(" ")), None
    if isinstance(raw, dt.date | dt.time):
        return raw.isoformat(), None
    if isinstance(raw, str):
        return raw.strip(), None
    return str(raw), None  # a duration (timedelta) or another type openpyxl may add
