"""Read a PowerPoint deck: per slide its title, body text, notes, tables and charts, in reading
order."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from pptx import Presentation
from pptx.exc import PythonPptxError
from pptx.shapes.autoshape import Shape
from pptx.shapes.base import BaseShape
from pptx.shapes.graphfrm import GraphicFrame
from pptx.shapes.group import GroupShape
from pptx.shapes.picture import Picture
from pptx.shapes.placeholder import _InheritsDimensions
from pptx.slide import Slide
from pptx.table import Table as PptxTable

from ragspine.ingestion.model import (
    Cell,
    ExtractedDocument,
    LocatorStyle,
    ReaderIssue,
    Table,
    TextBlock,
    hiding_cells,
)
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.pptx_chart import one_line, read_chart
from ragspine.ingestion.safety import WorkBudget


class PptxReader:
    """Slides → title/body/notes blocks (``slide=N,…``), SEMANTIC tables (``slide=N,table=k``),
    CHART tables (``slide=N,chart=k``). A hidden slide (``show="0"``) is skipped and counted
    unless ``include_hidden``, which reads it with its table cells marked ``hidden``; the others
    keep their numbers in the deck."""

    suffixes: tuple[str, ...] = (".pptx",)

    def __init__(self, budget: WorkBudget | None = None, *, include_hidden: bool = False) -> None:
        self._budget = budget
        self._include_hidden = include_hidden

    def read(self, path: Path) -> ExtractedDocument:
        budget = self._budget or WorkBudget(path)
        with bad_file_errors(
            path, "PowerPoint deck", PythonPptxError, etree.LxmlError, inside=("pptx",)
        ):
            presentation = Presentation(str(path))
            document = ExtractedDocument(path=path, title=presentation.core_properties.title)
            budget.pages(len(presentation.slides), "slides")
            for number, slide in enumerate(presentation.slides, start=1):
                budget.tick(f"slide {number}")
                if _hidden(slide) and not self._include_hidden:
                    document.hidden += 1
                    continue
                first = len(document.tables)
                _read_slide(slide, number, document)
                if _hidden(slide):  # read on request: its figures never outrank visible ones
                    document.tables[first:] = map(hiding_cells, document.tables[first:])
            if not document.title:
                document.title = next((b.text for b in document.blocks if b.kind == "title"), "")
            return document


def _hidden(slide: Slide) -> bool:
    """PowerPoint hides a slide from the show with ``<p:sld show="0">`` (xsd:boolean)."""
    return slide._element.get("show") in ("0", "false")


@dataclass(frozen=True)
class _Placed:
    """A leaf shape with its reading-order key and its box on the slide (EMU)."""

    shape: BaseShape
    order: tuple[int, ...]
    box: tuple[int, int, int, int]  # left, top, right, bottom


def _read_slide(slide: Slide, number: int, document: ExtractedDocument) -> None:
    title_shape = slide.shapes.title
    title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
    if title:
        document.blocks.append(TextBlock(title, f"slide={number},title", "title", title))
    placed = sorted(_leaves(slide.shapes), key=lambda p: p.order)
    texts = [
        (p, text)
        for p in placed
        if isinstance(p.shape, Shape)
        and (title_shape is None or p.shape.shape_id != title_shape.shape_id)
        and (text := _shape_text(p.shape))
    ]
    if texts:
        body = "\n".join(text for _, text in texts)
        document.blocks.append(TextBlock(body, f"slide={number},body", "body", title))
    frames = [(p, p.shape) for p in placed if isinstance(p.shape, GraphicFrame)]
    tables = [(p, frame.table) for p, frame in frames if frame.has_table]
    for k, (where, table) in enumerate(tables, start=1):
        nearest_first = sorted(texts, key=lambda item: _gap(item[0], where))
        document.tables.append(
            Table(
                cells=_grid(table),
                locator_prefix=f"slide={number},table={k}",
                locator_style=LocatorStyle.SEMANTIC,
                title=title,
                context=tuple(text for _, text in nearest_first),
            )
        )
    charts = [(p, frame.chart) for p, frame in frames if frame.has_chart]
    for k, (where, chart) in enumerate(charts, start=1):
        nearest_first = sorted(texts, key=lambda item: _gap(item[0], where))
        context = [text for _, text in nearest_first]
        reading = read_chart(chart, f"slide={number},chart={k}", title, context)
        if reading.table is not None:
            document.tables.append(reading.table)
        document.issues.extend(reading.issues)
    if not (title or texts or tables or charts) and any(
        isinstance(p.shape, Picture) for p in placed
    ):
        document.issues.append(
            ReaderIssue(f"slide={number}", "needs OCR: slide has pictures but no text")
        )
    notes = _notes(slide)
    if notes:
        document.blocks.append(TextBlock(notes, f"slide={number},notes", "notes", title))


def _leaves(shapes: Iterable[BaseShape], order: tuple[int, ...] = ()) -> Iterator[_Placed]:
    """Shapes with groups opened: a group sorts as one unit, its members inside it."""
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _leaves(shape.shapes, (*order, shape.top or 0, shape.left or 0))
        else:
            left, top, width, height = _extent(shape)
            # A group member's offsets are in its group's child space, which equals slide
            # space unless that group was scaled; close enough to rank what is near a table.
            yield _Placed(shape, (*order, top, left), (left, top, left + width, top + height))


def _extent(shape: BaseShape) -> tuple[int, int, int, int]:
    """``shape.left``, ``.top``, ``.width`` and ``.height``, 0 where unset."""
    left, top, width, height = (int(value or 0) for value in _dimensions(shape))
    return left, top, width, height


def _dimensions(shape: BaseShape) -> list[int | None]:
    """What ``shape.left``, ``.top``, ``.width`` and ``.height`` return (None where unset).

    A placeholder without a position of its own takes its layout placeholder's, which may take
    its master placeholder's; python-pptx looks each of them up again for every one of the four
    (a search of the layout's or master's shapes), so here each is looked up once, and only
    for what the shape does not set itself.
    """
    element = shape._element
    values: list[int | None] = [element.x, element.y, element.cx, element.cy]
    if isinstance(shape, _InheritsDimensions) and None in values:
        base = shape._base_placeholder
        if base is not None:
            inherited = _dimensions(base)
            values = [
                own if own is not None else theirs
                for own, theirs in zip(values, inherited, strict=True)
            ]
    return values


def _shape_text(shape: Shape) -> str:
    if not shape.has_text_frame:
        return ""
    lines = (p.text.replace("\v", "\n").strip() for p in shape.text_frame.paragraphs)
    return "\n".join(line for line in lines if line)


def _gap(a: _Placed, b: _Placed) -> float:
    """Distance between two boxes' nearest edges (0 when they overlap)."""
    dx = max(0, a.box[0] - b.box[2], b.box[0] - a.box[2])
    dy = max(0, a.box[1] - b.box[3], b.box[1] - a.box[3])
    return math.hypot(dx, dy)


