from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.shapes.shapetree import GroupShapes, SlideShapes
from pptx.util import Inches

from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, ReaderIssue
from ragspine.ingestion.readers.pptx_reader import PptxReader

TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 1, 5, 6


def _text_box(
    shapes: SlideShapes | GroupShapes, text: str, left: float, top: float, width: float = 3.0
) -> None:
    shapes.add_textbox(Inches(left), Inches(top), Inches(width), Inches(0.4)).text_frame.text = text


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    path = tmp_path_factory.mktemp("pptx") / "ACME_FY2024_Review.pptx"
    prs = Presentation()

    # Slide 1: title, a table with merged headers, a unit note above it, a group, notes.
    # Shapes are added out of reading order on purpose.
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "ACME FY2024 Review 收入概览"
    _text_box(slide.shapes, "Confidential", 0.5, 6.8)
    group = slide.shapes.add_group_shape()
    _text_box(group.shapes, "Group B text", 4.0, 5.0)
    _text_box(group.shapes, "Group A text", 0.5, 5.0)
    table = slide.shapes.add_table(3, 3, Inches(0.5), Inches(1.8), Inches(6), Inches(1.5)).table
    table.cell(0, 0).merge(table.cell(1, 0))
    table.cell(0, 1).merge(table.cell(0, 2))
    table.cell(0, 0).text = "Metric"
    table.cell(0, 1).text = "Fiscal year"
    for c, text in enumerate(["", "FY2023", "FY2024"]):
        if text:
            table.cell(1, c).text = text
    for c, text in enumerate(["REVENUE", "1,200", "1,320"]):
        table.cell(2, c).text = text
    _text_box(slide.shapes, "单位：百万美元", 0.5, 1.3)
    slide.notes_slide.notes_text_frame.text = "Revenue grew 10% on HK demand.\nSay it slowly."

    # Slide 2: two tables, the lower one added first; a chart.
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Segments"
    for top, label in ((4.5, "lower"), (1.5, "upper")):
        grid = slide.shapes.add_table(1, 2, Inches(0.5), Inches(top), Inches(4), Inches(0.5))
        grid.table.cell(0, 0).text = label
        grid.table.cell(0, 1).text = "1"
    chart_data = CategoryChartData()
    chart_data.categories = ["FY2023", "FY2024"]
    chart_data.add_series("Revenue", (1200, 1320))
    slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(5), Inches(1), Inches(4), Inches(3), chart_data
    )

    # Slide 3: a scanned page pasted as a picture.
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    image = tmp_path_factory.mktemp("img") / "scan.png"
    Image.new("RGB", (40, 20), "white").save(image)
    slide.shapes.add_picture(str(image), Inches(1), Inches(1))

    prs.save(path)
    return PptxReader().read(path)


def test_blocks_carry_slide_locators_and_titles(deck: ExtractedDocument) -> None:
    title = "ACME FY2024 Review 收入概览"
    assert [(b.locator, b.kind, b.title) for b in deck.blocks] == [
        ("slide=1,title", "title", title),
        ("slide=1,body", "body", title),
        ("slide=1,notes", "notes", title),
        ("slide=2,title", "title", "Segments"),
    ]
    assert deck.blocks[0].text == title
    assert deck.title == title


def test_body_is_in_reading_order_with_groups_opened(deck: ExtractedDocument) -> None:
    body = deck.blocks[1].text
    assert body.splitlines() == ["单位：百万美元", "Group A text", "Group B text", "Confidential"]


def test_speaker_notes_keep_their_paragraphs(deck: ExtractedDocument) -> None:
    assert deck.blocks[2].text == "Revenue grew 10% on HK demand.\nSay it slowly."


def test_table_has_semantic_prefix_title_and_nearest_context_first(
    deck: ExtractedDocument,
) -> None:
    table = deck.tables[0]
    assert table.locator_prefix == "slide=1,table=1"
    assert table.locator_style is LocatorStyle.SEMANTIC
    assert table.title == "ACME FY2024 Review 收入概览"
    assert table.context == ("单位：百万美元", "Group A text", "Group B text", "Confidential")


def test_merged_cells_repeat_the_origin_text(deck: ExtractedDocument) -> None:
    table = deck.tables[0]
    rows = [[(c.text, c.merged) for c in row] for row in table.cells]
    assert rows == [
        [("Metric", True), ("Fiscal year", True), ("Fiscal year", True)],
        [("Metric", True), ("FY2023", False), ("FY2024", False)],
        [("REVENUE", False), ("1,200", False), ("1,320", False)],
    ]
    assert (table.cells[2][2].row, table.cells[2][2].col) == (2, 2)
    assert table.cells[2][2].value is None  # a slide stores text, not numbers


def test_tables_are_numbered_per_slide_top_to_bottom(deck: ExtractedDocument) -> None:
    second = [(t.locator_prefix, t.cells[0][0].text) for t in deck.tables[1:3]]
    assert second == [("slide=2,table=1", "upper"), ("slide=2,table=2", "lower")]


def test_charts_become_tables_and_picture_only_slides_are_reported(
    deck: ExtractedDocument,
) -> None:
    chart = deck.tables[3]  # charts follow the slide's tables; tests/ingestion/test_pptx_charts.py
    assert (chart.locator_prefix, chart.locator_style) == ("slide=2,chart=1", LocatorStyle.CHART)
    assert [[c.text for c in row] for row in chart.cells] == [
        ["", "FY2023", "FY2024"],
        ["Revenue", "1200", "1320"],
    ]
    assert deck.issues == [ReaderIssue("slide=3", "needs OCR: slide has pictures but no text")]


def test_untitled_slide_has_empty_titles(tmp_path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    _text_box(slide.shapes, "Only a note", 1, 1)
    path = tmp_path / "untitled.pptx"
    prs.save(path)
    document = PptxReader().read(path)
    assert [(b.locator, b.text, b.title) for b in document.blocks] == [
        ("slide=1,body", "Only a note", "")
    ]


def test_a_placeholder_is_placed_where_its_layout_and_master_put_it(tmp_path: Path) -> None:
    # python-pptx's default "Title and Content" layout sets no position for its content
    # placeholder, and neither does a slide's copy of it: the master's box holds it,
    # 0.5 in from the left, 1.75 in from the top, 9 in wide and about 4.95 in high.
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_CONTENT])
    slide.shapes.title.text = "Placeholders"
    slide.placeholders[1].text_frame.text = "Body placeholder text"
    _text_box(slide.shapes, "Below the body", 5.0, 6.8)
    _text_box(slide.shapes, "Above the body", 0.1, 1.0)
    # The table: 0.3 in below the body's box, 0.5 in left of "Below the body", about 1.5 in
    # from "Beside the table" and 5.6 in below "Above the body".
    table = slide.shapes.add_table(1, 2, Inches(0.5), Inches(7.0), Inches(4), Inches(0.4)).table
    table.cell(0, 0).text = "REVENUE"
    _text_box(slide.shapes, "Beside the table", 6.0, 7.6)
    path = tmp_path / "placeholders.pptx"
    prs.save(path)
    document = PptxReader().read(path)
    body = next(b for b in document.blocks if b.kind == "body")
    assert body.text.splitlines() == [
        "Above the body",
        "Body placeholder text",
        "Below the body",
        "Beside the table",
    ]
    assert document.tables[0].context == (
        "Body placeholder text",
        "Below the body",
        "Beside the table",
        "Above the body",
    )
