"""Number a document's text the way its headings divide it (docx, markdown, plain text).

Each heading starts a section (``section=s,heading``); the paragraphs under it count from 1
(``section=s,para=i``); text before the first heading is section 0. A table is named by the
caption directly above it ("表1 …", "Table 2 …") or else by its section heading. Text outside
the flow of headings (a Word page header, footer or text box) is numbered within its own part
instead (``header=h,para=i``, ``textbox=b,table=k``).
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
    # Text in force over the stretch being written (a Word section's page headers): the last,
    # farthest context of every table.
    context: tuple[str, ...] = ()
    # The headings the current one sits under, (level, text) from the outermost in: "North"
    # above "Key figures" names the entity that section's tables leave out.
    enclosing: list[tuple[int, str]] = field(default_factory=list)
    _level: int = 1

    def heading(self, text: str, level: int = 1) -> None:
        """Start a section; ``level`` (1 = outermost) says which open headings enclose it."""
        if self.heading_text:
            self.enclosing.append((self._level, self.heading_text))
        while self.enclosing and self.enclosing[-1][0] >= level:
            self.enclosing.pop()
        self._level = level
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
        table = _named(cells, prefix, self.recent, self.heading_text, self.surroundings)
        self.document.tables.append(table)
        self.recent = []

    @property
    def surroundings(self) -> tuple[str, ...]:
        """The enclosing headings, innermost first, then the context in force."""
        return (*(text for _, text in reversed(self.enclosing)), *self.context)


@dataclass
class PartWriter:
    """Appends the blocks and tables of one part outside the headings (``part`` = "header=1").

    ``title`` is the heading its blocks sit under; ``context`` as for ``SectionWriter``.
    """

    document: ExtractedDocument
    part: str
    title: str = ""
    context: tuple[str, ...] = ()
    paragraphs: int = 0
    tables: int = 0
    recent: list[str] = field(default_factory=list)

    def paragraph(self, text: str) -> None:
        self.paragraphs += 1
        locator = f"{self.part},para={self.paragraphs}"
        self.document.blocks.append(TextBlock(text, locator, "paragraph", self.title))
        self.recent.append(text)

    def table(self, cells: tuple[tuple[Cell, ...], ...]) -> None:
        self.tables += 1
        prefix = f"{self.part},table={self.tables}"
        table = _named(cells, prefix, self.recent, self.title, self.context)
        self.document.tables.append(table)
        self.recent = []


def _named(
    cells: tuple[tuple[Cell, ...], ...],
    prefix: str,
    recent: list[str],
    heading: str,
    farthest: tuple[str, ...],
) -> Table:
    """A table titled by the caption right above it, else by its heading."""
    above = list(reversed(recent))
    caption = above[0] if above and _CAPTION.match(above[0]) else ""
    context = [text for text in above if text != caption][:_CONTEXT_PARAGRAPHS]
    if caption and heading:
        context.append(heading)
    title = caption or heading
    context += [text for text in farthest if text != title and text not in context]
    return Table(cells, prefix, LocatorStyle.GRID, title, tuple(context))
