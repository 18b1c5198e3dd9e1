"""Read a Word document: headings divide it into sections of paragraphs and tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import docx
from docx.exceptions import PythonDocxError
from docx.opc.exceptions import OpcError
from docx.table import Table as DocxTable
from docx.table import _Cell as DocxCell
from docx.text.paragraph import Paragraph
from lxml import etree

from ragspine.ingestion.model import Cell, ExtractedDocument
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.sections import SectionWriter, TableNumbering

_HEADING_STYLES = ("heading", "标题", "title")
_BODY_OUTLINE_LEVEL = 9  # Word's outline level for body text; 0-8 are heading levels


class DocxReader:
    """Headings/paragraphs (``section=s,…``) and GRID tables (``table=k``) in body order."""

    suffixes: tuple[str, ...] = (".docx",)

    def read(self, path: Path) -> ExtractedDocument:
        with bad_file_errors(path, "Word document", PythonDocxError, OpcError, etree.LxmlError):
            word = docx.Document(str(path))
            document = ExtractedDocument(path=path, title=word.core_properties.title or "")
            writer = SectionWriter(document)
            for item in word.iter_inner_content():
                if isinstance(item, DocxTable):
                    writer.table(_grid(item), TableNumbering.DOCUMENT)
                    continue
                text = item.text.strip()
                if text and _is_heading(item):
                    writer.heading(" ".join(text.split()))
                elif text:
                    writer.paragraph(text)
            return document


def _is_heading(paragraph: Paragraph) -> bool:
    style = paragraph.style
    name = (style.name or "").strip().lower() if style is not None else ""
    if name.startswith(_HEADING_STYLES):
        return True
    level = _outline_level(paragraph)
    return level is not None and level < _BODY_OUTLINE_LEVEL


def _outline_level(paragraph: Paragraph) -> int | None:
    """The paragraph's outline level, set on it directly or inherited through its styles."""
    ppr = paragraph._p.pPr
    if ppr is not None and ppr.outlineLvl is not None:
        return int(ppr.outlineLvl.val)
    style = paragraph.style
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
            )
            for c, cell in enumerate(row + [None] * (width - len(row)))
        )
        for r, row in enumerate(rows)
    )
