from __future__ import annotations

from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE

from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, Table
from ragspine.ingestion.readers.docx_reader import DocxReader


@pytest.fixture(scope="module")
def memo(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    document = docx.Document()
    document.add_paragraph("Prepared for the board.")
    document.add_heading("Revenue 收入", level=1)
    document.add_paragraph("Hong Kong revenue grew 10%.")
    document.add_paragraph("")  # empty paragraphs are not counted
    document.add_paragraph("单位：百万美元")
    document.add_paragraph("表1：分地区收入")
    table = document.add_table(rows=3, cols=3)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "地区"
    table.cell(0, 1).merge(table.cell(0, 2)).text = "Fiscal year"
    for c, text in ((1, "FY2023"), (2, "FY2024")):
        table.cell(1, c).text = text
    for c, text in enumerate(["香港", "1,200", "1,320"]):
        table.cell(2, c).text = text

    chinese_heading = document.styles.add_style("标题 1", WD_STYLE_TYPE.PARAGRAPH)
    document.add_paragraph("展望", style=chinese_heading)
    document.add_paragraph("Demand should stay firm.")
    outline = document.add_paragraph("Risks")  # a Normal paragraph promoted by outline level
    outline._p.get_or_add_pPr().get_or_add_outlineLvl().val = 1
    document.add_paragraph("Rates may rise.")
    second = document.add_table(rows=1, cols=2)
    second.cell(0, 0).text = "Rate"
    second.cell(0, 1).text = "5%"

    path = tmp_path_factory.mktemp("docx") / "board_memo.docx"
    document.save(str(path))
    return DocxReader().read(path)


def test_headings_start_numbered_sections(memo: ExtractedDocument) -> None:
    assert [(b.locator, b.kind, b.text, b.title) for b in memo.blocks] == [
        ("section=0,para=1", "paragraph", "Prepared for the board.", ""),
        ("section=1,heading", "heading", "Revenue 收入", "Revenue 收入"),
        ("section=1,para=1", "paragraph", "Hong Kong revenue grew 10%.", "Revenue 收入"),
        ("section=1,para=2", "paragraph", "单位：百万美元", "Revenue 收入"),
        ("section=1,para=3", "paragraph", "表1：分地区收入", "Revenue 收入"),
        ("section=2,heading", "heading", "展望", "展望"),
        ("section=2,para=1", "paragraph", "Demand should stay firm.", "展望"),
        ("section=3,heading", "heading", "Risks", "Risks"),
        ("section=3,para=1", "paragraph", "Rates may rise.", "Risks"),
    ]
    assert memo.title == "Revenue 收入"


def _cells(table: Table) -> list[list[tuple[str, bool]]]:
    return [[(c.text, c.merged) for c in row] for row in table.cells]


def test_table_keeps_merged_cells_and_its_caption(memo: ExtractedDocument) -> None:
    table = memo.tables[0]
    assert (table.locator_prefix, table.locator_style) == ("table=1", LocatorStyle.GRID)
    assert _cells(table) == [
        [("地区", True), ("Fiscal year", True), ("Fiscal year", True)],
        [("地区", True), ("FY2023", False), ("FY2024", False)],
        [("香港", False), ("1,200", False), ("1,320", False)],
    ]
    assert table.title == "表1：分地区收入"
    assert table.context == ("单位：百万美元", "Hong Kong revenue grew 10%.", "Revenue 收入")


def test_table_without_caption_is_named_by_its_heading(memo: ExtractedDocument) -> None:
    table = memo.tables[1]
    assert table.locator_prefix == "table=2"
    # "Risks" (outline level 2) sits under "展望" (标题 1): the enclosing heading comes last.
    assert (table.title, table.context) == ("Risks", ("Rates may rise.", "展望"))
    assert _cells(table) == [[("Rate", False), ("5%", False)]]


def test_core_title_wins_over_first_heading(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "FY2024 Board Memo"
    document.add_heading("Summary", level=1)
    path = tmp_path / "titled.docx"
    document.save(str(path))
    assert DocxReader().read(path).title == "FY2024 Board Memo"
