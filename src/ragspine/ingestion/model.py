"""The intermediate form every reader produces: tables with coordinates, text blocks with
positions, and problems worth a reviewer's look. Readers know file formats; nothing after them
does.

Locator conventions (lineage: docs/architecture.md, invariant 2) — a reader sets each table's
``locator_prefix`` and ``locator_style``; the table mapper completes a cell's locator from them:

=========  ==================  ============================================================
style      prefix example      completed cell locator
=========  ==================  ============================================================
semantic   slide=2,table=1     slide=2,table=1,row=<METRIC>,col=FY2024            (codes)
cell       sheet=<name>        sheet=<name>,cell=C4                               (A1 ref)
grid       page=3,table=1      page=3,table=1,row=2,col=3                         (1-based)
chart      slide=4,chart=1     slide=4,chart=1,series=<series name>,category=<label>
=========  ==================  ============================================================

A chart's table has one header row per category level and one row per series, its name in
column 0; its locators name the series and the category as the chart shows them.

Text block locators point at the document's own structure: ``slide=5,title``,
``slide=5,body``, ``slide=5,notes``, ``page=3,para=2``, ``section=2,para=3``.

Word text outside the run of headings is numbered within its own part, each distinct part once
in reading order: page headers ``header=1,para=1``, footers ``footer=1,para=1``, text boxes
``textbox=2,para=1``; a table there is a grid prefixed the same way (``header=1,table=1``,
cells ``textbox=2,table=1,row=1,col=2``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Protocol


class LocatorStyle(StrEnum):
    SEMANTIC = "semantic"
    CELL = "cell"
    GRID = "grid"
    CHART = "chart"


@dataclass(frozen=True)
class Cell:
    """One table cell after merged cells are expanded (a merged header repeats its text).

    ``row`` and ``col`` are 0-based positions in the table grid. ``value`` is set when the
    source stores a number (an xlsx computed value); ``text`` is always what a reader sees.
    ``number_format`` is the source's format string ("0.0%", "#,##0", "$#,##0") when known.
    ``ref`` is the sheet's own address ("C4") for spreadsheets, else "".
    ``confidence`` is the OCR engine's score (0–1) for text read off a scanned page; it is None
    for text a file stores, which is exact. ``hidden`` is set on a cell the file hides from its
    reader (a hidden sheet, row or column, a hidden slide, hidden Word text), which a reader
    returns only when made with ``include_hidden``: such a cell never outranks a visible one
    (``ingestion.conflicts.set_aside_hidden``).
    """

    row: int
    col: int
    text: str
    value: float | None = None
    number_format: str = ""
    ref: str = ""
    merged: bool = False
    confidence: float | None = None
    hidden: bool = False


@dataclass(frozen=True)
class Table:
    """A grid of cells plus the context that names what it measures.

    ``title`` is the nearest naming text (slide title, sheet name, heading, caption);
    ``context`` holds further text around it (captions, unit notes, section headings) in
    order of closeness.
    """

    cells: tuple[tuple[Cell, ...], ...]
    locator_prefix: str
    locator_style: LocatorStyle
    title: str = ""
    context: tuple[str, ...] = ()

    @property
    def n_rows(self) -> int:
        return len(self.cells)

    @cached_property
    def n_cols(self) -> int:
        # Cached: mapping asks once per row, and a rescan each time is quadratic in rows.
        return max((len(r) for r in self.cells), default=0)

    def cell(self, row: int, col: int) -> Cell | None:
        if 0 <= row < len(self.cells) and 0 <= col < len(self.cells[row]):
            return self.cells[row][col]
        return None


@dataclass(frozen=True)
class TextBlock:
    """A run of prose at one structural position (a slide's notes, a page paragraph...)."""

    text: str
    locator: str
    kind: str  # title | body | notes | heading | paragraph
    title: str = ""  # the slide title / section heading it sits under


@dataclass(frozen=True)
class ReaderIssue:
    """Something a reviewer must see: a page without a text layer, an unreadable shape..."""

    locator: str
    reason: str


@dataclass
class ExtractedDocument:
    path: Path
    tables: list[Table] = field(default_factory=list)
    blocks: list[TextBlock] = field(default_factory=list)
    issues: list[ReaderIssue] = field(default_factory=list)
    title: str = ""
    # What the reader skipped as hidden, counted in the format's own unit (``HIDDEN_UNITS``):
    # a draft sheet or a hidden slide must not answer beside what the reader of the file sees.
    hidden: int = 0


# What ``ExtractedDocument.hidden`` counts, by file kind (suffix without the dot).
HIDDEN_UNITS = {"xlsx": "cell", "xlsm": "cell", "pptx": "slide", "docx": "text run"}


# What the extractor version of a document read with its hidden content, and of a fact read
# from a hidden cell, ends with: "4+hidden".
HIDDEN_MARK = "+hidden"


def read_from_hidden(extractor_version: str | None) -> bool:
    """Whether a fact or document with this extractor version was read from hidden content."""
    return extractor_version is not None and extractor_version.endswith(HIDDEN_MARK)


def hiding_cells(table: Table) -> Table:
    """``table`` with every cell marked hidden (a table on a hidden slide)."""
    cells = tuple(tuple(replace(cell, hidden=True) for cell in row) for row in table.cells)
    return replace(table, cells=cells)


def hidden_note(kind: str, count: int) -> str:
    """ "3 hidden cells skipped" for ``count`` hidden units of a ``kind`` file; "" for none."""
    if count <= 0:
        return ""
    unit = HIDDEN_UNITS.get(kind, "item")
    return f"{count} hidden {unit}{'' if count == 1 else 's'} skipped"


class Reader(Protocol):
    """Reads one file format into the intermediate form.

    Raises ``ragspine.errors.IngestError`` naming the file and the reason for any file it
    cannot read (corrupt, encrypted, password-protected, not really this format...). Content
    the file hides from its own reader (hidden sheets, rows, columns, slides, text) is skipped
    and counted in ``hidden`` unless the reader was made with ``include_hidden``.
    """

    suffixes: tuple[str, ...]

    def read(self, path: Path) -> ExtractedDocument: ...
