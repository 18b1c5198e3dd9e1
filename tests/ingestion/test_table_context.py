"""Tables read their context: title lines above a sheet's grid, the headings above a Markdown
table, units named in a row's own label, and headers naming the year relative to the document."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from ragspine.ingestion.labels import read_label
from ragspine.ingestion.model import Cell, ExtractedDocument, LocatorStyle, Table
from ragspine.ingestion.readers.text_reader import TextReader
from ragspine.ingestion.readers.xlsx_reader import XlsxReader
from ragspine.ingestion.tables import ReviewReason, TableMapping, map_table
from ragspine.profile.glossary import Glossary
from tests.profiles import acme_glossary

Fact = tuple[str, str, str, float, str]  # metric, entity, period label, value, unit

YEARS = ("FY2022", "FY2023", "FY2024", "FY2025")
SUMMARY_ROWS = (
    ("Revenue", "REVENUE", (2100, 2250, 2480, 2710)),
    ("Operating profit", "OPERATING_PROFIT", (610, 655, 702, 760)),
    ("Net profit", "NET_PROFIT", (420, 455, 501, 547)),
)


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return acme_glossary()


def facts(mapped: TableMapping) -> set[Fact]:
    return {(f.metric_code, f.entity, f.period.label, f.value, f.unit) for f in mapped.facts}


def summary_facts(entity: str) -> set[Fact]:
    return {
        (code, entity, year, float(value), "USD_M")
        for _, code, values in SUMMARY_ROWS
        for year, value in zip(YEARS, values, strict=True)
    }


def write_summary(path: Path, sheet_name: str, titles: tuple[str, ...], *, merge: bool) -> None:
    """A five-year summary: title lines in column A, then the grid of metrics by year."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = sheet_name
    for r, text in enumerate(titles, start=1):
        sheet.cell(row=r, column=1, value=text)
        if merge:
            sheet.merge_cells(start_row=r, start_column=1, end_row=r, end_column=len(YEARS) + 1)
    top = len(titles) + 2  # one blank row between the titles and the grid
    for c, year in enumerate(("Metric", *YEARS), start=1):
        sheet.cell(row=top, column=c, value=year)
    for r, (label, _, values) in enumerate(SUMMARY_ROWS, start=top + 1):
        sheet.cell(row=r, column=1, value=label)
        for c, value in enumerate(values, start=2):
            sheet.cell(row=r, column=c, value=value).number_format = "#,##0"
    book.save(path)


def read_only_table(path: Path) -> tuple[ExtractedDocument, Table]:
    document = XlsxReader().read(path)
    assert len(document.tables) == 1
    return document, document.tables[0]


# --------------------------------------------------------------------------- xlsx title lines


@pytest.mark.parametrize("sheet_name", ["Summary", "5yr"])
@pytest.mark.parametrize("merge", [False, True])
def test_entity_and_unit_come_from_the_title_lines_not_the_sheet_name(
    tmp_path: Path, glossary: Glossary, sheet_name: str, merge: bool
) -> None:
    path = tmp_path / "five_year.xlsx"
    write_summary(path, sheet_name, ("ACME Hong Kong — five-year summary", "USD m"), merge=merge)
    _, table = read_only_table(path)
    assert (table.title, table.context) == (
        "USD m",
        ("ACME Hong Kong — five-year summary", sheet_name),
    )
    # The grid starts at its header row and keeps the sheet's addresses.
    assert [c.text for c in table.cells[0]] == ["Metric", *YEARS]
    assert table.cells[1][1].ref == "B5"
    mapped = map_table(table, glossary, "five_year")
    assert facts(mapped) == summary_facts("ACME_HK")
    assert len(mapped.facts) == 12
    assert mapped.review == []
    assert {f.locator for f in mapped.facts} >= {f"sheet={sheet_name},cell=B5"}


