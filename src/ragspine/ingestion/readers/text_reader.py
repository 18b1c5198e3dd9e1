"""Read Markdown and plain text: blank lines end paragraphs; in Markdown, ``#`` headings start
sections and pipe tables become tables.

A Markdown table is named by the caption above it or its section's heading, and the headings
it sits under ("# Northern region" above "## Key figures") are its farthest context, nearest
first: they often name the entity or period the table itself leaves out.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from ragspine.errors import IngestError
from ragspine.ingestion.model import Cell, ExtractedDocument
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.ingestion.readers.sections import SectionWriter, TableNumbering
from ragspine.ingestion.safety import WorkBudget

# The heading's text is cut by ``_heading_title``: a regex with a lazy title and an optional
# closing sequence backtracked over every run of spaces in the line (cubic on a long line).
_HEADING = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Possessive: no run of spaces or dashes is ever given back (a failing row is read once).
_DELIMITER_ROW = re.compile(r"\s*+\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*+$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_EMPHASIS = re.compile(r"\*\*|__|`")
_MARKDOWN_SUFFIXES = (".md", ".markdown")


class TextReader:
    """Paragraphs (``section=s,para=i``); Markdown adds headings and ``section=s,table=k``."""

    suffixes: tuple[str, ...] = (*_MARKDOWN_SUFFIXES, ".txt")

    def __init__(self, budget: WorkBudget | None = None) -> None:
        self._budget = budget

    def read(self, path: Path) -> ExtractedDocument:
        with bad_file_errors(path, "text file"):
            data = path.read_bytes()
        document = ExtractedDocument(path=path)
        writer = SectionWriter(document)
        text = _decode(path, data)
        (self._budget or WorkBudget(path)).characters(len(text))
        lines = text.splitlines()
        if path.suffix.lower() in _MARKDOWN_SUFFIXES:
            _markdown(lines, writer)
        else:
            for paragraph in _blank_separated(lines):
                writer.paragraph(paragraph)
        return document


def _decode(path: Path, data: bytes) -> str:
    """UTF-8 (with or without BOM), UTF-16 with a BOM, else GB18030 (common for Chinese)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encodings: tuple[tuple[str, str], ...] = (("utf-16", "UTF-16"),)
    else:
        encodings = (("utf-8-sig", "UTF-8"), ("gb18030", "GB18030"))
    for codec, _ in encodings:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            raise IngestError(f"{path}: binary content (NUL characters), not text")
        return text
    names = " or ".join(name for _, name in encodings)
    raise IngestError(f"{path}: cannot decode text as {names}")


def _blank_separated(lines: list[str]) -> list[str]:
    paragraphs: list[str] = []
    current: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            paragraphs.append("\n".join(current).strip())
            current = []
    return paragraphs


def _markdown(lines: list[str], writer: SectionWriter) -> None:
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            writer.paragraph("\n".join(paragraph).strip())
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        heading = _HEADING.match(line)
        if fence:  # a code block is one paragraph; "#" lines inside it are not headings
            flush()
            end = _fence_end(lines, i, fence.group(1))
            writer.paragraph("\n".join(lines[i:end]).strip())
            i = end
            continue
        if heading:
            flush()
            title = _plain(_heading_title(line[heading.end() :]))
            if title:  # a bare "#" is an empty heading: nothing to name a section with
                writer.heading(title, level=len(heading.group(1)))
        elif _table_starts(lines, i):
            flush()
            end = i + 2
            while end < len(lines) and "|" in lines[end] and lines[end].strip():
                end += 1
            writer.table(_table(lines[i], lines[i + 2 : end]), TableNumbering.SECTION)
            i = end
            continue
        elif line.strip():
            paragraph.append(line.rstrip())
        else:
            flush()
        i += 1
    flush()


def _heading_title(rest: str) -> str:
    """The text after a heading's ``#`` marks, without its closing sequence: "Title ##" reads
    "Title", while "Title#" and a lone "##" are the text itself."""
    body = rest.strip(" \t")
    text = body.rstrip("#")
    if text != body and text[-1:] in (" ", "\t"):
        return text.rstrip(" \t")
    return body


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """Index just past the fence that closes the block opened at ``start`` (or the end)."""
    for j in range(start + 1, len(lines)):
        if lines[j].strip().startswith(marker[0] * len(marker)):
            return j + 1
    return len(lines)


def _table_starts(lines: list[str], i: int) -> bool:
    """A pipe row followed by a delimiter row such as ``| --- | :---: |``."""
    return (
        "|" in lines[i]
        and i + 1 < len(lines)
        and "|" in lines[i + 1]
        and _DELIMITER_ROW.match(lines[i + 1]) is not None
    )


def _table(header: str, body: list[str]) -> tuple[tuple[Cell, ...], ...]:
    names = _row_cells(header)
    rows = [names] + [(_row_cells(line) + [""] * len(names))[: len(names)] for line in body]
    return tuple(
        tuple(Cell(row=r, col=c, text=text) for c, text in enumerate(row))
        for r, row in enumerate(rows)
    )


def _row_cells(line: str) -> list[str]:
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [_plain(part.replace("\\|", "|")) for part in _CELL_SPLIT.split(inner)]


def _plain(text: str) -> str:
    """Text without bold/code markers, as a reader sees it ("**1,320**" reads "1,320")."""
    return _EMPHASIS.sub("", text).strip()
