"""Read a PDF's text layer: tables as grids, the remaining text as paragraphs per page.

Tables are ruled grids, or numbers standing in aligned columns without rules (``pdf_layout``).
A page without a usable text layer (a scan) is read by OCR when the ``ocr`` extra is installed
(``ingestion.ocr``) and reported for review otherwise, never skipped silently. A two-column
page is read column by column. Paragraphs come from line geometry: a line starts a new
paragraph when it sits more than 1.5 line heights below the previous one, changes font size,
or turns from heading to body.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError
from pdfminer.psexceptions import PSException
from pdfplumber.page import Page
from pdfplumber.pdf import PDF
from pdfplumber.table import Table as PdfTable
from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

from ragspine.errors import IngestError
from ragspine.ingestion import ocr
from ragspine.ingestion.model import (
    Cell,
    ExtractedDocument,
    LocatorStyle,
    ReaderIssue,
    Table,
    TextBlock,
)
from ragspine.ingestion.readers.boundary import bad_file_errors, describe
from ragspine.ingestion.readers.pdf_chars import convert_chars_fast
from ragspine.ingestion.readers.pdf_layout import (
    BBox,
    PageTable,
    Row,
    borderless_tables,
    page_rows,
    reading_regions,
)
from ragspine.ingestion.readers.pdf_marks import mark_superscripts
from ragspine.ingestion.safety import WorkBudget

_HEADING_SIZE_RATIO = 1.15  # a line this much larger than the body text reads as a heading
_PARAGRAPH_PITCH = 1.5  # line-to-line distance, in line heights, that starts a paragraph
_CONTEXT_LINES = 3.0  # paragraphs within this many body lines of a table describe it
_UNMAPPED_SHARE = 0.1  # share of "(cid:N)" glyphs beyond which the text layer is unusable
_SCAN_SHARE = 0.5  # a picture covering this share of the page, with no text on it, is a scan
_OCR_RESOLUTION = 200  # dpi a scanned page is rendered at for OCR (scans are 200-300 dpi)
# What generators (reportlab's canvas and document templates) stamp when the author set no title.
_PLACEHOLDER_TITLES = frozenset({"", "untitled", "(anonymous)"})


class PdfReader:
    """Pages → GRID tables (``page=p,table=k``) and paragraphs (``page=p,para=i``)."""

    suffixes: tuple[str, ...] = (".pdf",)

    def __init__(self, budget: WorkBudget | None = None) -> None:
        self._budget = budget

    def read(self, path: Path) -> ExtractedDocument:
        budget = self._budget or WorkBudget(path)
        # pdfminer parses lazily, so a damaged object can surface on any page: the whole read
        # is the boundary.
        with (
            bad_file_errors(
                path,
                "PDF",
                PdfminerException,
                MalformedPDFException,
                PSException,
                inside=("pdfplumber", "pdfminer", "pypdfium2"),
            ),
            _opened(path) as pdf,
        ):
            document = ExtractedDocument(path=path, title=_metadata_title(pdf))
            heading = ""
            pages = _pages(path, pdf)
            budget.pages(len(pages))
            for number, page in enumerate(pages, start=1):
                budget.tick(f"page {number}")
                convert_chars_fast(page)
                heading = _read_page(page, number, heading, document)
                page.close()
            if not document.title:
                document.title = next((b.title for b in document.blocks if b.title), "")
            return document


@contextmanager
def _opened(path: Path) -> Iterator[PDF]:
    pdf = _open(path)
    try:
        yield pdf
    finally:
        try:
            pdf.close()
        except (IndexError, TypeError):  # closing walks the pages again, malformed ones too
            pdf.stream.close()


def _open(path: Path) -> PDF:
    try:
        return pdfplumber.open(path)
    except PdfminerException as exc:
        if exc.args and isinstance(exc.args[0], PDFEncryptionError):
            raise IngestError(f"{path}: encrypted PDF: a password is required to open it") from exc
        raise


def _pages(path: Path, pdf: PDF) -> list[Page]:
    """Every page; pdfplumber trusts the page dictionaries' types, so a ``/MediaBox [0 0]``
    or a ``/Rotate (abc)`` surfaces here as an IndexError or a TypeError."""
    try:
        return list(pdf.pages)
    except (IndexError, TypeError) as exc:
        raise IngestError(
            f"{path}: malformed page dictionary (/MediaBox, /CropBox or /Rotate of the wrong "
            f"shape or type): {describe(exc)}"
        ) from exc


def _metadata_title(pdf: PDF) -> str:
    title = pdf.metadata.get("Title")
    if isinstance(title, str) and title.strip().lower() not in _PLACEHOLDER_TITLES:
        return title.strip()
    return ""


@dataclass(frozen=True)
class _Line:
    text: str
    top: float
    bottom: float
    size: float
    bold: bool

    @classmethod
    def of(cls, raw: dict[str, Any]) -> _Line:
        chars = raw["chars"]
        bold = all("bold" in str(c.get("fontname", "")).lower() for c in chars)
        size = statistics.median(float(c["size"]) for c in chars)
        return cls(raw["text"].strip(), float(raw["top"]), float(raw["bottom"]), size, bold)


@dataclass(frozen=True)
class _Paragraph:
    lines: tuple[_Line, ...]
    heading: bool

    @property
    def text(self) -> str:
        return _join_lines(line.text for line in self.lines)

    @property
    def top(self) -> float:
        return self.lines[0].top

    @property
    def bottom(self) -> float:
        return self.lines[-1].bottom


@dataclass(frozen=True)
class _Prose:
    """A page's text outside its tables."""

    lines: list[_Line]
    paragraphs: list[_Paragraph]
    body_size: float


