"""The pdf corpus document: pages of text (in one or two columns), tables with or without ruling
lines and scanned images, drawn by reportlab.

PDFs are written with reportlab's ``invariant`` mode, so the same spec always yields the same
bytes.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragspine.demo.corpus_model import STYLE_GRID, PlacedTable, TableSpec
from ragspine.demo.corpus_writers.frozen import AUTHOR, write_bytes


@dataclass(frozen=True)
class PdfText:
    text: str
    size: float = 10.0
    bold: bool = False
    cjk: bool = False
    gap_after: float = 6.0


@dataclass(frozen=True)
class PdfTable:
    table: TableSpec
    col_widths: tuple[float, ...]
    ruled: bool = True  # False: the cells are only aligned, no line is drawn


@dataclass(frozen=True)
class PdfColumns:
    """Two columns of paragraphs side by side, read left column first."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    size: float = 10.0


@dataclass(frozen=True)
class PdfImage:
    """A full-page scanned picture: no text layer at all."""


@dataclass(frozen=True)
class PdfScan:
    """A full-page picture of a printed title and table: no text layer, only OCR can read it."""

    table: TableSpec


PdfItem = PdfText | PdfTable | PdfColumns | PdfImage | PdfScan


@dataclass(frozen=True)
class PdfSpec:
    title: str
    pages: tuple[tuple[PdfItem, ...], ...]

    def placed_tables(self, ocr: bool = False) -> list[PlacedTable]:
        """The tables a reader finds; a scanned table only when OCR reads it (``ocr``)."""
        placed: list[PlacedTable] = []
        for p, items in enumerate(self.pages, start=1):
            tables = [i for i in items if isinstance(i, PdfTable)]
            for t, item in enumerate(tables, start=1):
                placed.append(PlacedTable(item.table, f"page={p},table={t}", STYLE_GRID))
            scans = [i for i in items if isinstance(i, PdfScan)]
            if ocr and scans:
                prefix = f"page={p},extraction=ocr,table=1"
                placed.append(PlacedTable(scans[0].table, prefix, STYLE_GRID))
        return placed

    def unread_pages(self, ocr: bool = False) -> list[int]:
        """Pages that stay ``needs_ocr``: a picture holding no text, or a scan without OCR."""
        return [
            p
            for p, items in enumerate(self.pages, start=1)
            if any(isinstance(i, PdfImage) or (isinstance(i, PdfScan) and not ocr) for i in items)
        ]

    def all_text(self) -> str:
        parts: list[str] = []
        for items in self.pages:
            for item in items:
                if isinstance(item, PdfText):
                    parts.append(item.text)
                elif isinstance(item, PdfColumns):
                    parts += [*item.left, *item.right]
                elif isinstance(item, PdfTable | PdfScan):
                    if isinstance(item, PdfScan):
                        parts.append(item.table.title)
                    parts += [" ".join(r) for r in item.table.grid_text()]
        return "\n".join(parts)

    def page_text(self, page: int) -> str:
        parts: list[str] = []
        for item in self.pages[page - 1]:
            if isinstance(item, PdfText):
                parts.append(item.text)
            elif isinstance(item, PdfColumns):
                parts += [*item.left, *item.right]
        return "\n".join(parts)


_CJK_FONT = "STSong-Light"
_PAGE_MARGIN = 56.0


def _register_cjk_font() -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    if _CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))