def test_the_nearest_title_line_names_the_entity(tmp_path: Path, glossary: Glossary) -> None:
    path = tmp_path / "nested.xlsx"
    write_summary(path, "Sheet1", ("ACME Group annual review", "Macau"), merge=False)
    _, table = read_only_table(path)
    assert facts(map_table(table, glossary)) == summary_facts("ACME_MO")


def test_an_ambiguous_title_line_goes_to_review(tmp_path: Path, glossary: Glossary) -> None:
    path = tmp_path / "ambiguous.xlsx"
    write_summary(path, "HK", ("Hong Kong and Macau compared",), merge=False)
    _, table = read_only_table(path)
    mapped = map_table(table, glossary)
    # The title line is nearer than the sheet name: it is not skipped for the clearer "HK".
    assert mapped.facts == []
    assert [(r.reason, r.locator) for r in mapped.review] == [
        (ReviewReason.AMBIGUOUS_ENTITY, "sheet=HK")
    ]


def test_a_sheet_without_title_lines_is_named_by_its_sheet(tmp_path: Path) -> None:
    path = tmp_path / "plain.xlsx"
    write_summary(path, "Macau", (), merge=False)
    _, table = read_only_table(path)
    assert (table.title, table.context) == ("Macau", ())
    assert table.cells[0][0].ref == "A2"


