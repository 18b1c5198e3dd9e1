"""Number a document's text the way its headings divide it (docx, markdown, plain text).

Each heading starts a section (``section=s,heading``); the paragraphs under it count from 1
(``section=s,para=i``); text before the first heading is section 0. A table is named by the
caption directly above it ("表1 …", "Table 2 …") or else by its section heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from ragspine.ingestion.model import Cell, ExtractedDocument, LocatorStyle, Table, TextBlock

_CAPTION = re.compile(r"^\s*(表\s*[0-9一二三四五六七八九十]|table\s+[0-9ivx]+\b)", re.IGNORECASE)
_CONTEXT_PARAGRAPHS = 2  # how many paragraphs above a table may describe it


class TableNumbering(StrEnum):
    DOCUMENT = "document"  # table=k, counted through the whole document (docx)
    SECTION = "section"  # section=s,table=k, counted within the section (markdown)


@dataclass
class SectionWriter:
    """Appends blocks and tables to ``document`` with section-based locators."""

    document: ExtractedDocument
    section: int = 0
    heading_text: str = ""
    paragraphs: int = 0
    tables_in_section: int = 0
    tables_in_document: int = 0
    # Paragraphs since the last heading or table, newest last: what a table's caption and
    # context are taken from.
    recent: list[str] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.section += 1
        self.heading_text = text
        self.paragraphs = 0
        self.tables_in_section = 0
        self.recent = []
        locator = f"section={self.section},heading"
        self.document.blocks.append(TextBlock(text, locator, "heading", text))
        if not self.document.title:
            self.document.title = text

    def paragraph(self, text: str) -> None:
        self.paragraphs += 1
        locator = f"section={self.section},para={self.paragraphs}"
        self.document.blocks.append(TextBlock(text, locator, "paragraph", self.heading_text))
        self.recent.append(text)

    def table(self, cells: tuple[tuple[Cell, ...], ...], numbering: TableNumbering) -> None:
        self.tables_in_section += 1
        self.tables_in_document += 1
        if numbering is TableNumbering.SECTION:
            prefix = f"section={self.section},table={self.tables_in_section}"
        else:
            prefix = f"table={self.tables_in_document}"
        above = list(reversed(self.recent))
        caption = above[0] if above and _CAPTION.match(above[0]) else ""
        context = [text for text in above if text != caption][:_CONTEXT_PARAGRAPHS]
        if caption and self.heading_text:
            context.append(self.heading_text)
        title = caption or self.heading_text
        self.document.tables.append(Table(cells, prefix, LocatorStyle.GRID, title, tuple(context)))
        self.recent = []
