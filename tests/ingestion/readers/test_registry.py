from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.errors import IngestError
from ragspine.ingestion.readers import SUPPORTED_SUFFIXES, reader_for


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("deck.pptx", "PptxReader"),
        ("DECK.PPTX", "PptxReader"),
        ("book.xlsx", "XlsxReader"),
        ("macro.xlsm", "XlsxReader"),
        ("report.Pdf", "PdfReader"),
        ("memo.docx", "DocxReader"),
        ("notes.md", "TextReader"),
        ("notes.markdown", "TextReader"),
        ("notes.txt", "TextReader"),
    ],
)
def test_reader_for_picks_by_suffix_case_insensitively(name: str, reader: str) -> None:
    assert type(reader_for(Path(name))).__name__ == reader


def test_every_supported_suffix_maps_to_a_reader_claiming_it() -> None:
    for suffix in SUPPORTED_SUFFIXES:
        assert suffix in reader_for(Path(f"x{suffix}")).suffixes


@pytest.mark.parametrize("name", ["deck.ppt", "book.xls", "archive.zip", "README"])
def test_unsupported_suffix_names_the_file(name: str) -> None:
    with pytest.raises(IngestError, match=rf"^{name}: unsupported file type .*; supported: \.pptx"):
        reader_for(Path(name))