def _wrap(text: str, size: float, width: float, cjk: bool) -> Iterator[str]:
    if cjk:
        per_line = max(1, int(width // size))
        for start in range(0, len(text), per_line):
            yield text[start : start + per_line]
    else:
        yield from textwrap.wrap(text, width=max(20, int(width / (size * 0.5))))


def write_pdf(path: Path, spec: PdfSpec) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    _register_cjk_font()
    width, height = A4
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    canvas.setTitle(spec.title)
    canvas.setAuthor(AUTHOR)
    canvas.setCreator(AUTHOR)
    usable = width - 2 * _PAGE_MARGIN
    for items in spec.pages:
        y = height - _PAGE_MARGIN
        for item in items:
            if isinstance(item, PdfText):
                font = _CJK_FONT if item.cjk else ("Helvetica-Bold" if item.bold else "Helvetica")
                canvas.setFont(font, item.size)
                for line in _wrap(item.text, item.size, usable, item.cjk):
                    y -= item.size * 1.35
                    canvas.drawString(_PAGE_MARGIN, y, line)
                y -= item.gap_after
            elif isinstance(item, PdfTable):
                y = _draw_table(canvas, item, y)
            elif isinstance(item, PdfColumns):
                y = _draw_columns(canvas, item, y, usable)
            else:
                image = _scan_image() if isinstance(item, PdfImage) else _table_scan(item.table)
                picture = ImageReader(image)
                canvas.drawImage(
                    picture, _PAGE_MARGIN, _PAGE_MARGIN, usable, height - 2 * _PAGE_MARGIN
                )
        canvas.showPage()
    canvas.save()
    write_bytes(path, buffer.getvalue())


def _draw_table(draw: Any, item: PdfTable, top: float) -> float:
    """A ruled table has every cell boxed, so a line-based table finder sees the grid; an
    unruled one is only text in aligned columns."""
    grid = item.table.grid_text()
    row_height = 18.0
    y = top - 4.0
    xs = [_PAGE_MARGIN]
    for w in item.col_widths:
        xs.append(xs[-1] + w)
    draw.setLineWidth(0.8)
    for r, cells in enumerate(grid):
        y_bottom = y - row_height
        for c, text in enumerate(cells):
            if item.ruled:
                draw.rect(xs[c], y_bottom, xs[c + 1] - xs[c], row_height)
            if text:
                draw.setFont("Helvetica-Bold" if r == 0 else "Helvetica", 9)
                if c == 0:
                    draw.drawString(xs[c] + 4, y_bottom + 5.5, text)
                else:
                    draw.drawRightString(xs[c + 1] - 4, y_bottom + 5.5, text)
        y = y_bottom
    return y - 14.0


def _scan_image() -> Any:
    """A grey 'scanned page': text-like bars and a stamp, drawn deterministically."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (420, 594), 238)
    draw = ImageDraw.Draw(image)
    for line in range(24):
        top = 60 + line * 20
        length = 300 - (line * 37) % 120
        draw.rectangle((40, top, 40 + length, top + 7), fill=90)
    draw.ellipse((300, 480, 380, 560), outline=60, width=4)
    return image


def _draw_columns(draw: Any, item: PdfColumns, top: float, usable: float) -> float:
    """Two columns with a gutter between them; returns the bottom of the longer one."""
    gutter = 24.0
    width = (usable - gutter) / 2
    bottoms = []
    for x, paragraphs in ((_PAGE_MARGIN, item.left), (_PAGE_MARGIN + width + gutter, item.right)):
        y = top
        draw.setFont("Helvetica", item.size)
        for paragraph in paragraphs:
            for line in _wrap(paragraph, item.size, width, cjk=False):
                y -= item.size * 1.35
                draw.drawString(x, y, line)
            y -= 6.0
        bottoms.append(y)
    return min(bottoms) - 6.0


_SCAN_SIZE = (1240, 1754)  # A4 at 150 dpi


def _table_scan(table: TableSpec) -> Any:
    """A clean grey-scale picture of a printed table under its title, as a scanner sees it.

    Drawn with Pillow's built-in scalable font at a size OCR reads reliably; labels are
    left-aligned and numbers right-aligned in ruled cells, like an annual report's.
    """
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", _SCAN_SIZE, 250)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=30)
    draw.text((120, 150), table.title, fill=20, font=font)
    edges = [120, 620, 860, 1100]
    height = 60
    for r, cells in enumerate(table.grid_text()):
        top = 230 + r * height
        for c, text in enumerate(cells):
            draw.rectangle((edges[c], top, edges[c + 1], top + height), outline=40, width=2)
            if not text:
                continue
            if c == 0:
                draw.text((edges[c] + 12, top + 14), text, fill=20, font=font)
            else:
                right = edges[c + 1] - 12
                draw.text((right, top + 14), text, fill=20, font=font, anchor="ra")
    return image
