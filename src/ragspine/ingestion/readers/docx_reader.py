"""Read a Word document: headings divide it into sections of paragraphs and tables.

Page headers and footers, and text boxes, sit outside that flow and are read as parts of their
own (``header=1,…``, ``footer=1,…``, ``textbox=1,…``). The headers in force over a section
often name the entity or period its tables report, so they are every such table's last context.

Text formatted hidden (``w:vanish``, set on the run or inherited from its character or
paragraph style) is not what the document shows: it is removed before reading and its runs
counted, unless the reader is made with ``include_hidden``. Even then, a table cell that shows
text keeps only that text (a hidden "9,999" would otherwise run into a visible "2,710"), and
a cell whose text is all hidden is marked ``hidden``, so its figure never outranks a visible
one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import docx
from docx.document import Document as WordDocument
from docx.enum.section import WD_HEADER_FOOTER
from docx.exceptions import PythonDocxError
from docx.opc.exceptions import OpcError
from docx.opc.part import XmlPart
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.section import Section
from docx.shared import StoryChild
from docx.styles.style import ParagraphStyle
from docx.table import Table as DocxTable
from docx.table import _Cell as DocxCell
from docx.text.paragraph import Paragraph
from lxml import etree

from ragspine.ingestion.model import Cell, ExtractedDocument
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.sections import PartWriter, SectionWriter, TableNumbering
from ragspine.ingestion.safety import WorkBudget

_HEADING_STYLES = ("heading", "标题", "title")
_BODY_OUTLINE_LEVEL = 9  # Word's outline level for body text; 0-8 are heading levels
# A text box written by Word appears twice: as a DrawingML shape and, for old readers, as a
# VML copy inside mc:Fallback. Only the first is read.
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"

_Block = Paragraph | DocxTable


class DocxReader:
    """Headings/paragraphs (``section=s,…``) and GRID tables (``table=k``) in body order."""

    suffixes: tuple[str, ...] = (".docx",)

    def __init__(self, budget: WorkBudget | None = None, *, include_hidden: bool = False) -> None:
        self._budget = budget
        self._include_hidden = include_hidden

    def read(self, path: Path) -> ExtractedDocument:
        with bad_file_errors(
            path, "Word document", PythonDocxError, OpcError, etree.LxmlError, inside=("docx",)
        ):
            word = docx.Document(str(path))
            document = ExtractedDocument(path=path, title=word.core_properties.title or "")
            if self._include_hidden:
                _mark_hidden_cells(word)
            else:
                document.hidden = _drop_hidden_runs(word)
            _read_body(word, document, self._budget or WorkBudget(path))
            return document


# The parts whose text the reader reads: the body, page headers and footers.
_TEXT_PART = re.compile(r"^/word/(?:document|header\d*|footer\d*)\.xml$")
_OFF = ("0", "false", "off")


def _drop_hidden_runs(word: WordDocument) -> int:
    """Remove every hidden run from the parts read; how many of them held text."""
    styles = _HiddenStyles(word)
    dropped = 0
    for part in _text_parts(word):
        # A document without any vanish mark anywhere (nearly all) costs one search.
        if not styles.any and next(part.element.iter(qn("w:vanish")), None) is None:
            continue
        for run in list(part.element.iter(qn("w:r"))):
            if styles.hidden(run):
                dropped += bool("".join(run.itertext()).strip())
                run.getparent().remove(run)
    return dropped


# Set by ``_mark_hidden_cells`` on a table cell (``<w:tc>``) whose text is all hidden; an
# attribute of the in-memory tree only (the file is never written).
_HIDDEN_CELL = "{urn:ragspine}hidden"


def _mark_hidden_cells(word: WordDocument) -> None:
    """Read with hidden text: a table cell showing text loses its hidden runs, and a cell
    whose text is all hidden is marked with ``_HIDDEN_CELL``."""
    styles = _HiddenStyles(word)
    for part in _text_parts(word):
        if not styles.any and next(part.element.iter(qn("w:vanish")), None) is None:
            continue
        for tc in part.element.iter(qn("w:tc")):
            runs = [r for r in tc.iter(qn("w:r")) if "".join(r.itertext()).strip()]
            hidden = [r for r in runs if styles.hidden(r)]
            if not hidden:
                continue
            if len(hidden) == len(runs):
                tc.set(_HIDDEN_CELL, "1")
                continue
            for run in hidden:
                run.getparent().remove(run)


def _text_parts(word: WordDocument) -> Iterator[XmlPart]:
    """The parts whose text the reader reads (``_TEXT_PART``)."""
    for part in word.part.package.iter_parts():
        if _TEXT_PART.match(str(part.partname)) and isinstance(part, XmlPart):
            yield part


class _HiddenStyles:
    """Which character and paragraph styles hide their text (through their base styles)."""

    def __init__(self, word: WordDocument) -> None:
        self._hidden: dict[str, bool] = {}
        # A style hides text only through a ``w:vanish`` of its own or of a base style: with
        # none in the styles part (nearly every document) no style hides, and the lookups of
        # each style's base, a search of the styles part each, are not needed.
        if next(word.styles.element.iter(qn("w:vanish")), None) is not None:
            for style in word.styles:
                self._hidden[style.style_id] = _style_hides(style)
        self.any = any(self._hidden.values())

    def hidden(self, run: BaseOxmlElement) -> bool:
        direct = _vanish(run.find(qn("w:rPr")))
        if direct is not None:
            return direct
        rpr = run.find(qn("w:rPr"))
        run_style = rpr.find(qn("w:rStyle")) if rpr is not None else None
        if run_style is not None:
            return self._hidden.get(run_style.get(qn("w:val")) or "", False)
        paragraph = run.getparent()
        while paragraph is not None and paragraph.tag != qn("w:p"):
            paragraph = paragraph.getparent()  # a run inside a hyperlink or a field
        ppr = paragraph.find(qn("w:pPr")) if paragraph is not None else None
        para_style = ppr.find(qn("w:pStyle")) if ppr is not None else None
        return para_style is not None and self._hidden.get(para_style.get(qn("w:val")) or "", False)


def _vanish(rpr: BaseOxmlElement | None) -> bool | None:
    """True or False when ``rpr`` sets hidden, None when it leaves it to the style."""
    mark = rpr.find(qn("w:vanish")) if rpr is not None else None
    if mark is None:
        return None
    return mark.get(qn("w:val")) not in _OFF


def _style_hides(style: object) -> bool:
    while style is not None:
        element = getattr(style, "element", None)
        found = _vanish(element.find(qn("w:rPr")) if element is not None else None)
        if found is not None:
            return found
        style = getattr(style, "base_style", None)
    return False


def _read_body(word: WordDocument, document: ExtractedDocument, budget: WorkBudget) -> None:
    """The body in order; each section's new headers before it, its new footers after it."""
    writer = SectionWriter(document)
    margins = _Margins(document)
    styles = _ParagraphStyles()
    sections = iter(word.sections)
    section = next(sections, None)
    if section is not None:
        writer.context = margins.headers(section)
    boxes = 0
    for number, item in enumerate(word.iter_inner_content(), start=1):
        budget.tick(f"paragraph or table {number:,}")
        _write(item, writer, styles)
        for box in _text_boxes(item):
            boxes += 1
            part = PartWriter(
                document, f"textbox={boxes}", writer.heading_text, writer.surroundings
            )
            _write_part(box, part)
        if section is not None and _ends_section(item):
            margins.footers(section)
            section = next(sections, None)
            if section is not None:
                writer.context = margins.headers(section)
    if section is not None:
        margins.footers(section)


