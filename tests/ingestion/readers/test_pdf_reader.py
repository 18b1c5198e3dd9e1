from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, TableStyle
from reportlab.platypus import Table as PdfTable
from reportlab.platypus.flowables import Flowable

from ragspine.errors import IngestError
from ragspine.ingestion.model import ExtractedDocument, LocatorStyle
from ragspine.ingestion.readers.pdf_reader import PdfReader

CJK_FONT = "STSong-Light"
REVENUE_PROSE = "Revenue grew strongly in the year as Hong Kong demand recovered. " * 3
MARGIN_PROSE = "Margins widened on lower funding costs and a better product mix. " * 2
CJK_PROSE = "香港业务收入增长主要来自保险产品的强劲需求，营运利润亦同步上升。" * 3


def _ruled(rows: list[list[str]], font: str = "Helvetica", spans: bool = False) -> PdfTable:
    table = PdfTable(rows)
    style = [("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("FONTNAME", (0, 0), (-1, -1), font)]
    if spans:
        style.append(("SPAN", (1, 0), (2, 0)))
    table.setStyle(TableStyle(style))
    return table


class _Picture(Flowable):
    """An image with no text at all: what a scanned page looks like to a PDF reader."""

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return 200, 100

    def draw(self) -> None:
        picture = Image.new("RGB", (200, 100), "white")
        self.canv.drawImage(ImageReader(picture), 0, 0, 200, 100)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    cjk_body = ParagraphStyle("cjk", parent=body, fontName=CJK_FONT, wordWrap="CJK")
    cjk_heading = ParagraphStyle("cjkh", parent=styles["Heading1"], fontName=CJK_FONT)
    story = [
        Paragraph("Annual Review", styles["Heading1"]),
        Paragraph(REVENUE_PROSE, body),
        Paragraph(MARGIN_PROSE, body),
        Paragraph("Table 1: Key figures (US$m)", body),
        _ruled(
            [
                ["Metric", "Fiscal year", ""],
                ["", "FY2023", "FY2024"],
                ["Revenue", "1,200", "1,320"],
                ["Operating profit", "300", "350"],
            ],
            spans=True,
        ),
        Paragraph("Source: management accounts", body),
        PageBreak(),
        Paragraph("香港业务回顾", cjk_heading),
        Paragraph(CJK_PROSE, cjk_body),
        Spacer(1, 12),
        Paragraph("单位：百万美元", cjk_body),
        _ruled([["指标", "2024年"], ["营业收入", "1,320"]], font=CJK_FONT),
        PageBreak(),
        _Picture(),
    ]
    path = tmp_path_factory.mktemp("pdf") / "ACME_annual_report.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return PdfReader().read(path)


def _page(document: ExtractedDocument, page: int) -> list[tuple[str, str, str]]:
    prefix = f"page={page},"
    return [(b.locator, b.text, b.title) for b in document.blocks if b.locator.startswith(prefix)]


def test_prose_becomes_numbered_paragraphs_without_table_text(report: ExtractedDocument) -> None:
    heading = "Annual Review"
    assert _page(report, 1) == [
        ("page=1,para=1", heading, heading),
        ("page=1,para=2", REVENUE_PROSE.strip(), heading),
        ("page=1,para=3", MARGIN_PROSE.strip(), heading),
        ("page=1,para=4", "Table 1: Key figures (US$m)", heading),
        ("page=1,para=5", "Source: management accounts", heading),
    ]
    assert all(b.kind == "paragraph" for b in report.blocks)


def test_ruled_table_is_a_grid_with_merged_cells_expanded(report: ExtractedDocument) -> None:
    table = report.tables[0]
    assert (table.locator_prefix, table.locator_style) == ("page=1,table=1", LocatorStyle.GRID)
    assert [[c.text for c in row] for row in table.cells] == [
        ["Metric", "Fiscal year", "Fiscal year"],
        ["", "FY2023", "FY2024"],
        ["Revenue", "1,200", "1,320"],
        ["Operating profit", "300", "350"],
    ]
    assert [c.merged for c in table.cells[0]] == [False, True, True]
    assert not any(c.merged for row in table.cells[1:] for c in row)


def test_table_title_is_the_caption_and_context_the_nearby_text(report: ExtractedDocument) -> None:
    table = report.tables[0]
    assert table.title == "Table 1: Key figures (US$m)"
    assert table.context[0] == "Source: management accounts"
    assert "Annual Review" in table.context


def test_chinese_cid_font_text_extracts_as_unicode(report: ExtractedDocument) -> None:
    heading = "香港业务回顾"
    assert _page(report, 2) == [
        ("page=2,para=1", heading, heading),
        ("page=2,para=2", CJK_PROSE, heading),
        ("page=2,para=3", "单位：百万美元", heading),
    ]
    table = report.tables[1]
    assert table.locator_prefix == "page=2,table=1"
    assert [[c.text for c in row] for row in table.cells] == [
        ["指标", "2024年"],
        ["营业收入", "1,320"],
    ]
    assert (table.title, table.context[0]) == ("单位：百万美元", CJK_PROSE)


def test_image_only_page_needs_ocr(report: ExtractedDocument) -> None:
    # A blank picture: OCR finds no text on it, or (without the ocr extra) the reason says how
    # to enable OCR; either way the page stays flagged (tests/ingestion/test_ocr.py).
    [issue] = report.issues
    assert issue.locator == "page=3"
    assert issue.reason.startswith("needs OCR: page has no text layer")
    assert _page(report, 3) == []


def test_document_title_falls_back_to_the_first_heading(report: ExtractedDocument) -> None:
    assert report.title == "Annual Review"


def test_password_protected_pdf_is_an_ingest_error(tmp_path: Path) -> None:
    path = tmp_path / "board_minutes.pdf"
    pdf = canvas.Canvas(str(path), encrypt="secret")
    pdf.drawString(72, 750, "Confidential")
    pdf.save()
    with pytest.raises(IngestError, match=r"board_minutes\.pdf: encrypted PDF"):
        PdfReader().read(path)


def test_boxed_text_stays_prose_and_blank_pages_are_silent(tmp_path: Path) -> None:
    path = tmp_path / "boxed.pdf"
    pdf = canvas.Canvas(str(path))
    pdf.rect(60, 700, 300, 40)  # a ruled box around a call-out is layout, not a table
    pdf.drawString(72, 715, "Call-out: revenue up 10%")
    pdf.showPage()
    pdf.showPage()  # an empty page: nothing to read, nothing to report
    pdf.save()
    document = PdfReader().read(path)
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("page=1,para=1", "Call-out: revenue up 10%")
    ]
    assert (document.tables, document.issues) == ([], [])