def _read_page(page: Page, number: int, heading: str, document: ExtractedDocument) -> str:
    """Append the page's tables, paragraphs and issues; return the heading in force after it."""
    problem = _text_layer_problem(page)
    if problem:
        if page.chars or page.images:
            _read_scan(page, number, problem, heading, document)
        return heading
    mark_superscripts(page)  # "1,300" + a raised "1" is "1,300¹", never 13,001
    tables, text, rows = _page_tables(page)
    prose = _prose(text, rows)
    for k, table in enumerate(tables, start=1):
        document.tables.append(_table(table, f"page={number},table={k}", prose, heading))
    for i, paragraph in enumerate(prose.paragraphs, start=1):
        if paragraph.heading:
            heading = paragraph.text
        locator = f"page={number},para={i}"
        document.blocks.append(TextBlock(paragraph.text, locator, "paragraph", heading))
    return heading


def _text_layer_problem(page: Page) -> str:
    """Why the page's text cannot be read from its text layer ("" when it can)."""
    if not page.chars:
        return "needs OCR: page has no text layer"
    unmapped = sum(str(c["text"]).startswith("(cid:") for c in page.chars)
    if unmapped > _UNMAPPED_SHARE * len(page.chars):
        return "needs OCR: text layer has no Unicode mapping"
    if _scanned_picture(page):
        return "needs OCR: page is a scanned picture with text only around it"
    return ""


def _scanned_picture(page: Page) -> bool:
    """A picture over most of the page with no text drawn on it: a scan with a typed stamp.

    A searchable scan carries its (invisible) OCR text over the picture, so it is read as text.
    """
    area = float(page.width) * float(page.height)
    for image in page.images:
        box = (float(image["x0"]), float(image["top"]), float(image["x1"]), float(image["bottom"]))
        covered = max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])
        if covered >= _SCAN_SHARE * area and not any(_inside(c, [box]) for c in page.chars):
            return True
    return False


def _read_scan(
    page: Page, number: int, problem: str, heading: str, document: ExtractedDocument
) -> None:
    """OCR the rendered page when the ``ocr`` extra is installed; else report what to install."""
    locator = f"page={number}"
    if not ocr.ocr_available():
        document.issues.append(ReaderIssue(locator, f"{problem}; {ocr.missing_hint()}"))
        return
    picture = page.to_image(resolution=_OCR_RESOLUTION).original
    try:
        content = ocr.read_scan(picture, locator, heading)
    except ocr.OcrError as exc:  # the page waits for a reviewer; the rest of the file is kept
        document.issues.append(ReaderIssue(locator, f"{problem}, and OCR failed: {exc}"))
        return
    if not content.tables and not content.blocks:
        document.issues.append(ReaderIssue(locator, f"{problem}, and OCR found no text on it"))
        return
    document.tables += content.tables
    document.blocks += content.blocks


def _page_tables(page: Page) -> tuple[list[PageTable], Page, list[Row]]:
    """Ruled tables, then tables without rules in the text around them, top to bottom; and
    the page without the characters of any of them, with its rows."""
    ruled = [PageTable(t.bbox, _grid(t)) for t in page.find_tables() if _is_grid(t)]
    text = _outside(page, [t.bbox for t in ruled])
    rows = page_rows(text)
    borderless = borderless_tables(rows)
    tables = sorted(ruled + borderless, key=lambda t: (t.bbox[1], t.bbox[0]))
    if borderless:  # else the text outside every table is the text around the ruled ones
        text = _outside(page, [t.bbox for t in tables])
        rows = page_rows(text)
    return tables, text, rows


def _is_grid(table: PdfTable) -> bool:
    """A ruled box around a paragraph or a single row of cells is layout, not a table."""
    return len(table.rows) >= 2 and len(table.columns) >= 2


def _prose(text: Page, rows: list[Row]) -> _Prose:
    """The paragraphs of ``text`` (a page without its tables), whose ``page_rows`` are ``rows``."""
    lines = [
        _Line.of(raw)
        for region in reading_regions(text, rows)
        for raw in region.extract_text_lines(return_chars=True)
    ]
    lines = [line for line in lines if line.text]
    if not lines:
        return _Prose([], [], 0.0)
    body_size, body_bold = _body_style(lines)
    return _Prose(lines, _paragraphs(lines, body_size, body_bold), body_size)


def _outside(page: Page, boxes: Sequence[BBox]) -> Page:
    """The page without the characters inside ``boxes``."""
    return page.filter(lambda obj: obj.get("object_type") != "char" or not _inside(obj, boxes))