def _write(item: _Block, writer: SectionWriter, styles: _ParagraphStyles) -> None:
    if isinstance(item, DocxTable):
        writer.table(_grid(item), TableNumbering.DOCUMENT)
        return
    text = item.text.strip()
    if text and _is_heading(item, styles):
        writer.heading(" ".join(text.split()), _heading_level(item, styles))
    elif text:
        writer.paragraph(text)


def _write_part(items: Iterable[_Block], writer: PartWriter) -> None:
    for item in items:
        if isinstance(item, DocxTable):
            writer.table(_grid(item))
        elif text := item.text.strip():
            writer.paragraph(text)


def _ends_section(item: _Block) -> bool:
    """A paragraph carrying section properties is the last one of its section."""
    if isinstance(item, DocxTable):
        return False
    ppr = item._p.pPr
    return ppr is not None and ppr.sectPr is not None


def _text_boxes(item: _Block) -> Iterator[list[_Block]]:
    """The contents of each text box anchored in ``item``, in document order."""
    for content in item._element.iter(qn("w:txbxContent")):
        if next(content.iterancestors(_FALLBACK), None) is None:
            yield list(_children(content, item))


def _children(element: BaseOxmlElement, parent: StoryChild) -> Iterator[_Block]:
    for child in element:
        if child.tag == qn("w:p"):
            yield Paragraph(child, parent)
        elif child.tag == qn("w:tbl"):
            yield DocxTable(child, parent)


