"""Read a scanned page picture with an offline OCR engine and rebuild its tables and paragraphs.

The engine is rapidocr-onnxruntime (the ``ocr`` extra): its wheel ships Chinese + English
PP-OCRv4 models and runs them on onnxruntime's CPU build, so nothing is fetched at run time. It
is imported on first use, never when this module is imported.

The engine returns text lines with a box and a score (0–1). Lines that share a vertical band
form a row; a run of rows of several lines, with a number in them, is a table whose columns are
the horizontal extents the lines of its fullest rows overlap on; every other line is prose.

Whatever came from OCR says so in its locator (``page=3,extraction=ocr,table=1`` and
``page=3,extraction=ocr,para=2``). A table cell keeps a score — the lowest of its own and those
of the cells naming it, its row's and its column's first — which the table mapper writes into
the value's locator (``…,row=2,col=3,confidence=0.98``) and holds below ``MIN_CONFIDENCE``.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib.util
import itertools
import math
import multiprocessing
import os
import signal
import statistics
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ragspine.ingestion.model import Cell, LocatorStyle, Table, TextBlock
from ragspine.optional import import_optional, install_hint
from ragspine.profile.matching import CJK

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "MIN_CONFIDENCE",
    "OCR_EXTRA",
    "OCR_MARK",
    "OcrContent",
    "OcrError",
    "OcrLine",
    "confidence_mark",
    "layout",
    "missing_hint",
    "ocr_available",
    "read_lines",
    "read_scan",
]

OCR_EXTRA = "ocr"
OCR_MARK = "extraction=ocr"
# Below this score an OCR'd value goes to review instead of becoming a fact. Measured on
# generated ruled tables, rendered at 200 dpi, blurred and downscaled (225 number reads): every
# misread number but one scored under 0.95, while on clean and lightly blurred scans 1 correct
# number in 48 fell under it — a wrong figure costs more than a review item.
MIN_CONFIDENCE = 0.95
_ENGINE_MODULE = "rapidocr_onnxruntime"
_WORD_GAP = 0.3  # blank columns this many ink heights wide separate two words
_PARAGRAPH_PITCH = 1.6  # line-to-line distance, in line heights, that starts a paragraph
_CONTEXT_LINES = 3.0  # paragraphs within this many line heights of a table describe it

Box = tuple[float, float, float, float]  # x0, top, x1, bottom in pixels


@dataclass(frozen=True)
class OcrLine:
    """One line of text as the engine read it."""

    text: str
    box: Box
    confidence: float

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    @property
    def middle(self) -> float:
        return (self.box[1] + self.box[3]) / 2


@dataclass
class OcrContent:
    """A scanned page's tables and paragraphs, in the reader's intermediate form."""

    tables: list[Table] = field(default_factory=list)
    blocks: list[TextBlock] = field(default_factory=list)


def ocr_available() -> bool:
    """True when the ``ocr`` extra is installed (checked without importing the engine)."""
    return importlib.util.find_spec(_ENGINE_MODULE) is not None


def missing_hint() -> str:
    """What to install for OCR, for a reviewer's message."""
    return f"install the {OCR_EXTRA} extra to read it: {install_hint(OCR_EXTRA)}"


def confidence_mark(confidence: float) -> str:
    """The locator part for an OCR score, rounded down so 0.996 never reads as certain."""
    return f"confidence={math.floor(confidence * 100) / 100:.2f}"


def read_scan(image: Image.Image, page_locator: str, heading: str = "") -> OcrContent:
    """OCR ``image`` (a rendered page) into tables and paragraphs under ``page_locator``."""
    return layout(read_lines(image), f"{page_locator},{OCR_MARK}", heading)


def read_lines(image: Image.Image) -> list[OcrLine]:
    """The text lines the engine finds in ``image``, top to bottom."""
    rgb = np.asarray(image.convert("RGB"))
    try:
        found = _worker().submit(_recognise, rgb).result()
    except BrokenProcessPool as exc:
        _worker.cache_clear()  # the next page gets a fresh worker
        raise OcrError(f"the OCR worker process stopped: {exc}") from exc
    gray = np.asarray(image.convert("L"))
    lines = [_line(raw, gray) for raw in found]
    return sorted((line for line in lines if line.text), key=lambda line: line.box[1])


class OcrError(RuntimeError):
    """The OCR engine could not read a page (its worker process died)."""


def _recognise(rgb: np.ndarray[Any, Any]) -> list[Any]:
    """Runs in the worker process: the engine's raw lines for one page picture."""
    # A rendered page is upright, and the angle classifier turns long single lines of prose
    # upside down (read back as blanks), so it stays off. Word boxes bring the word breaks.
    found, _ = _engine()(rgb, use_cls=False, return_word_box=True)
    return list(found or ())


# prctl's option asking for a signal when the parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


