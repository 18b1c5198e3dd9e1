from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook

from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, ReaderIssue, Table
from ragspine.ingestion.readers.xlsx_reader import XlsxReader


def _set_cached_value(path: Path, sheet_xml: str, ref: str, value: str) -> None:
    """Store the value Excel would have computed for the formula in ``ref`` (openpyxl cannot)."""
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    xml = parts[sheet_xml].decode("utf-8")
    xml, found = re.subn(
        rf'(<c r="{ref}"[^>]*>\s*<f>[^<]*</f>\s*)<v\s*/?>(</v>)?', rf"\g<1><v>{value}</v>", xml
    )
    assert found == 1, xml
    parts[sheet_xml] = xml.encode("utf-8")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


@pytest.fixture(scope="module")
def workbook(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    path = tmp_path_factory.mktemp("xlsx") / "ACME_segments.xlsx"
    book = Workbook()
    hk = book.active
    assert hk is not None
    hk.title = "HK"
    # The table starts at B2: column A and row 1 are empty and must be trimmed away, as must
    # a formatted but empty cell far to the bottom right.
    hk["B2"] = "US$m"
    hk["C2"] = "Fiscal year"
    hk.merge_cells("C2:D2")
    hk["B3"], hk["C3"], hk["D3"] = "Metric", "FY2023", "FY2024"
    hk["B4"], hk["C4"], hk["D4"] = "REVENUE", 1200, "=C4*1.1"
    hk["C4"].number_format = "#,##0"
    hk["D4"].number_format = "#,##0"
    hk["B5"], hk["C5"], hk["D5"] = "MARGIN", 0.552, 0.6
    hk["C5"].number_format = hk["D5"].number_format = "0.0%"
    hk["B6"], hk["C6"], hk["D6"] = "CASH", 1320.5, -75
    hk["C6"].number_format = hk["D6"].number_format = '"$"#,##0.00;("$"#,##0.00)'
    hk["B7"], hk["C7"] = "Closed", dt.datetime(2024, 12, 31)
    hk["H20"].number_format = "0.0"

    cn = book.create_sheet("中国内地")
    cn["A1"], cn["B1"] = "收入", 900
    cn["C1"] = "=B1*2"  # no cached value: saved by openpyxl, never opened in Excel

    book.create_sheet("Empty")
    book.save(path)
    _set_cached_value(path, "xl/worksheets/sheet1.xml", "D4", "1320")
    return XlsxReader().read(path)


def _texts(table: Table) -> list[list[str]]:
    return [[c.text for c in row] for row in table.cells]


def test_each_non_empty_sheet_is_one_table(workbook: ExtractedDocument) -> None:
    assert [(t.locator_prefix, t.title, t.locator_style) for t in workbook.tables] == [
        ("sheet=HK", "HK", LocatorStyle.CELL),
        ("sheet=中国内地", "中国内地", LocatorStyle.CELL),
    ]
    assert workbook.blocks == []


def test_used_range_is_trimmed_but_keeps_sheet_addresses(workbook: ExtractedDocument) -> None:
    hk = workbook.tables[0]
    assert (hk.n_rows, hk.n_cols) == (6, 3)
    assert [[c.ref for c in row] for row in hk.cells][:2] == [
        ["B2", "C2", "D2"],
        ["B3", "C3", "D3"],
    ]
    assert hk.cells[2][2].ref == "D4"
    assert (hk.cells[2][2].row, hk.cells[2][2].col) == (2, 2)


def test_cells_show_formatted_text_and_carry_the_number(workbook: ExtractedDocument) -> None:
    assert _texts(workbook.tables[0]) == [
        ["US$m", "Fiscal year", "Fiscal year"],
        ["Metric", "FY2023", "FY2024"],
        ["REVENUE", "1,200", "1,320"],
        ["MARGIN", "55.2%", "60.0%"],
        ["CASH", "$1,320.50", "($75.00)"],
        ["Closed", "2024-12-31", ""],
    ]
    margin = workbook.tables[0].cells[3][1]
    assert (margin.value, margin.number_format) == (0.552, "0.0%")
    cash = workbook.tables[0].cells[4][2]
    assert cash.value == -75.0
    assert workbook.tables[0].cells[0][0].value is None


def test_computed_value_is_read_not_the_formula(workbook: ExtractedDocument) -> None:
    revenue = workbook.tables[0].cells[2][2]
    assert (revenue.text, revenue.value) == ("1,320", 1320.0)


def test_merged_range_fills_every_cell(workbook: ExtractedDocument) -> None:
    header = workbook.tables[0].cells[0]
    assert [(c.ref, c.text, c.merged) for c in header] == [
        ("B2", "US$m", False),
        ("C2", "Fiscal year", True),
        ("D2", "Fiscal year", True),
    ]


def test_formula_without_cached_value_is_blank_and_reported(workbook: ExtractedDocument) -> None:
    cn = workbook.tables[1]
    assert _texts(cn) == [["收入", "900", ""]]
    assert cn.cells[0][2].value is None
    assert workbook.issues == [
        ReaderIssue("sheet=中国内地,cell=C1", "formula without a computed value")
    ]