def _inside(obj: dict[str, Any], boxes: Sequence[BBox]) -> bool:
    x = (float(obj["x0"]) + float(obj["x1"])) / 2
    y = (float(obj["top"]) + float(obj["bottom"])) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _paragraphs(lines: list[_Line], body_size: float, body_bold: bool) -> list[_Paragraph]:
    def is_heading(line: _Line) -> bool:
        larger = line.size >= body_size * _HEADING_SIZE_RATIO
        return len(line.text) <= 120 and (larger or (line.bold and not body_bold))

    groups: list[list[_Line]] = []
    for line in lines:
        previous = groups[-1][-1] if groups else None
        if previous is None or _breaks(previous, line, is_heading):
            groups.append([line])
        else:
            groups[-1].append(line)
    return [_Paragraph(tuple(g), all(is_heading(line) for line in g)) for g in groups]


def _body_style(lines: list[_Line]) -> tuple[float, bool]:
    """The font size and boldness carrying the most characters on the page."""
    weight: dict[tuple[float, bool], int] = {}
    for line in lines:
        key = (round(line.size * 2) / 2, line.bold)
        weight[key] = weight.get(key, 0) + len(line.text)
    return max(weight, key=lambda key: weight[key])


def _breaks(previous: _Line, line: _Line, is_heading: Callable[[_Line], bool]) -> bool:
    height = max(previous.bottom - previous.top, 1.0)
    pitch = line.top - previous.top
    resized = abs(line.size - previous.size) > 0.15 * max(line.size, previous.size)
    return (
        pitch <= 0  # the next column, or a line above: reading order restarted
        or pitch > _PARAGRAPH_PITCH * height
        or resized
        or is_heading(line) != is_heading(previous)
    )


def _join_lines(texts: Iterable[str]) -> str:
    """Join wrapped lines: no space between two CJK characters, one space elsewhere."""
    joined = ""
    for text in texts:
        if joined and not (_is_cjk(joined[-1]) and _is_cjk(text[0])):
            joined += " "
        joined += text
    return joined


def _is_cjk(char: str) -> bool:
    return (
        "\u2e80" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or "\uff00" <= char <= "\uffef"
    )


def _table(table: PageTable, prefix: str, prose: _Prose, carried_heading: str) -> Table:
    """The title is the nearest line above; the context, paragraphs close above or below."""
    _, top, _, bottom = table.bbox
    above = [line for line in prose.lines if line.bottom <= top + 1]
    title = max(above, key=lambda line: line.bottom).text if above else carried_heading
    reach = _CONTEXT_LINES * 1.2 * prose.body_size

    def gap(p: _Paragraph) -> float:
        return max(0.0, top - p.bottom, p.top - bottom)

    near = sorted((p for p in prose.paragraphs if gap(p) <= reach), key=gap)
    context = [p.text for p in near if p.text != title]
    headings = [p.text for p in prose.paragraphs if p.heading and p.bottom <= top + 1]
    governing = headings[-1] if headings else carried_heading
    if governing and governing != title and governing not in context:
        context.append(governing)
    return Table(table.cells, prefix, LocatorStyle.GRID, title, tuple(context))


def _grid(table: PdfTable) -> tuple[tuple[Cell, ...], ...]:
    """The table's grid; a position covered by a spanning cell repeats that cell's text."""
    texts = table.extract()
    rows = [row.cells for row in table.rows]
    columns = [column.cells for column in table.columns]
    origin: dict[BBox, tuple[int, int]] = {}
    for r, row in enumerate(rows):
        for c, bbox in enumerate(row):
            if bbox is not None:
                origin[bbox] = (r, c)
    covered: dict[tuple[int, int], tuple[int, int]] = {}
    for r, row in enumerate(rows):
        for c, bbox in enumerate(row):
            if bbox is None and c < len(columns):
                span = _covering(_centre(row, columns[c]), origin)
                if span is not None:
                    covered[(r, c)] = covered[span] = span

    def cell(r: int, c: int) -> Cell:
        source_r, source_c = covered.get((r, c), (r, c))
        text = (texts[source_r][source_c] or "").strip()
        return Cell(row=r, col=c, text=text, merged=(r, c) in covered)

    return tuple(tuple(cell(r, c) for c in range(len(row))) for r, row in enumerate(rows))


def _centre(row: Sequence[BBox | None], column: Sequence[BBox | None]) -> tuple[float, float]:
    """Centre of one grid position: the row's and column's narrowest extents meet there."""
    in_row = [b for b in row if b is not None]
    in_column = [b for b in column if b is not None]
    x = (min(b[0] for b in in_column) + min(b[2] for b in in_column)) / 2
    y = (min(b[1] for b in in_row) + min(b[3] for b in in_row)) / 2
    return x, y


def _covering(
    point: tuple[float, float], cells: dict[BBox, tuple[int, int]]
) -> tuple[int, int] | None:
    x, y = point
    for (x0, top, x1, bottom), position in cells.items():
        if x0 <= x <= x1 and top <= y <= bottom:
            return position
    return None
