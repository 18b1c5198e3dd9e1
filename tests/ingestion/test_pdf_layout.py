"""PDF page layout: tables drawn without ruling lines, and pages set in two columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    FrameBreak,
    PageBreak,
    PageTemplate,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)
from reportlab.platypus import Table as PdfTable

from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, Table
from ragspine.ingestion.readers.pdf_reader import PdfReader
from ragspine.ingestion.tables import map_table
from tests.profiles import acme_glossary

CJK_FONT = "STSong-Light"
NUMBERS_PROSE = "Revenue was 2,480 in 2024 and 2,710 in 2025 as Hong Kong demand recovered. " * 3
OUTLOOK_PROSE = "We expect growth of 8% to 10% next year, with 120 new agents and 35 branches. " * 3
LEFT_1 = "Hong Kong revenue rose as agency sales recovered and bank partners returned. " * 3
LEFT_2 = "Operating costs were held flat while the product mix moved to protection. " * 3
RIGHT_CJK = "澳门业务收入增长主要来自保险产品的强劲需求，营运利润亦同步上升。" * 3
RIGHT_2 = "Macau grew more slowly, held back by fewer mainland visitors early on. " * 3


def _styles() -> tuple[ParagraphStyle, ParagraphStyle, ParagraphStyle]:
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    styles = getSampleStyleSheet()
    cjk = ParagraphStyle("cjk", parent=styles["BodyText"], fontName=CJK_FONT, wordWrap="CJK")
    return styles["Heading1"], styles["BodyText"], cjk


def _unruled(rows: list[list[str]], font: str = "Helvetica", span: bool = False) -> PdfTable:
    """A table as many reports set it: no lines at all, figures right-aligned."""
    table = PdfTable(rows)
    style = [("FONTNAME", (0, 0), (-1, -1), font), ("ALIGN", (1, 0), (-1, -1), "RIGHT")]
    if span:
        style += [("SPAN", (1, 0), (2, 0)), ("ALIGN", (1, 0), (2, 0), "CENTER")]
    table.setStyle(TableStyle(style))
    return table


def _ruled(rows: list[list[str]]) -> PdfTable:
    table = PdfTable(rows)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    return table


def _grid(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.cells]


def _page(document: ExtractedDocument, page: int) -> list[tuple[str, str]]:
    prefix = f"page={page},"
    return [(b.locator, b.text) for b in document.blocks if b.locator.startswith(prefix)]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    heading, body, cjk = _styles()
    story = [
        Paragraph("ACME Hong Kong results", heading),
        Paragraph(NUMBERS_PROSE, body),
        Paragraph("Table 1: Key figures", body),
        _unruled(
            [
                ["", "US$m", ""],
                ["", "FY2024", "FY2025"],
                ["Revenue", "2,480", "2,710"],
                ["Operating profit", "410", "455"],
            ],
            span=True,
        ),
        Paragraph("Source: management accounts", body),
        Spacer(1, 12),
        Paragraph("单位：百万美元", cjk),
        _unruled(
            [
                ["指标", "2024年", "2025年"],
                ["营业收入", "1,320", "1,450"],
                ["营运利润", "300", "350"],
            ],
            font=CJK_FONT,
        ),
        PageBreak(),
        Paragraph("Outlook", heading),
        Paragraph(OUTLOOK_PROSE, body),
        Spacer(1, 12),
        # Label and value pairs: one column of numbers is a list, not a table.
        _unruled([["Revenue growth", "9.3%"], ["Operating margin", "16.8%"]]),
        Spacer(1, 12),
        Paragraph(OUTLOOK_PROSE, body),
        PageBreak(),
        Paragraph("Segments", heading),
        _ruled([["Segment", "FY2025"], ["Life", "1,900"]]),
        Spacer(1, 24),
        _unruled(
            [["Channel", "FY2024", "FY2025"], ["Agency", "1,100", "1,250"], ["Bank", "700", "760"]]
        ),
    ]
    path = tmp_path_factory.mktemp("pdf") / "ACME_HK_results.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return PdfReader().read(path)


def test_table_without_rules_is_a_grid_with_its_spanning_header(report: ExtractedDocument) -> None:
    table = report.tables[0]
    assert (table.locator_prefix, table.locator_style) == ("page=1,table=1", LocatorStyle.GRID)
    assert _grid(table) == [
        ["", "US$m", "US$m"],
        ["", "FY2024", "FY2025"],
        ["Revenue", "2,480", "2,710"],
        ["Operating profit", "410", "455"],
    ]
    assert [c.merged for c in table.cells[0]] == [False, True, True]
    assert not any(c.merged for row in table.cells[1:] for c in row)


def test_table_without_rules_keeps_its_caption_and_context(report: ExtractedDocument) -> None:
    table = report.tables[0]
    assert table.title == "Table 1: Key figures"
    assert table.context[0] == "Source: management accounts"
    assert "ACME Hong Kong results" in table.context


def test_its_numbers_become_facts_with_cell_locators(report: ExtractedDocument) -> None:
    mapped = map_table(report.tables[0], acme_glossary(), report.title)
    facts = {
        (f.metric_code, f.entity, f.period.label, f.value, f.unit, f.locator) for f in mapped.facts
    }
    assert facts == {
        ("REVENUE", "ACME_HK", "FY2024", 2480.0, "USD_M", "page=1,table=1,row=3,col=2"),
        ("REVENUE", "ACME_HK", "FY2025", 2710.0, "USD_M", "page=1,table=1,row=3,col=3"),
        ("OPERATING_PROFIT", "ACME_HK", "FY2024", 410.0, "USD_M", "page=1,table=1,row=4,col=2"),
        ("OPERATING_PROFIT", "ACME_HK", "FY2025", 455.0, "USD_M", "page=1,table=1,row=4,col=3"),
    }
    assert mapped.review == []


def test_chinese_table_without_rules_is_read(report: ExtractedDocument) -> None:
    table = report.tables[1]
    assert table.locator_prefix == "page=1,table=2"
    assert _grid(table) == [
        ["指标", "2024年", "2025年"],
        ["营业收入", "1,320", "1,450"],
        ["营运利润", "300", "350"],
    ]
    assert table.title == "单位：百万美元"


def test_table_text_is_not_repeated_as_prose(report: ExtractedDocument) -> None:
    assert _page(report, 1) == [
        ("page=1,para=1", "ACME Hong Kong results"),
        ("page=1,para=2", NUMBERS_PROSE.strip()),
        ("page=1,para=3", "Table 1: Key figures"),
        ("page=1,para=4", "Source: management accounts"),
        ("page=1,para=5", "单位：百万美元"),
    ]


def test_prose_and_a_single_column_of_figures_are_not_tables(report: ExtractedDocument) -> None:
    assert [t.locator_prefix for t in report.tables if t.locator_prefix.startswith("page=2,")] == []
    assert _page(report, 2) == [
        ("page=2,para=1", "Outlook"),
        ("page=2,para=2", OUTLOOK_PROSE.strip()),
        ("page=2,para=3", "Revenue growth 9.3%"),
        ("page=2,para=4", "Operating margin 16.8%"),
        ("page=2,para=5", OUTLOOK_PROSE.strip()),
    ]


def test_ruled_and_unruled_tables_are_numbered_top_to_bottom(report: ExtractedDocument) -> None:
    tables = [t for t in report.tables if t.locator_prefix.startswith("page=3,")]
    assert [(t.locator_prefix, _grid(t)) for t in tables] == [
        ("page=3,table=1", [["Segment", "FY2025"], ["Life", "1,900"]]),
        (
            "page=3,table=2",
            [["Channel", "FY2024", "FY2025"], ["Agency", "1,100", "1,250"], ["Bank", "700", "760"]],
        ),
    ]
    assert _page(report, 3) == [("page=3,para=1", "Segments")]


def _two_columns(path: Path) -> None:
    heading, body, cjk = _styles()
    width, height = A4
    margin, gutter = 56.0, 24.0
    column = (width - 2 * margin - gutter) / 2
    below_title = height - 2 * margin - 40
    frames = [
        Frame(margin, height - margin - 40, width - 2 * margin, 40, id="title"),
        Frame(margin, margin, column, below_title, id="left"),
        Frame(margin + column + gutter, margin, column, below_title, id="right"),
    ]
    document = BaseDocTemplate(str(path), pagesize=A4, pageTemplates=[PageTemplate(frames=frames)])
    document.build(
        [
            Paragraph("Regional review", heading),
            FrameBreak(),
            Paragraph(LEFT_1, body),
            Paragraph(LEFT_2, body),
            FrameBreak(),
            Paragraph(RIGHT_CJK, cjk),
            Paragraph(RIGHT_2, body),
        ]
    )


def test_two_column_page_is_read_column_by_column(tmp_path: Path) -> None:
    path = tmp_path / "review.pdf"
    _two_columns(path)
    document = PdfReader().read(path)
    assert [(b.locator, b.text, b.title) for b in document.blocks] == [
        ("page=1,para=1", "Regional review", "Regional review"),
        ("page=1,para=2", LEFT_1.strip(), "Regional review"),
        ("page=1,para=3", LEFT_2.strip(), "Regional review"),
        ("page=1,para=4", RIGHT_CJK, "Regional review"),
        ("page=1,para=5", RIGHT_2.strip(), "Regional review"),
    ]
    assert document.tables == []


def test_labels_with_values_far_right_are_not_read_as_two_columns(tmp_path: Path) -> None:
    # Every row has a wide gap down the middle, but the right "column" is only figures: the
    # page is one column, and each value must stay next to its label.
    path = tmp_path / "highlights.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont("Helvetica", 10)
    rows = [("Revenue growth", "9.3%"), ("Operating margin", "16.8%"), ("Agents", "12,400")]
    rows += [("Branches", "35"), ("Claims ratio", "61.0%"), ("Solvency ratio", "240%")]
    for n, (label, value) in enumerate(rows):
        pdf.drawString(56, 760 - 14 * n, label)
        pdf.drawRightString(530, 760 - 14 * n, value)
    pdf.save()
    document = PdfReader().read(path)
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("page=1,para=1", " ".join(f"{label} {value}" for label, value in rows))
    ]
    assert document.tables == []
