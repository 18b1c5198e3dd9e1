"""The xlsx corpus document: a workbook of one table per sheet, written by openpyxl."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ragspine.demo.corpus_model import STYLE_CELL, PlacedTable, Skip, TableSpec, Val
from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes


@dataclass(frozen=True)
class SheetSpec:
    """One sheet: its name and its table; ``title_lines`` are written in column A above the
    grid (A1 first), where a finance team puts the entity and the unit."""

    name: str
    table: TableSpec
    title_lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkbookSpec:
    sheets: tuple[SheetSpec, ...]

    def placed_tables(self) -> list[PlacedTable]:
        return [
            PlacedTable(s.table, f"sheet={s.name}", STYLE_CELL, len(s.title_lines))
            for s in self.sheets
        ]

    def all_text(self) -> str:
        lines = [line for s in self.sheets for line in s.title_lines]
        lines += [" ".join(r) for s in self.sheets for r in s.table.grid_text()]
        return "\n".join(lines)


def write_xlsx(path: Path, workbook_spec: WorkbookSpec) -> None:
    from openpyxl import Workbook
    from openpyxl.writer.excel import ExcelWriter

    workbook = Workbook()
    workbook.remove(workbook.active)
    props = workbook.properties
    props.creator = AUTHOR
    props.lastModifiedBy = AUTHOR
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    for sheet_spec in workbook_spec.sheets:
        sheet = workbook.create_sheet(sheet_spec.name)
        table = sheet_spec.table
        for r, line in enumerate(sheet_spec.title_lines, start=1):
            sheet.cell(row=r, column=1, value=line)
        top = len(sheet_spec.title_lines)
        for r, header_row in enumerate(table.header, start=top + 1):
            for c, text in enumerate(header_row, start=1):
                if text:
                    sheet.cell(row=r, column=c, value=text)
        first = top + len(table.header) + 1
        for i, row in enumerate(table.rows):
            r = first + i
            for c, label in enumerate(row.labels, start=1):
                sheet.cell(row=r, column=c, value=label)
            for j, spec in enumerate(row.cells):
                c = table.n_label_cols + j + 1
                if isinstance(spec, Val):
                    if spec.percent:
                        target = sheet.cell(row=r, column=c, value=round(spec.shown / 100, 10))
                        target.number_format = "0.0%"
                    else:
                        shown = float(spec.shown)
                        stored = int(shown) if shown.is_integer() else shown
                        target = sheet.cell(row=r, column=c, value=stored)
                        target.number_format = row.xlsx_format
                elif isinstance(spec, Skip):
                    if spec.text:
                        sheet.cell(row=r, column=c, value=spec.text)
                else:
                    sheet.cell(row=r, column=c, value=spec.text)
        for r0, c0, r1, c1 in table.merges:
            sheet.merge_cells(
                start_row=top + r0 + 1,
                start_column=c0 + 1,
                end_row=top + r1 + 1,
                end_column=c1 + 1,
            )
        sheet.column_dimensions["A"].width = 30
    buffer = io.BytesIO()
    # ExcelWriter directly: openpyxl's save() would stamp "modified" with the current time.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(workbook, archive).write_data()
    write_bytes(path, frozen_zip(buffer.getvalue()))