@dataclass
class _Margins:
    """Page headers and footers: each distinct one read once, and the headers in force."""

    document: ExtractedDocument
    read: dict[str, list[tuple[str, ...]]] = field(
        default_factory=lambda: {"header": [], "footer": []}
    )
    in_force: dict[WD_HEADER_FOOTER, tuple[str, ...]] = field(default_factory=dict)

    def headers(self, section: Section) -> tuple[str, ...]:
        """Read the section's own headers; return the header paragraphs in force over it."""
        variants = {
            WD_HEADER_FOOTER.PRIMARY: section.header,
            WD_HEADER_FOOTER.FIRST_PAGE: section.first_page_header,
            WD_HEADER_FOOTER.EVEN_PAGE: section.even_page_header,
        }
        for variant, header in variants.items():
            if not header.is_linked_to_previous:  # linked: the previous section's stays in force
                items = list(header.iter_inner_content())
                self._read("header", items)
                self.in_force[variant] = tuple(
                    text
                    for item in items
                    if isinstance(item, Paragraph)
                    if (text := item.text.strip())
                )
        return tuple(dict.fromkeys(text for texts in self.in_force.values() for text in texts))

    def footers(self, section: Section) -> None:
        for footer in (section.footer, section.first_page_footer, section.even_page_footer):
            if not footer.is_linked_to_previous:
                self._read("footer", list(footer.iter_inner_content()))

    def _read(self, kind: str, items: list[_Block]) -> None:
        content = tuple(_text(item) for item in items)
        seen = self.read[kind]
        if not any(content) or content in seen:
            return
        seen.append(content)
        _write_part(items, PartWriter(self.document, f"{kind}={len(seen)}"))


def _text(item: _Block) -> str:
    if isinstance(item, Paragraph):
        return item.text.strip()
    return "\t".join(cell.text.strip() for row in item.rows for cell in row.cells)


class _ParagraphStyles:
    """Each paragraph style's lower-cased name and inherited outline level, looked up once
    per document: python-docx searches the whole styles part for a paragraph's style, and
    again for each base style, every time it is asked."""

    def __init__(self) -> None:
        self._seen: dict[str | None, tuple[str, int | None]] = {}

    def of(self, paragraph: Paragraph) -> tuple[str, int | None]:
        """The name and outline level of ``paragraph.style`` (its id's, or the default's)."""
        style_id = paragraph._p.style
        if style_id not in self._seen:
            style = paragraph.style
            name = (style.name or "").strip().lower() if style is not None else ""
            self._seen[style_id] = (name, _style_outline_level(style))
        return self._seen[style_id]


def _is_heading(paragraph: Paragraph, styles: _ParagraphStyles) -> bool:
    name, _ = styles.of(paragraph)
    if name.startswith(_HEADING_STYLES):
        return True
    level = _outline_level(paragraph, styles)
    return level is not None and level < _BODY_OUTLINE_LEVEL


def _heading_level(paragraph: Paragraph, styles: _ParagraphStyles) -> int:
    """1 for the outermost heading: from the outline level, else the style ("Heading 2")."""
    level = _outline_level(paragraph, styles)
    if level is not None and level < _BODY_OUTLINE_LEVEL:
        return level + 1
    name, _ = styles.of(paragraph)
    if name.startswith("title"):
        return 0
    digits = "".join(ch for ch in name if ch.isdigit())
    return int(digits) if digits else 1


def _outline_level(paragraph: Paragraph, styles: _ParagraphStyles) -> int | None:
    """The paragraph's outline level, set on it directly or inherited through its styles."""
    ppr = paragraph._p.pPr
    if ppr is not None and ppr.outlineLvl is not None:
        return int(ppr.outlineLvl.val)
    return styles.of(paragraph)[1]


def _style_outline_level(style: ParagraphStyle | None) -> int | None:
    """The outline level a paragraph style sets, itself or through its base styles."""
    while style is not None:
        ppr = style.element.pPr
        if ppr is not None and ppr.outlineLvl is not None:
            return int(ppr.outlineLvl.val)
        style = style.base_style
    return None


def _grid(table: DocxTable) -> tuple[tuple[Cell, ...], ...]:
    """The layout grid; a merged cell appears at each position it covers, marked ``merged``."""
    rows: list[list[DocxCell | None]] = [
        [None] * row.grid_cols_before + list(row.cells) + [None] * row.grid_cols_after
        for row in table.rows
    ]
    width = max((len(row) for row in rows), default=0)
    # python-docx hands back the same <w:tc> element for every grid position a merged cell
    # spans (across for gridSpan, down for vMerge); those elements stay alive in ``rows``, so
    # their ids are stable keys.
    spans = Counter(id(cell._tc) for row in rows for cell in row if cell is not None)
    return tuple(
        tuple(
            Cell(
                row=r,
                col=c,
                text=cell.text.strip() if cell is not None else "",
                merged=cell is not None and spans[id(cell._tc)] > 1,
                hidden=cell is not None and cell._tc.get(_HIDDEN_CELL) is not None,
            )
            for c, cell in enumerate(row + [None] * (width - len(row)))
        )
        for r, row in enumerate(rows)
    )
