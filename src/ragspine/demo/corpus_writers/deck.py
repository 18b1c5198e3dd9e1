"""The pptx corpus document: a deck of slides, some holding one table, written by python-pptx."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragspine.demo.corpus_model import (
    STYLE_CHART,
    STYLE_SEMANTIC,
    CellSpec,
    PlacedTable,
    TableSpec,
    Val,
)
from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes


@dataclass(frozen=True)
class SlideSpec:
    title: str
    subtitle: str = ""  # only on the first (title) slide
    body: tuple[str, ...] = ()  # bullet lines; below the table on a table slide
    notes: str = ""
    table: TableSpec | None = None
    # A column chart drawn from a table spec: columns are categories, rows are series, the
    # spec's title is the chart's title. Its numbers exist only in the chart.
    chart: TableSpec | None = None


@dataclass(frozen=True)
class DeckSpec:
    slides: tuple[SlideSpec, ...]

    def placed_tables(self) -> list[PlacedTable]:
        placed: list[PlacedTable] = []
        for n, s in enumerate(self.slides, start=1):
            if s.table is not None:
                placed.append(PlacedTable(s.table, f"slide={n},table=1", STYLE_SEMANTIC))
            if s.chart is not None:
                placed.append(PlacedTable(s.chart, f"slide={n},chart=1", STYLE_CHART))
        return placed

    def all_text(self) -> str:
        parts: list[str] = []
        for s in self.slides:
            parts += [s.title, s.subtitle, *s.body, s.notes]
            for table in (s.table, s.chart):
                if table is not None:
                    parts += [" ".join(r) for r in table.grid_text()]
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
        if spec.table is not None or spec.chart is not None:
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
        if spec.chart is not None:
            _add_chart(slide, spec.chart)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = spec.notes
    buffer = io.BytesIO()
    presentation.save(buffer)
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _add_chart(slide: Any, spec: TableSpec) -> None:
    """A clustered column chart holding the spec's values; its title is the spec's title."""
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    # python-pptx's chart-data classes carry no annotations.
    data = CategoryChartData(number_format="#,##0")  # type: ignore[no-untyped-call]
    data.categories = [" ".join(h[c] for h in spec.header if h[c]) for c in _value_columns(spec)]
    for row in spec.rows:
        values = [_chart_value(cell) for cell in row.cells]
        data.add_series(" ".join(row.labels), values)  # type: ignore[no-untyped-call]
    frame = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.5), Inches(8), Inches(5), data
    )
    chart = frame.chart
    chart.has_title = True
    chart.chart_title.text_frame.text = spec.title
    chart.has_legend = False


def _value_columns(spec: TableSpec) -> range:
    return range(spec.n_label_cols, spec.n_label_cols + len(spec.columns))


def _chart_value(cell: CellSpec) -> float | None:
    return cell.shown if isinstance(cell, Val) else None
