"""One small table written as each format writes it: lines above it, then its grid.

Each writer is the format's own library, so a test can put the same table in a workbook, a
Word report, a slide, a PDF page and a Markdown memo and expect the same facts from each. The
first line is the table's title (a heading, a slide title, a workbook's A1); the others are
the lines between it and the table (a unit line, a caption).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import docx
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches

Grid = tuple[tuple[str, ...], ...]
Writer = Callable[[Path, tuple[str, ...], Grid], None]


def write_xlsx(path: Path, lines: tuple[str, ...], grid: Grid) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Table"
    for r, line in enumerate(lines, start=1):
        sheet.cell(row=r, column=1, value=line)
    first = len(lines) + 2  # one blank line between the lines and the grid
    for r, row in enumerate(grid, start=first):
        for c, text in enumerate(row, start=1):
            if text:
                sheet.cell(row=r, column=c, value=text)
    book.save(path)


def write_docx(path: Path, lines: tuple[str, ...], grid: Grid) -> None:
    document = docx.Document()
    document.add_heading(lines[0], level=1)
    for line in lines[1:]:
        document.add_paragraph(line)
    table = document.add_table(rows=len(grid), cols=len(grid[0]))
    for r, row in enumerate(grid):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(path))


def write_pptx(path: Path, lines: tuple[str, ...], grid: Grid) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = lines[0]
    for i, line in enumerate(lines[1:]):
        box = slide.shapes.add_textbox(Inches(0.5), Inches(1.2 + 0.4 * i), Inches(9), Inches(0.4))
        box.text_frame.text = line
    top = Inches(1.3 + 0.4 * len(lines))
    shape = slide.shapes.add_table(len(grid), len(grid[0]), Inches(0.5), top, Inches(9), Inches(2))
    for r, row in enumerate(grid):
        for c, text in enumerate(row):
            shape.table.cell(r, c).text = text
    deck.save(str(path))


_CJK_FONT = "STSong-Light"


def write_pdf(path: Path, lines: tuple[str, ...], grid: Grid) -> None:
    """Text lines, then a ruled table with right-aligned figures."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    if _CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    margin, y = 56.0, A4[1] - 56.0
    for line in lines:
        y -= 16
        canvas.setFont(_font(line), 11)
        canvas.drawString(margin, y, line)
    y -= 12
    widths = (190.0, *(130.0,) * (len(grid[0]) - 1))
    xs = [margin]
    for width in widths:
        xs.append(xs[-1] + width)
    for row in grid:
        bottom = y - 18.0
        for c, text in enumerate(row):
            canvas.rect(xs[c], bottom, xs[c + 1] - xs[c], 18.0)
            if text:
                canvas.setFont(_font(text), 9)
                if c == 0:
                    canvas.drawString(xs[c] + 4, bottom + 5.5, text)
                else:
                    _draw_figure(canvas, text, xs[c + 1] - 4, bottom + 5.5)
        y = bottom
    canvas.showPage()
    canvas.save()


_MARKS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾"
_PLAIN = str.maketrans(_MARKS, "0123456789()")


def _draw_figure(canvas: Any, text: str, right: float, baseline: float) -> None:
    """A figure right-aligned at ``right``; a trailing footnote mark ("1,300¹") drawn as PDFs
    draw it: plain characters, smaller and raised after the figure."""
    figure = text.rstrip(_MARKS)
    mark = text[len(figure) :].translate(_PLAIN)
    mark_width = canvas.stringWidth(mark, "Helvetica", 6)
    canvas.drawRightString(right - mark_width, baseline, figure)
    if mark:
        canvas.setFont("Helvetica", 6)
        canvas.drawString(right - mark_width, baseline + 3.5, mark)


def _font(text: str) -> str:
    """A CJK font for Chinese text; Helvetica for the rest (it has "¹", the CJK font does not)."""
    return _CJK_FONT if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "Helvetica"


def write_md(path: Path, lines: tuple[str, ...], grid: Grid) -> None:
    text = f"# {lines[0]}\n\n" + "".join(f"{line}\n\n" for line in lines[1:])
    text += "| " + " | ".join(grid[0]) + " |\n"
    text += "|" + " --- |" * len(grid[0]) + "\n"
    text += "".join("| " + " | ".join(row) + " |\n" for row in grid[1:])
    path.write_text(text, encoding="utf-8")


WRITERS: dict[str, Writer] = {
    "xlsx": write_xlsx,
    "docx": write_docx,
    "pptx": write_pptx,
    "pdf": write_pdf,
    "md": write_md,
}