def _grid(table: PptxTable) -> tuple[tuple[Cell, ...], ...]:
    """The table's cells with merged ranges expanded: every spanned cell repeats the origin."""
    n_rows, n_cols = len(table.rows), len(table.columns)
    # Each cell fetched once: ``table.cell`` searches the table's rows and cells every time.
    grid = [[table.cell(r, c) for c in range(n_cols)] for r in range(n_rows)]
    spans: dict[tuple[int, int], str] = {}
    for r in range(n_rows):
        for c in range(n_cols):
            origin = grid[r][c]
            if origin.is_merge_origin:
                text = origin.text.replace("\v", "\n").strip()
                for i in range(r, min(r + origin.span_height, n_rows)):
                    for j in range(c, min(c + origin.span_width, n_cols)):
                        spans[(i, j)] = text
    return tuple(
        tuple(
            Cell(
                row=r,
                col=c,
                text=spans.get((r, c), grid[r][c].text.replace("\v", "\n").strip()),
                merged=(r, c) in spans,
            )
            for c in range(n_cols)
        )
        for r in range(n_rows)
    )


def _notes(slide: Slide) -> str:
    if not slide.has_notes_slide:  # asking for notes_slide would create an empty one
        return ""
    frame = slide.notes_slide.notes_text_frame
    return frame.text.replace("\v", "\n").strip() if frame is not None else ""
