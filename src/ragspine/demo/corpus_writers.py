"""Write corpus documents (pptx, xlsx, docx, pdf, md) from their specs, byte-for-byte stable.

Office files are zip packages whose members carry the time they were written; every package is
re-zipped with one fixed timestamp and its document properties pinned, and PDFs are written
with reportlab's ``invariant`` mode, so the same spec always yields the same bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragspine.demo.corpus_model import (
    STYLE_CELL,
    STYLE_GRID,
    STYLE_SEMANTIC,
    PlacedTable,
    Skip,
    TableSpec,
    Val,
)

FIXED_TIME = dt.datetime(2025, 1, 1, 0, 0, 0)
_ZIP_TIME = (2025, 1, 1, 0, 0, 0)
AUTHOR = "ACME Finance (RAGSpine demo)"


# --------------------------------------------------------------------------- document specs


@dataclass(frozen=True)
class SlideSpec:
    title: str
    subtitle: str = ""  # only on the first (title) slide
    body: tuple[str, ...] = ()  # bullet lines; below the table on a table slide
    notes: str = ""
    table: TableSpec | None = None


@dataclass(frozen=True)
class DeckSpec:
    slides: tuple[SlideSpec, ...]

    def placed_tables(self) -> list[PlacedTable]:
        return [
            PlacedTable(s.table, f"slide={n},table=1", STYLE_SEMANTIC)
            for n, s in enumerate(self.slides, start=1)
            if s.table is not None
        ]

    def all_text(self) -> str:
        parts: list[str] = []
        for s in self.slides:
            parts += [s.title, s.subtitle, *s.body, s.notes]
            if s.table is not None:
                parts += [" ".join(r) for r in s.table.grid_text()]
        return "\n".join(p for p in parts if p)


@dataclass(frozen=True)
class SheetSpec:
    name: str
    table: TableSpec


@dataclass(frozen=True)
class WorkbookSpec:
    sheets: tuple[SheetSpec, ...]

    def placed_tables(self) -> list[PlacedTable]:
        return [PlacedTable(s.table, f"sheet={s.name}", STYLE_CELL) for s in self.sheets]

    def all_text(self) -> str:
        return "\n".join(" ".join(r) for s in self.sheets for r in s.table.grid_text())


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 1


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class TableBlock:
    table: TableSpec


Block = Heading | Para | TableBlock


@dataclass(frozen=True)
class FlowSpec:
    """A docx or markdown document: headings, paragraphs and tables in order."""

    blocks: tuple[Block, ...]

    def placed_tables(self, style_prefix: str) -> list[PlacedTable]:
        """docx: ``table=T`` in document order; md: ``section=S,table=T`` (S = headings so far,
        T = tables so far within that section)."""
        placed: list[PlacedTable] = []
        sections = 0
        in_section = 0
        for block in self.blocks:
            if isinstance(block, Heading):
                sections += 1
                in_section = 0
            elif isinstance(block, TableBlock):
                in_section += 1
                if style_prefix == "md":
                    prefix = f"section={sections},table={in_section}"
                else:
                    prefix = f"table={len(placed) + 1}"
                placed.append(PlacedTable(block.table, prefix, STYLE_GRID))
        return placed

    def title(self) -> str:
        return next((b.text for b in self.blocks if isinstance(b, Heading)), "")

    def all_text(self) -> str:
        parts: list[str] = []
        for b in self.blocks:
            if isinstance(b, TableBlock):
                parts += [" ".join(r) for r in b.table.grid_text()]
            else:
                parts.append(b.text)
        return "\n".join(parts)


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


@dataclass(frozen=True)
class PdfImage:
    """A full-page scanned picture: no text layer at all."""


PdfItem = PdfText | PdfTable | PdfImage


@dataclass(frozen=True)
class PdfSpec:
    title: str
    pages: tuple[tuple[PdfItem, ...], ...]

    def placed_tables(self) -> list[PlacedTable]:
        placed: list[PlacedTable] = []
        for p, items in enumerate(self.pages, start=1):
            tables = [i for i in items if isinstance(i, PdfTable)]
            for t, item in enumerate(tables, start=1):
                placed.append(PlacedTable(item.table, f"page={p},table={t}", STYLE_GRID))
        return placed

    def all_text(self) -> str:
        parts: list[str] = []
        for items in self.pages:
            for item in items:
                if isinstance(item, PdfText):
                    parts.append(item.text)
                elif isinstance(item, PdfTable):
                    parts += [" ".join(r) for r in item.table.grid_text()]
        return "\n".join(parts)

    def page_text(self, page: int) -> str:
        parts: list[str] = []
        for item in self.pages[page - 1]:
            if isinstance(item, PdfText):
                parts.append(item.text)
        return "\n".join(parts)


# --------------------------------------------------------------------------- zip freezing


def frozen_zip(data: bytes) -> bytes:
    """The same package with every member stamped with one fixed time, in the same order."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            member = zipfile.ZipInfo(info.filename, _ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.create_system = 3
            member.external_attr = 0o644 << 16
            target.writestr(member, source.read(info.filename))
    return out.getvalue()