def test_a_sheet_of_text_lines_only_stays_one_grid(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Notes"
    sheet["A1"], sheet["A2"] = "First note", "Second note"
    book.save(tmp_path / "notes.xlsx")
    _, table = read_only_table(tmp_path / "notes.xlsx")
    assert [[c.text for c in row] for row in table.cells] == [["First note"], ["Second note"]]
    assert (table.title, table.context) == ("Notes", ())


# --------------------------------------------------------------------------- xlsx formulas


def test_formula_cells_match_openpyxl_reading_the_formulas(tmp_path: Path) -> None:
    """One load of computed values; formulas found in the sheet parts agree with openpyxl."""
    path = tmp_path / "formulas.xlsx"
    book = Workbook()
    first = book.active
    assert first is not None
    first.title = "Data"
    first["A1"], first["B1"], first["C1"] = "Revenue", 100, "=B1*2"
    first["A2"], first["B2"], first["C2"] = "Profit", 40, "=SUM(B1:B2)"
    first["A3"], first["B3"] = "Margin", "=B2/B1"
    second = book.create_sheet("Other")
    second["A1"], second["B1"] = "Revenue", 7
    book.save(path)
    document = XlsxReader().read(path)
    with_formulas = load_workbook(path)
    expected = sorted(
        f"sheet={sheet.title},cell={cell.coordinate}"
        for sheet in with_formulas.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.data_type == "f"
    )
    # openpyxl saves no computed values, so every formula lacks one.
    assert sorted(issue.locator for issue in document.issues) == expected
    assert expected == ["sheet=Data,cell=B3", "sheet=Data,cell=C1", "sheet=Data,cell=C2"]
    assert {issue.reason for issue in document.issues} == {"formula without a computed value"}


# --------------------------------------------------------------------------- markdown headings


def test_a_markdown_table_takes_its_enclosing_headings_as_context(
    tmp_path: Path, glossary: Glossary
) -> None:
    path = tmp_path / "review.md"
    path.write_text(
        "# Annual review\n\n## 澳门\n\n### Key figures (US$m)\n\n"
        "| Metric | FY2024 | FY2025 |\n| --- | --- | --- |\n| Revenue | 300 | 2050 |\n\n"
        "## 香港\n\n| Metric | FY2025 |\n| --- | --- |\n| Revenue (US$m) | 2,710 |\n",
        encoding="utf-8",
    )
    document = TextReader().read(path)
    macau, hong_kong = document.tables
    assert (macau.title, macau.context) == ("Key figures (US$m)", ("澳门", "Annual review"))
    assert (hong_kong.title, hong_kong.context) == ("香港", ("Annual review",))
    assert facts(map_table(macau, glossary, document.title)) == {
        ("REVENUE", "ACME_MO", "FY2024", 300.0, "USD_M"),
        ("REVENUE", "ACME_MO", "FY2025", 2050.0, "USD_M"),
    }
    assert facts(map_table(hong_kong, glossary, document.title)) == {
        ("REVENUE", "ACME_HK", "FY2025", 2710.0, "USD_M")
    }


# --------------------------------------------------------------------------- row-level units


def grid_table(rows: list[list[str]], title: str, context: tuple[str, ...] = ()) -> Table:
    cells = tuple(
        tuple(Cell(r, c, text) for c, text in enumerate(row)) for r, row in enumerate(rows)
    )
    return Table(cells, "table=1", LocatorStyle.GRID, title, context)


@pytest.mark.parametrize(
    ("label", "shown", "expected"),
    [
        ("ROE (%)", "15.2", (15.2, "PCT")),
        ("NBV margin %", "55.5", (55.5, "PCT")),
        ("Revenue (USD m)", "2,710", (2710.0, "USD_M")),
        ("收入（百万美元）", "2,710", (2710.0, "USD_M")),
        ("收入（人民币亿元）", "27.1", (2710.0, "CNY_M")),
        ("Revenue", "2.71", (2710.0, "USD_M")),  # no row unit: the title's US$bn applies
    ],
)
def test_a_unit_in_the_row_label_overrides_the_tables(
    glossary: Glossary, label: str, shown: str, expected: tuple[float, str]
) -> None:
    table = grid_table([["", "FY2025"], [label, shown]], "Hong Kong (US$bn)", ("单位：千美元",))
    mapped = map_table(table, glossary)
    assert [(f.value, f.unit) for f in mapped.facts] == [expected]


def test_a_spreadsheet_percent_in_a_percent_row_is_not_scaled_twice(glossary: Glossary) -> None:
    cells = (
        (Cell(0, 0, "Metric"), Cell(0, 1, "FY2025"), Cell(0, 2, "FY2024")),
        (
            Cell(1, 0, "ROE (%)"),
            Cell(1, 1, "15.2%", 0.152, "0.0%", "B2"),
            Cell(1, 2, "15.2", 15.2, "0.0", "C2"),
        ),
    )
    table = Table(cells, "sheet=HK", LocatorStyle.CELL, "HK (US$m)")
    assert [(f.value, f.unit) for f in map_table(table, glossary).facts] == [
        (15.2, "PCT"),
        (15.2, "PCT"),
    ]


# --------------------------------------------------------------------------- relative headers


@pytest.mark.parametrize(
    ("headers", "title", "doc_title", "expected"),
    [
        (("本年", "上年"), "香港 2025年 主要数据", "", ("FY2025", "FY2024")),
        (("本期", "上年同期"), "香港 2025年上半年", "", ("2025H1", "2024H1")),
        (("Current year", "Prior year"), "Hong Kong", "Annual report FY2025", ("FY2025", "FY2024")),
        (("This year", "Last year"), "Hong Kong", "2025Q3 update", ("2025Q3", "2024Q3")),
        (("CY", "PY"), "Hong Kong FY2025 (US$m)", "", ("FY2025", "FY2024")),
        (("今年", "去年"), "香港", "2024年年报", ("FY2024", "FY2023")),
    ],
)
def test_relative_headers_resolve_against_the_documents_period(
    glossary: Glossary,
    headers: tuple[str, str],
    title: str,
    doc_title: str,
    expected: tuple[str, str],
) -> None:
    table = grid_table([["Metric", *headers], ["Revenue (US$m)", "2,710", "2,480"]], title)
    mapped = map_table(table, glossary, doc_title)
    assert mapped.review == []
    assert {(f.period.label, f.value) for f in mapped.facts} == {
        (expected[0], 2710.0),
        (expected[1], 2480.0),
    }


def test_the_nearest_period_anchors_relative_headers(glossary: Glossary) -> None:
    table = grid_table(
        [["Metric", "PY"], ["Revenue (US$m)", "2,480"]], "Hong Kong", ("Results for FY2025",)
    )
    mapped = map_table(table, glossary, "Five-year review FY2021")
    assert [f.period.label for f in mapped.facts] == ["FY2024"]


def test_relative_headers_without_a_document_period_go_to_review(glossary: Glossary) -> None:
    table = grid_table([["Metric", "本年", "上年"], ["Revenue (US$m)", "2,710", "2,480"]], "香港")
    mapped = map_table(table, glossary, "Results")
    assert mapped.facts == []
    [item] = mapped.review
    assert (item.reason, item.locator) == (ReviewReason.MISSING_PERIOD, "table=1")
    assert "relative" in item.detail and "'本年'" in item.detail


def test_relative_header_labels_are_fully_explained(glossary: Glossary) -> None:
    reading = read_label("上年同期", glossary)
    assert (reading.covered, reading.relative_years, reading.periods) == (True, (-1,), ())
    assert read_label("Prior year (US$m)", glossary).relative_years == (-1,)
    assert not read_label("去年上半年", glossary).covered  # a relative half is not resolved


# --------------------------------------------------------------------------- year-like values


def test_year_like_values_in_body_cells_are_values(glossary: Glossary) -> None:
    table = grid_table(
        [
            ["Metric", "2024", "2025"],
            ["Revenue (US$m)", "2050", "2010"],
            ["Agent count", "1999", "2,024"],
        ],
        "Hong Kong",
    )
    mapped = map_table(table, glossary)
    assert mapped.review == []
    assert {(f.metric_code, f.period.label, f.value, f.locator) for f in mapped.facts} == {
        ("REVENUE", "FY2024", 2050.0, "table=1,row=2,col=2"),
        ("REVENUE", "FY2025", 2010.0, "table=1,row=2,col=3"),
        ("AGENT_COUNT", "FY2024", 1999.0, "table=1,row=3,col=2"),
        ("AGENT_COUNT", "FY2025", 2024.0, "table=1,row=3,col=3"),
    }


def test_a_column_of_year_like_values_under_a_period_is_values(glossary: Glossary) -> None:
    table = grid_table(
        [["Metric", "FY2025"], ["Revenue (US$m)", "2050"], ["NBV (US$m)", "2020"]], "HK"
    )
    assert {(f.metric_code, f.value) for f in map_table(table, glossary).facts} == {
        ("REVENUE", 2050.0),
        ("NBV", 2020.0),
    }


def test_years_labelling_the_rows_of_a_transposed_table_stay_headers(glossary: Glossary) -> None:
    table = grid_table(
        [
            ["Year", "Revenue (US$m)", "Agent count"],
            ["2024", "2048", "2030"],
            ["2025", "900", "2100"],
        ],
        "Macau",
    )
    assert {(f.metric_code, f.period.label, f.value) for f in map_table(table, glossary).facts} == {
        ("REVENUE", "FY2024", 2048.0),
        ("AGENT_COUNT", "FY2024", 2030.0),
        ("REVENUE", "FY2025", 900.0),
        ("AGENT_COUNT", "FY2025", 2100.0),
    }


def test_a_second_header_row_with_a_metric_corner_stays_a_header(glossary: Glossary) -> None:
    table = grid_table(
        [["", "2025", "2025"], ["Revenue", "H1", "H2"], ["Hong Kong", "1,300", "1,410"]],
        "Revenue by region (US$m)",
    )
    mapped = map_table(table, glossary)
    assert mapped.review == []
    assert {(f.entity, f.period.label, f.value) for f in mapped.facts} == {
        ("ACME_HK", "2025H1", 1300.0),
        ("ACME_HK", "2025H2", 1410.0),
    }
