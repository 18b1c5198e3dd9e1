"""Write corpus documents (pptx, xlsx, docx, pdf, md) from their specs, byte-for-byte stable.

One module per format holds its document spec and its writer; ``frozen`` pins what would
otherwise vary between runs (timestamps, authors). This package gathers their names.
"""

from __future__ import annotations

from ragspine.demo.corpus_writers.deck import DeckSpec, SlideSpec, write_pptx
from ragspine.demo.corpus_writers.flow import (
    FlowSpec,
    Heading,
    Para,
    TableBlock,
    write_docx,
    write_md,
)
from ragspine.demo.corpus_writers.pdf import (
    PdfColumns,
    PdfImage,
    PdfScan,
    PdfSpec,
    PdfTable,
    PdfText,
    write_pdf,
)
from ragspine.demo.corpus_writers.workbook import SheetSpec, WorkbookSpec, write_xlsx

__all__ = [
    "DeckSpec",
    "FlowSpec",
    "Heading",
    "Para",
    "PdfColumns",
    "PdfImage",
    "PdfScan",
    "PdfSpec",
    "PdfTable",
    "PdfText",
    "SheetSpec",
    "SlideSpec",
    "TableBlock",
    "WorkbookSpec",
    "write_docx",
    "write_md",
    "write_pdf",
    "write_pptx",
    "write_xlsx",
]