def _write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# --------------------------------------------------------------------------- pptx


def write_pptx(path: Path, deck: DeckSpec) -> None:
    from pptx import Presentation
    from pptx.util import Emu, Inches, Pt

    presentation = Presentation()
    props = presentation.core_properties
    props.title = deck.slides[0].title
    props.author = AUTHOR
    props.last_modified_by = AUTHOR
    props.revision = 1
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.last_printed = FIXED_TIME
    layouts = presentation.slide_layouts
    for number, spec in enumerate(deck.slides, start=1):
        if spec.table is not None:
            slide = presentation.slides.add_slide(layouts[5])  # Title Only
        elif number == 1:
            slide = presentation.slides.add_slide(layouts[0])  # Title Slide
            slide.placeholders[1].text_frame.text = spec.subtitle
        else:
            slide = presentation.slides.add_slide(layouts[1])  # Title and Content
            frame = slide.placeholders[1].text_frame
            frame.text = spec.body[0] if spec.body else ""
            for line in spec.body[1:]:
                frame.add_paragraph().text = line
        title = slide.shapes.title
        assert title is not None
        title.text_frame.text = spec.title
        if spec.table is not None:
            grid = spec.table.grid_text()
            n_rows, n_cols = len(grid), len(grid[0])
            row_height = Inches(0.4)
            top = Inches(1.5)
            shape = slide.shapes.add_table(
                n_rows, n_cols, Inches(0.5), top, Inches(9), Emu(row_height * n_rows)
            )
            table = shape.table
            for r, cells in enumerate(grid):
                for c, text in enumerate(cells):
                    cell = table.cell(r, c)
                    cell.text = text
                    for paragraph in cell.text_frame.paragraphs:
                        paragraph.font.size = Pt(12)
            for r0, c0, r1, c1 in spec.table.merges:
                table.cell(r0, c0).merge(table.cell(r1, c1))
            if spec.body:
                box_top = top + row_height * n_rows + Inches(0.3)
                box = slide.shapes.add_textbox(Inches(0.5), Emu(box_top), Inches(9), Inches(1))
                box.text_frame.word_wrap = True
                box.text_frame.text = spec.body[0]
                for line in spec.body[1:]:
                    box.text_frame.add_paragraph().text = line
                for paragraph in box.text_frame.paragraphs:
                    paragraph.font.size = Pt(14)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = spec.notes
    buffer = io.BytesIO()
    presentation.save(buffer)
    _write_bytes(path, frozen_zip(buffer.getvalue()))


# --------------------------------------------------------------------------- xlsx


