"""The pptx corpus document: a deck of slides, some holding one table, written by python-pptx."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from ragspine.demo.corpus_model import STYLE_SEMANTIC, PlacedTable, TableSpec
from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes


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
    write_bytes(path, frozen_zip(buffer.getvalue()))
