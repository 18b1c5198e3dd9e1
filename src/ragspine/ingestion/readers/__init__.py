"""Readers turn one file format into tables, text blocks and issues (``ingestion.model``).

``reader_for(path)`` picks the reader by suffix; ``read_document(path)`` runs the safety checks
first and then reads. Each reader imports its format library only when first chosen, so
importing this package stays cheap for code that never ingests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ragspine.errors import IngestError
from ragspine.ingestion.model import ExtractedDocument, Reader
from ragspine.ingestion.safety import SafetyLimits, WorkBudget, check_file


def _pptx(budget: WorkBudget | None, include_hidden: bool) -> Reader:
    from ragspine.ingestion.readers.pptx_reader import PptxReader

    return PptxReader(budget, include_hidden=include_hidden)


def _xlsx(budget: WorkBudget | None, include_hidden: bool) -> Reader:
    from ragspine.ingestion.readers.xlsx_reader import XlsxReader

    return XlsxReader(budget, include_hidden=include_hidden)


def _pdf(budget: WorkBudget | None, include_hidden: bool) -> Reader:
    from ragspine.ingestion.readers.pdf_reader import PdfReader

    return PdfReader(budget)


def _docx(budget: WorkBudget | None, include_hidden: bool) -> Reader:
    from ragspine.ingestion.readers.docx_reader import DocxReader

    return DocxReader(budget, include_hidden=include_hidden)


def _text(budget: WorkBudget | None, include_hidden: bool) -> Reader:
    from ragspine.ingestion.readers.text_reader import TextReader

    return TextReader(budget)


# PDF and text files hide nothing a reader of the file could not see, so their readers take
# no ``include_hidden``.
_FACTORIES: dict[str, Callable[[WorkBudget | None, bool], Reader]] = {
    ".pptx": _pptx,
    ".xlsx": _xlsx,
    ".xlsm": _xlsx,
    ".pdf": _pdf,
    ".docx": _docx,
    ".md": _text,
    ".markdown": _text,
    ".txt": _text,
}

SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(_FACTORIES)


def reader_for(
    path: str | Path, budget: WorkBudget | None = None, *, include_hidden: bool = False
) -> Reader:
    """The reader for ``path``'s suffix (case-insensitive); ``IngestError`` if none.

    The reader keeps to ``budget`` (default: ``SafetyLimits()``'s, counted from the read) and
    skips hidden sheets, rows, columns, slides and text unless ``include_hidden``.
    """
    path = Path(path)
    factory = _FACTORIES.get(path.suffix.lower())
    if factory is None:
        kind = f"'{path.suffix}'" if path.suffix else "(no suffix)"
        supported = ", ".join(SUPPORTED_SUFFIXES)
        raise IngestError(f"{path}: unsupported file type {kind}; supported: {supported}")
    return factory(budget, include_hidden)


def read_document(
    path: str | Path, limits: SafetyLimits | None = None, *, include_hidden: bool = False
) -> ExtractedDocument:
    """Check ``path`` against ``limits`` (size, real format, zip bombs), then read it within
    them (cells, rows, pages, characters, time)."""
    path = Path(path)
    reader = reader_for(
        path, WorkBudget(path, limits or SafetyLimits()), include_hidden=include_hidden
    )
    check_file(path, limits)
    return reader.read(path)


__all__ = ["SUPPORTED_SUFFIXES", "read_document", "reader_for"]