def write_xlsx(path: Path, workbook_spec: WorkbookSpec) -> None:
    from openpyxl import Workbook  # type: ignore[import-untyped, unused-ignore]
    from openpyxl.writer.excel import ExcelWriter  # type: ignore[import-untyped, unused-ignore]

    workbook = Workbook()
    workbook.remove(workbook.active)
    props = workbook.properties
    props.creator = AUTHOR
    props.lastModifiedBy = AUTHOR
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    for sheet_spec in workbook_spec.sheets:
        sheet = workbook.create_sheet(sheet_spec.name)
        table = sheet_spec.table
        for r, header_row in enumerate(table.header, start=1):
            for c, text in enumerate(header_row, start=1):
                if text:
                    sheet.cell(row=r, column=c, value=text)
        first = len(table.header) + 1
        for i, row in enumerate(table.rows):
            r = first + i
            for c, label in enumerate(row.labels, start=1):
                sheet.cell(row=r, column=c, value=label)
            for j, spec in enumerate(row.cells):
                c = table.n_label_cols + j + 1
                if isinstance(spec, Val):
                    if spec.percent:
                        target = sheet.cell(row=r, column=c, value=round(spec.shown / 100, 10))
                        target.number_format = "0.0%"
                    else:
                        shown = float(spec.shown)
                        stored = int(shown) if shown.is_integer() else shown
                        target = sheet.cell(row=r, column=c, value=stored)
                        target.number_format = row.xlsx_format
                elif isinstance(spec, Skip):
                    if spec.text:
                        sheet.cell(row=r, column=c, value=spec.text)
                else:
                    sheet.cell(row=r, column=c, value=spec.text)
        for r0, c0, r1, c1 in table.merges:
            sheet.merge_cells(
                start_row=r0 + 1, start_column=c0 + 1, end_row=r1 + 1, end_column=c1 + 1
            )
        sheet.column_dimensions["A"].width = 30
    buffer = io.BytesIO()
    # ExcelWriter directly: openpyxl's save() would stamp "modified" with the current time.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(workbook, archive).write_data()
    _write_bytes(path, frozen_zip(buffer.getvalue()))


# --------------------------------------------------------------------------- docx


def write_docx(path: Path, flow: FlowSpec) -> None:
    from docx import Document

    document = Document()
    props = document.core_properties
    props.title = flow.title()
    props.author = AUTHOR
    props.last_modified_by = AUTHOR
    props.revision = 1
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.last_printed = FIXED_TIME
    for block in flow.blocks:
        if isinstance(block, Heading):
            document.add_heading(block.text, level=block.level)
        elif isinstance(block, Para):
            document.add_paragraph(block.text)
        else:
            grid = block.table.grid_text()
            table = document.add_table(rows=len(grid), cols=len(grid[0]))
            table.style = "Table Grid"
            for r, cells in enumerate(grid):
                for c, text in enumerate(cells):
                    table.cell(r, c).text = text
            for r0, c0, r1, c1 in block.table.merges:
                table.cell(r0, c0).merge(table.cell(r1, c1))
    buffer = io.BytesIO()
    document.save(buffer)
    _write_bytes(path, frozen_zip(buffer.getvalue()))


# --------------------------------------------------------------------------- markdown


def write_md(path: Path, flow: FlowSpec) -> None:
    lines: list[str] = []
    for block in flow.blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Para):
            lines += [block.text, ""]
        else:
            grid = block.table.grid_text()
            lines.append("| " + " | ".join(grid[0]) + " |")
            lines.append("|" + "|".join("---" for _ in grid[0]) + "|")
            lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
            lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8", newline="\n")


# --------------------------------------------------------------------------- pdf

_CJK_FONT = "STSong-Light"
_PAGE_MARGIN = 56.0


def _register_cjk_font() -> None:
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped, unused-ignore]
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # type: ignore[import-untyped, unused-ignore]

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
    from reportlab.lib.pagesizes import A4  # type: ignore[import-untyped, unused-ignore]
    from reportlab.lib.utils import ImageReader  # type: ignore[import-untyped, unused-ignore]
    from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped, unused-ignore]

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
            else:
                picture = ImageReader(_scan_image())
                canvas.drawImage(
                    picture, _PAGE_MARGIN, _PAGE_MARGIN, usable, height - 2 * _PAGE_MARGIN
                )
        canvas.showPage()
    canvas.save()
    _write_bytes(path, buffer.getvalue())


def _draw_table(draw: Any, item: PdfTable, top: float) -> float:
    """A ruled table: every cell boxed, so a line-based table finder sees the grid."""
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
