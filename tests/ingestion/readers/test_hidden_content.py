"""Hidden sheets, rows, columns, slides and text: skipped and counted by default, read on request.

Every file is built here with the format's own library; the expected grids, texts and counts
are written out by hand from what each file holds.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import docx
from docx.enum.style import WD_STYLE_TYPE
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.ingestion.model import ExtractedDocument, Table
from ragspine.ingestion.readers import read_document

runner = CliRunner(env={"COLUMNS": "250"})


def grid(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.cells]


# --------------------------------------------------------------------------- xlsx


def write_workbook(path: Path) -> None:
    """A visible "HK" sheet hiding row 5 and columns D:E (one <col min=4 max=5> element), and
    a hidden "Draft" sheet stating another revenue figure."""
    book = Workbook()
    hk = book.active
    assert hk is not None
    hk.title = "HK"
    hk["A1"] = "Hong Kong (US$m)"
    rows = [
        ("Metric", "FY2024", "FY2025", "FY2026", "FY2027"),
        ("Revenue", 2480, 2710, 3000, 3300),
        ("Operating profit", 702, 760, 800, 850),
        ("Net profit", 501, 547, 580, 600),
    ]
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            hk.cell(row=r, column=c, value=value)
    hk.row_dimensions[5].hidden = True
    hk.column_dimensions.group("D", "E", hidden=True)
    draft = book.create_sheet("Draft")
    draft["A1"] = "Hong Kong (US$m)"
    draft["A3"], draft["B3"] = "Metric", "FY2025"
    draft["A4"], draft["B4"] = "Revenue", 9999
    draft.sheet_state = "hidden"
    book.save(path)


# Hidden in "HK": D3:E6 (8 cells) and A5:C5 (3 more); in "Draft": A1, A3, B3, A4, B4.
HIDDEN_CELLS = 8 + 3 + 5


def test_hidden_sheets_rows_and_columns_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    document = read_document(path)
    assert [t.locator_prefix for t in document.tables] == ["sheet=HK"]
    (table,) = document.tables
    assert table.title == "Hong Kong (US$m)"
    assert grid(table) == [
        ["Metric", "FY2024", "FY2025"],
        ["Revenue", "2480", "2710"],
        ["Net profit", "501", "547"],
    ]
    # Cells keep the sheet's own addresses across the hidden row.
    assert [cell.ref for cell in table.cells[2]] == ["A6", "B6", "C6"]
    assert document.hidden == HIDDEN_CELLS


def test_include_hidden_reads_every_sheet_row_and_column(tmp_path: Path) -> None:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    document = read_document(path, include_hidden=True)
    assert [t.locator_prefix for t in document.tables] == ["sheet=HK", "sheet=Draft"]
    assert grid(document.tables[0])[2] == ["Operating profit", "702", "760", "800", "850"]
    assert grid(document.tables[1]) == [["Metric", "FY2025"], ["Revenue", "9999"]]
    assert document.hidden == 0
    # What the workbook hides is read marked hidden: row 5, columns D:E, all of "Draft".
    hk, draft = document.tables
    marked = {cell.ref for row in hk.cells for cell in row if cell.hidden}
    assert marked == {"A5", "B5", "C5"} | {f"{c}{r}" for c in "DE" for r in range(3, 7)}
    assert all(cell.hidden for row in draft.cells for cell in row)


def test_a_very_hidden_sheet_is_skipped_too(tmp_path: Path) -> None:
    path = tmp_path / "very.xlsx"
    book = Workbook()
    shown = book.active
    assert shown is not None
    shown["A1"], shown["B1"] = "Revenue", 1
    secret = book.create_sheet("Secret")
    secret["A1"], secret["B1"] = "Revenue", 2
    secret.sheet_state = "veryHidden"
    book.save(path)
    document = read_document(path)
    assert len(document.tables) == 1
    assert document.hidden == 2


def test_a_merged_header_over_a_hidden_column_still_shows(tmp_path: Path) -> None:
    path = tmp_path / "merged.xlsx"
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["B1"] = "FY2025"
    sheet.merge_cells("B1:C1")
    sheet["A2"], sheet["B2"], sheet["C2"] = "Revenue", 1, 2
    sheet.column_dimensions["B"].hidden = True
    book.save(path)
    document = read_document(path)
    assert grid(document.tables[0]) == [["", "FY2025"], ["Revenue", "2"]]
    assert document.hidden == 1  # B2; B1 is the merge's origin, shown at C1


# --------------------------------------------------------------------------- pptx


def write_deck(path: Path) -> None:
    deck = Presentation()
    layout = deck.slide_layouts[5]  # title only
    for number, title in enumerate(("Results", "Draft numbers", "Outlook"), start=1):
        slide = deck.slides.add_slide(layout)
        assert slide.shapes.title is not None
        slide.shapes.title.text = title
        if number == 2:
            shape = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1))
            cells = shape.table
            cells.cell(0, 1).text = "FY2025"
            cells.cell(1, 0).text = "Revenue"
            cells.cell(1, 1).text = "9,999"
            slide._element.set("show", "0")
    deck.save(str(path))


def test_a_hidden_slide_is_skipped_and_the_others_keep_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "deck.pptx"
    write_deck(path)
    document = read_document(path)
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("slide=1,title", "Results"),
        ("slide=3,title", "Outlook"),
    ]
    assert document.tables == []
    assert document.hidden == 1
    everything = read_document(path, include_hidden=True)
    assert [b.locator for b in everything.blocks] == [
        "slide=1,title",
        "slide=2,title",
        "slide=3,title",
    ]
    assert [t.locator_prefix for t in everything.tables] == ["slide=2,table=1"]
    assert all(cell.hidden for row in everything.tables[0].cells for cell in row)
    assert everything.hidden == 0


# --------------------------------------------------------------------------- docx


def write_memo(path: Path) -> None:
    memo = docx.Document()
    paragraph = memo.add_paragraph("Revenue was 2,710. ")
    paragraph.add_run("Draft figure 9,999.").font.hidden = True
    secret = memo.styles.add_style("Secret", WD_STYLE_TYPE.CHARACTER)
    secret.font.hidden = True
    second = memo.add_paragraph("Outlook is stable.")
    second.add_run(" Board only.", style="Secret")
    shown = memo.add_paragraph("")
    shown.add_run("Hidden style switched off.", style="Secret").font.hidden = False
    table = memo.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Revenue"
    table.cell(0, 1).paragraphs[0].add_run("2,710")
    table.cell(0, 1).paragraphs[0].add_run("9,999").font.hidden = True
    table.cell(1, 0).text = "Net profit"
    table.cell(1, 1).paragraphs[0].add_run("8,888").font.hidden = True
    memo.save(str(path))


def texts(document: ExtractedDocument) -> list[str]:
    return [b.text for b in document.blocks]


def test_hidden_text_in_a_word_document_is_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "memo.docx"
    write_memo(path)
    document = read_document(path)
    assert texts(document) == [
        "Revenue was 2,710.",
        "Outlook is stable.",
        "Hidden style switched off.",
    ]
    assert grid(document.tables[0]) == [["Revenue", "2,710"], ["Net profit", ""]]
    # The direct run, the styled run and the two table cells' runs.
    assert document.hidden == 4
    everything = read_document(path, include_hidden=True)
    assert texts(everything) == [
        "Revenue was 2,710. Draft figure 9,999.",
        "Outlook is stable. Board only.",
        "Hidden style switched off.",
    ]
    # A cell showing text keeps only it (the hidden "9,999" would run into "2,710"); a cell
    # whose text is all hidden is read, marked hidden.
    assert grid(everything.tables[0]) == [["Revenue", "2,710"], ["Net profit", "8,888"]]
    assert [[c.hidden for c in row] for row in everything.tables[0].cells] == [
        [False, False],
        [False, True],
    ]
    assert everything.hidden == 0


# --------------------------------------------------------------------------- end to end


def facts(ws: Path) -> set[tuple[str, str, str, float, str]]:
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        rows = conn.execute(
            "SELECT metric_code, entity, period, value, review_status FROM fact_metric"
        )
        return {(str(m), str(e), str(p), float(v), str(s)) for m, e, p, v, s in rows}


def test_ingest_skips_hidden_content_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    ws = tmp_path / "ws"
    result = runner.invoke(app, ["ingest", str(path), "--workspace", str(ws)])
    assert result.exit_code == 0, result.output
    assert f"hk.xlsx: {HIDDEN_CELLS} hidden cells skipped" in result.output
    assert "--include-hidden" in result.output
    # The visible figures are approved facts; neither the hidden draft nor the hidden row,
    # columns or sheet states anything, so nothing is held as a conflict.
    assert facts(ws) == {
        ("REVENUE", "ACME_HK", "2024", 2480.0, "approved"),
        ("REVENUE", "ACME_HK", "2025", 2710.0, "approved"),
        ("NET_PROFIT", "ACME_HK", "2024", 501.0, "approved"),
        ("NET_PROFIT", "ACME_HK", "2025", 547.0, "approved"),
    }
    listed = runner.invoke(app, ["documents", "list", "--workspace", str(ws)])
    assert listed.exit_code == 0, listed.output
    assert f"hk.xlsx: {HIDDEN_CELLS} hidden cells skipped" in listed.output
    as_json = runner.invoke(app, ["documents", "list", "--workspace", str(ws), "--json"])
    assert f'"hidden": {HIDDEN_CELLS}' in as_json.output

    # Asked to include hidden content, the unchanged file is read again (not skipped).
    again = runner.invoke(app, ["ingest", str(path), "--workspace", str(ws), "--include-hidden"])
    assert again.exit_code == 0, again.output
    assert "hidden cells skipped" not in again.output
    values = {(m, p, v) for m, _, p, v, _ in facts(ws)}
    assert ("OPERATING_PROFIT", "2025", 760.0) in values
    assert ("REVENUE", "2026", 3000.0) in values
