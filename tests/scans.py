"""Scanned PDF pages for the OCR tests and benchmark, made the way a scanner makes them.

A page is drawn with reportlab, rendered to pixels with pdfium, and that picture alone is
wrapped into a new PDF: no text layer survives. Chinese is drawn in reportlab's built-in CID
font, which the PDF does not embed; pdfium draws it with a system CJK font (Debian's
fonts-wqy-microhei, which `make test` installs).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_raw
from PIL import Image, ImageFilter
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

CJK_FONT = "STSong-Light"
SYSTEM_CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
SCAN_DPI = 200
EN_TITLE = "ACME HK key figures (US$m)"
EN_ROWS = [
    ["Metric", "FY2023", "FY2024"],
    ["Revenue", "1,200", "1,320"],
    ["Operating profit", "300", "350.5"],
    ["New business value", "85.2", "92.1"],
]
EN_PROSE = "Revenue grew strongly in the year as Hong Kong demand recovered."
ZH_TITLE = "香港业务主要数据（百万美元）"
ZH_ROWS = [
    ["指标", "2023年", "2024年"],
    ["营业收入", "1,180", "1,265"],
    ["营运利润", "298", "341"],
    ["新业务价值", "76.4", "88.9"],
]
ZH_PROSE = "香港业务收入增长主要来自保险产品的强劲需求，营运利润亦同步上升。"

Draw = Callable[[Canvas], None]


def ruled_table(canvas: Canvas, rows: list[list[str]], top: float, font: str = "Helvetica") -> None:
    """A ruled table: labels left-aligned, numbers right-aligned, like an annual report's."""
    edges = [60.0, 220.0, 320.0, 420.0]
    height = 20.0
    for r, row in enumerate(rows):
        bottom = top - (r + 1) * height
        for c, text in enumerate(row):
            canvas.rect(edges[c], bottom, edges[c + 1] - edges[c], height)
            canvas.setFont(font, 10)
            if c == 0:
                canvas.drawString(edges[c] + 4, bottom + 6, text)
            else:
                canvas.drawRightString(edges[c + 1] - 4, bottom + 6, text)


def english_page(canvas: Canvas) -> None:
    canvas.setFont("Helvetica", 11)
    canvas.drawString(60, 780, EN_TITLE)
    ruled_table(canvas, EN_ROWS, 760)
    canvas.setFont("Helvetica", 11)
    canvas.drawString(60, 650, EN_PROSE)


def chinese_page(canvas: Canvas) -> None:
    canvas.setFont(CJK_FONT, 12)
    canvas.drawString(60, 780, ZH_TITLE)
    ruled_table(canvas, ZH_ROWS, 760, font=CJK_FONT)
    canvas.setFont(CJK_FONT, 12)
    canvas.drawString(60, 650, ZH_PROSE)


def rendered(draw: Draw) -> Image.Image:
    """The page drawn by ``draw``, in grey, as a scanner would see it."""
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    draw(canvas)
    canvas.save()
    # Without this pdfium draws no glyph for a CID font the file does not embed.
    pdfium_raw.FPDF_SetSystemFontInfo(pdfium_raw.FPDF_GetDefaultSystemFontInfo())
    page = pdfium.PdfDocument(buffer.getvalue())[0]
    picture: Image.Image = page.render(scale=SCAN_DPI / 72).to_pil().convert("L")
    return picture


def write_scan(path: Path, draw: Draw, *, blur: float = 0.0, typed_header: str = "") -> Path:
    """A one-page PDF holding only the picture of the drawn page (plus a typed header line)."""
    picture = rendered(draw)
    if blur:
        picture = picture.filter(ImageFilter.GaussianBlur(blur))
    width, height = A4
    canvas = Canvas(str(path), pagesize=A4)
    if typed_header:
        # The scan leaves the top strip free for a header typed onto the page afterwards.
        strip = 40.0
        body = picture.crop((0, round(picture.height * strip / height), *picture.size))
        canvas.drawImage(ImageReader(body), 0, 0, width, height - strip)
        canvas.setFont("Helvetica", 9)
        canvas.drawString(60, height - 25, typed_header)
    else:
        canvas.drawImage(ImageReader(picture), 0, 0, width, height)
    canvas.save()
    return path