@cache
def _worker() -> ProcessPoolExecutor:
    """The process the engine runs in, started on first use and kept for the run.

    onnxruntime crashes (SIGSEGV, while loading) any process that has already loaded usearch's
    compiled module — the vector index, a core dependency — as both bring their own C++
    runtime symbols. A spawned interpreter imports neither, so OCR is safe whatever the caller
    loaded before; the page picture and the lines it yields cross the boundary pickled.
    """
    executor = ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_end_with_parent,
    )
    atexit.register(executor.shutdown, wait=True, cancel_futures=True)
    return executor


def _end_with_parent() -> None:
    """Run first in the OCR process: on Linux the kernel ends it when the thread that started
    it dies, so an ingest killed with SIGKILL (or by the OOM killer) does not leave it reading
    pages for nobody, with its models' memory, for as long as the page takes."""
    if sys.platform != "linux":
        return
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


@cache
def _engine() -> Any:
    """The engine, built once per (worker) process: loading its three models takes a moment."""
    module = import_optional(_ENGINE_MODULE, extra=OCR_EXTRA)
    return module.RapidOCR()


def _line(raw: Sequence[Any], gray: np.ndarray[Any, Any]) -> OcrLine:
    points, text, score = raw[0], str(raw[1]).strip(), float(raw[2])
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    box = (min(xs), min(ys), max(xs), max(ys))
    if len(raw) >= 5 and "".join(raw[4]).strip() == text:
        text = _respaced(list(raw[4]), raw[3], box, gray)
    return OcrLine(text, box, score)


def _respaced(chars: list[str], char_boxes: Sequence[Any], box: Box, gray: Any) -> str:
    """Put back the spaces between Latin words that the Chinese-trained model drops.

    The recogniser often reads "Net margin" as "Netmargin", which no alias matches.
    The picture still shows the gap: a run of blank pixel columns wider than ``_WORD_GAP`` ink
    heights marks a word break at the letter boundary nearest to it.
    """
    x0, top, x1, bottom = (round(v) for v in box)
    crop = gray[max(top, 0) : bottom, max(x0, 0) : x1]
    if crop.size == 0 or len(char_boxes) != len(chars):
        return "".join(chars).strip()
    dark = crop < (int(crop.min()) + int(crop.max())) / 2
    columns = np.flatnonzero(dark.any(axis=0))
    rows = np.flatnonzero(dark.any(axis=1))
    if columns.size < 2:
        return "".join(chars).strip()
    ink_height = rows[-1] - rows[0] + 1
    gaps = [
        max(x0, 0) + (a + b) / 2
        for a, b in itertools.pairwise(columns)
        if b - a - 1 >= _WORD_GAP * ink_height
    ]
    centres = [(min(p[0] for p in cb) + max(p[0] for p in cb)) / 2 for cb in char_boxes]
    breaks: set[int] = set()
    for gap in gaps:
        nearest = min(
            range(len(chars) - 1), key=lambda i: abs((centres[i] + centres[i + 1]) / 2 - gap)
        )
        if _latin(chars[nearest]) and _latin(chars[nearest + 1]):
            breaks.add(nearest)
    return "".join(c + (" " if i in breaks else "") for i, c in enumerate(chars)).strip()


def _latin(char: str) -> bool:
    return char.isascii() and char.isalpha()


# --------------------------------------------------------------------------- layout


def layout(lines: Sequence[OcrLine], prefix: str, heading: str = "") -> OcrContent:
    """Tables (``<prefix>,table=k``) and paragraphs (``<prefix>,para=i``) from OCR lines."""
    rows = _rows(lines)
    runs = _table_runs(rows)
    in_table = {id(line) for run in runs for row in run for line in row}
    prose = [line for line in lines if id(line) not in in_table]
    paragraphs = _paragraphs(prose)
    content = OcrContent()
    for k, run in enumerate(runs, start=1):
        title, context = _surroundings(run, paragraphs, heading)
        locator = f"{prefix},table={k}"
        content.tables.append(Table(_grid(run), locator, LocatorStyle.GRID, title, context))
    for i, paragraph in enumerate(paragraphs, start=1):
        text = _join(line.text for line in paragraph)
        content.blocks.append(TextBlock(text, f"{prefix},para={i}", "paragraph", heading))
    return content


def _rows(lines: Sequence[OcrLine]) -> list[list[OcrLine]]:
    """Lines grouped into rows: a line whose middle falls within a row's first line joins it."""
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda line: line.middle):
        first = rows[-1][0] if rows else None
        if first is not None and first.box[1] <= line.middle <= first.box[3]:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [sorted(row, key=lambda line: line.box[0]) for row in rows]


def _table_runs(rows: list[list[OcrLine]]) -> list[list[list[OcrLine]]]:
    """Runs of two or more consecutive rows of several lines each, holding a number.

    A lone line just above a run and clear of its label column is a header spanning columns
    ("Fiscal year" over "FY2023" and "FY2024"): it belongs to the table.
    """
    runs: list[list[list[OcrLine]]] = []
    start = 0
    for end, row in enumerate([*rows, []]):
        if len(row) >= 2:
            continue
        run = rows[start:end]
        if len(run) >= 2 and any(_has_digit(line) for r in run[1:] for line in r):
            above = rows[start - 1] if start > 0 else []
            labels_end = _columns(run)[0][1]
            if len(above) == 1 and above[0].box[0] > labels_end:
                run = [above, *run]
            runs.append(run)
        start = end + 1
    return runs


