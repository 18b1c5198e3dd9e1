"""Read an Excel workbook: each worksheet's used range becomes one table of computed values."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from ragspine.ingestion.model import Cell, ExtractedDocument, LocatorStyle, ReaderIssue, Table
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.number_format import render_number

# (row, column), both 1-based as in the sheet.
_Coord = tuple[int, int]

_MISSING_VALUE = "formula without a computed value"


class XlsxReader:
    """One ``Table`` per non-empty worksheet (``sheet=<title>``, CELL style); no text blocks."""

    suffixes: tuple[str, ...] = (".xlsx", ".xlsm")

    def read(self, path: Path) -> ExtractedDocument:
        with bad_file_errors(path, "Excel workbook", InvalidFileException, SyntaxError):
            # data_only: the values Excel computed and cached, not the formulas' text.
            workbook = load_workbook(path, data_only=True, keep_links=False)
            formulas = _formula_cells(path)
            document = ExtractedDocument(path=path, title=workbook.properties.title or "")
            for sheet in workbook.worksheets:
                _read_sheet(sheet, formulas.get(sheet.title, set()), document)
            return document


def _formula_cells(path: Path) -> dict[str, set[_Coord]]:
    """Where each sheet holds a formula: the computed-values pass cannot tell them from blanks."""
    workbook = load_workbook(path, read_only=True, data_only=False, keep_links=False)
    try:
        return {
            sheet.title: {
                (cell.row, cell.column)
                for row in sheet.iter_rows()
                for cell in row
                if cell.data_type == "f"
            }
            for sheet in workbook.worksheets
            if hasattr(sheet, "iter_rows")  # chartsheets have no cells
        }
    finally:
        workbook.close()


def _read_sheet(sheet: Any, formulas: set[_Coord], document: ExtractedDocument) -> None:
    if not hasattr(sheet, "iter_rows"):
        return
    origins = _merge_origins(sheet)
    missing = {coord for coord in formulas if sheet.cell(*coord).value is None}
    filled = {coord for coord, cell in _cells(sheet) if _has_content(cell)}
    filled |= {coord for coord, origin in origins.items() if origin in filled}
    used = filled | missing
    if not used:
        return
    rows = range(min(r for r, _ in used), max(r for r, _ in used) + 1)
    cols = range(min(c for _, c in used), max(c for _, c in used) + 1)
    grid = tuple(
        tuple(_cell(sheet, (r, c), origins, i, j) for j, c in enumerate(cols))
        for i, r in enumerate(rows)
    )
    prefix = f"sheet={sheet.title}"
    document.tables.append(Table(grid, prefix, LocatorStyle.CELL, title=sheet.title))
    for r, c in sorted(missing):
        ref = f"{get_column_letter(c)}{r}"
        document.issues.append(ReaderIssue(f"{prefix},cell={ref}", _MISSING_VALUE))


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


def _cell(sheet: Any, coord: _Coord, origins: dict[_Coord, _Coord], i: int, j: int) -> Cell:
    source = sheet.cell(*origins.get(coord, coord))
    text, value = _render(source.value, source.number_format)
    return Cell(
        row=i,
        col=j,
        text=text,
        value=value,
        number_format=source.number_format or "",
        ref=f"{get_column_letter(coord[1])}{coord[0]}",
        merged=coord in origins,
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
