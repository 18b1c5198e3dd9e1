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
from ragspine.ingestion.safety import SafetyLimits, check_file


def _pptx() -> Reader:
    from ragspine.ingestion.readers.pptx_reader import PptxReader

    return PptxReader()


def _xlsx() -> Reader:
    from ragspine.ingestion.readers.xlsx_reader import XlsxReader

    return XlsxReader()


def _pdf() -> Reader:
    from ragspine.ingestion.readers.pdf_reader import PdfReader

    return PdfReader()


def _docx() -> Reader:
    from ragspine.ingestion.readers.docx_reader import DocxReader

    return DocxReader()


def _text() -> Reader:
    from ragspine.ingestion.readers.text_reader import TextReader

    return TextReader()


_FACTORIES: dict[str, Callable[[], Reader]] = {
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


def reader_for(path: str | Path) -> Reader:
    """The reader for ``path``'s suffix (case-insensitive); ``IngestError`` if none."""
    path = Path(path)
    factory = _FACTORIES.get(path.suffix.lower())
    if factory is None:
        kind = f"'{path.suffix}'" if path.suffix else "(no suffix)"
        supported = ", ".join(SUPPORTED_SUFFIXES)
        raise IngestError(f"{path}: unsupported file type {kind}; supported: {supported}")
    return factory()


def read_document(path: str | Path, limits: SafetyLimits | None = None) -> ExtractedDocument:
    """Check ``path`` against ``limits`` (size, real format, zip bombs), then read it."""
    path = Path(path)
    reader = reader_for(path)
    check_file(path, limits)
    return reader.read(path)


__all__ = ["SUPPORTED_SUFFIXES", "read_document", "reader_for"]
