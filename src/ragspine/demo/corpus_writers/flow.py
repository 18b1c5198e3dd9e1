"""The docx and markdown corpus documents: headings, paragraphs and tables in reading order."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from ragspine.demo.corpus_model import STYLE_GRID, PlacedTable, TableSpec
from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 1


@dataclass(frozen=True)
class Para:
    """A paragraph; ``instruction`` marks one planted with text written to steer a model, which
    ingestion must hold behind a ``suspicious_instruction`` review item."""

    text: str
    instruction: bool = False


@dataclass(frozen=True)
class TableBlock:
    table: TableSpec


Block = Heading | Para | TableBlock


@dataclass(frozen=True)
class FlowSpec:
    """A docx or markdown document: headings, paragraphs and tables in order; a docx may
    carry a line in its page header (markdown has none)."""

    blocks: tuple[Block, ...]
    page_header: str = ""

    def placed_tables(self, style_prefix: str) -> list[PlacedTable]:
        """docx: ``table=T`` in document order; md: ``section=S,table=T`` (S = headings so far,
        T = tables so far within that section)."""
        placed: list[PlacedTable] = []
        sections = 0
        in_section = 0
        for block in self.blocks:
            if isinstance(block, Heading):
                sections += 1
                in_section = 0
            elif isinstance(block, TableBlock):
                in_section += 1
                if style_prefix == "md":
                    prefix = f"section={sections},table={in_section}"
                else:
                    prefix = f"table={len(placed) + 1}"
                placed.append(PlacedTable(block.table, prefix, STYLE_GRID))
        return placed

    def instruction_locators(self) -> list[str]:
        """The block locators of the paragraphs marked ``instruction``: ``section=S,para=P``
        (S = headings so far, 0 before the first; P = paragraphs so far in that section)."""
        locators: list[str] = []
        section = paragraph = 0
        for block in self.blocks:
            if isinstance(block, Heading):
                section += 1
                paragraph = 0
            elif isinstance(block, Para):
                paragraph += 1
                if block.instruction:
                    locators.append(f"section={section},para={paragraph}")
        return locators

    def title(self) -> str:
        return next((b.text for b in self.blocks if isinstance(b, Heading)), "")

    def all_text(self) -> str:
        parts: list[str] = [self.page_header] if self.page_header else []
        for b in self.blocks:
            if isinstance(b, TableBlock):
                parts += [" ".join(r) for r in b.table.grid_text()]
            else:
                parts.append(b.text)
        return "\n".join(parts)


def write_docx(path: Path, flow: FlowSpec) -> None:
    from docx import Document

    document = Document()
    props = document.core_properties
    props.title = flow.title()
    props.author = AUTHOR
    props.last_modified_by = AUTHOR
    props.revision = 1
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.last_printed = FIXED_TIME
    if flow.page_header:
        document.sections[0].header.paragraphs[0].text = flow.page_header
    for block in flow.blocks:
        if isinstance(block, Heading):
            document.add_heading(block.text, level=block.level)
        elif isinstance(block, Para):
            document.add_paragraph(block.text)
        else:
            grid = block.table.grid_text()
            table = document.add_table(rows=len(grid), cols=len(grid[0]))
            table.style = "Table Grid"
            for r, cells in enumerate(grid):
                for c, text in enumerate(cells):
                    table.cell(r, c).text = text
            for r0, c0, r1, c1 in block.table.merges:
                table.cell(r0, c0).merge(table.cell(r1, c1))
    buffer = io.BytesIO()
    document.save(buffer)
    write_bytes(path, frozen_zip(buffer.getvalue()))


def write_md(path: Path, flow: FlowSpec) -> None:
    lines: list[str] = []
    for block in flow.blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Para):
            lines += [block.text, ""]
        else:
            grid = block.table.grid_text()
            lines.append("| " + " | ".join(grid[0]) + " |")
            lines.append("|" + "|".join("---" for _ in grid[0]) + "|")
            lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
            lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8", newline="\n")