def _has_digit(line: OcrLine) -> bool:
    return any(char.isdigit() for char in line.text)


def _grid(rows: list[list[OcrLine]]) -> tuple[tuple[Cell, ...], ...]:
    """The cells of one table; a line spanning several columns fills each, marked merged."""
    columns = _columns(rows)
    grid: list[tuple[Cell, ...]] = []
    for r, row in enumerate(rows):
        placed: list[list[OcrLine]] = [[] for _ in columns]
        spans: set[int] = set()
        for line in row:
            hit = _overlapping(line, columns)
            for c in hit:
                placed[c].append(line)
            if len(hit) > 1:
                spans.update(hit)
        grid.append(tuple(_cell(r, c, placed[c], c in spans) for c in range(len(columns))))
    return _named_confidence(grid)


def _named_confidence(grid: list[tuple[Cell, ...]]) -> tuple[tuple[Cell, ...], ...]:
    """Each cell's score, lowered to those of the first cells of its row and its column.

    Those cells usually name the value (metric, year): a value read cleanly under a header
    misread as another year is no surer than that header.
    """

    def score(cell: Cell) -> float | None:
        if cell.confidence is None or cell.row == 0 or cell.col == 0:
            return cell.confidence
        names = (grid[0][cell.col], grid[cell.row][0])
        return min(c.confidence for c in (cell, *names) if c.confidence is not None)

    return tuple(tuple(replace(cell, confidence=score(cell)) for cell in row) for row in grid)


def _columns(rows: list[list[OcrLine]]) -> list[tuple[float, float]]:
    """Column extents: the union of overlapping line extents in the rows with the most lines."""
    fullest = max(len(row) for row in rows)
    extents = sorted(
        (line.box[0], line.box[2]) for row in rows if len(row) == fullest for line in row
    )
    columns: list[tuple[float, float]] = []
    for left, right in extents:
        if columns and left <= columns[-1][1]:
            columns[-1] = (columns[-1][0], max(columns[-1][1], right))
        else:
            columns.append((left, right))
    return columns


def _overlapping(line: OcrLine, columns: list[tuple[float, float]]) -> list[int]:
    """The columns a line overlaps, or the nearest one when it falls between them."""
    x0, _, x1, _ = line.box
    hit = [c for c, (left, right) in enumerate(columns) if x0 < right and left < x1]
    if hit:
        return hit
    middle = (x0 + x1) / 2
    return [min(range(len(columns)), key=lambda c: abs(sum(columns[c]) / 2 - middle))]


def _cell(row: int, col: int, lines: list[OcrLine], merged: bool) -> Cell:
    if not lines:
        return Cell(row=row, col=col, text="")
    text = " ".join(line.text for line in lines)
    confidence = min(line.confidence for line in lines)
    return Cell(row=row, col=col, text=text, merged=merged, confidence=confidence)


def _paragraphs(lines: list[OcrLine]) -> list[list[OcrLine]]:
    """Prose lines, top to bottom; a gap wider than ``_PARAGRAPH_PITCH`` lines starts a new one."""
    groups: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda line: (line.box[1], line.box[0])):
        previous = groups[-1][-1] if groups else None
        pitch = line.box[1] - previous.box[1] if previous else 0.0
        if previous is None or pitch > _PARAGRAPH_PITCH * max(previous.height, 1.0):
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


def _surroundings(
    rows: list[list[OcrLine]], paragraphs: list[list[OcrLine]], heading: str
) -> tuple[str, tuple[str, ...]]:
    """The title (the nearest prose line above) and the paragraphs close to a table."""
    top = min(line.box[1] for line in rows[0])
    bottom = max(line.box[3] for line in rows[-1])
    prose = [line for paragraph in paragraphs for line in paragraph]
    above = [line for line in prose if line.box[3] <= top + 1]
    title = max(above, key=lambda line: line.box[3]).text if above else heading
    height = statistics.median(line.height for row in rows for line in row)

    def gap(paragraph: list[OcrLine]) -> float:
        return max(0.0, top - paragraph[-1].box[3], paragraph[0].box[1] - bottom)

    near = sorted((p for p in paragraphs if gap(p) <= _CONTEXT_LINES * height), key=gap)
    context = [_join(line.text for line in p) for p in near]
    context = [text for text in context if text != title]
    if heading and heading != title and heading not in context:
        context.append(heading)
    return title, tuple(context)


def _join(texts: Iterable[str]) -> str:
    """Join wrapped lines: no space between two Chinese characters, one space elsewhere."""
    joined = ""
    for text in texts:
        if joined and not (CJK.match(joined[-1]) and CJK.match(text[0])):
            joined += " "
        joined += text
    return joined
