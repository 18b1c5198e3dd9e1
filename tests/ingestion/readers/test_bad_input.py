"""Every bad file fails alone, with an IngestError that names it — through the safety checks
and, where the format library can tell, through the reader on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from ragspine.errors import IngestError
from ragspine.ingestion.readers import read_document, reader_for
from ragspine.ingestion.safety import SafetyLimits
from tests.ingestion.readers.samples import OLE_HEADER, PNG_HEADER, make, truncate

OFFICE_AND_PDF = [".pptx", ".xlsx", ".docx", ".pdf"]


def _fails(path: Path, reason: str, limits: SafetyLimits | None = None) -> str:
    with pytest.raises(IngestError) as caught:
        read_document(path, limits)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert reason in message, message
    return message


def _reader_fails(path: Path, reason: str = "") -> None:
    """The reader alone (no safety checks first) still refuses the file, naming it."""
    with pytest.raises(IngestError) as caught:
        reader_for(path).read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert reason in message, message


@pytest.mark.parametrize("suffix", [*OFFICE_AND_PDF, ".md", ".txt"])
def test_valid_files_read(tmp_path: Path, suffix: str) -> None:
    document = read_document(make(tmp_path / f"ok{suffix}"))
    assert document.blocks or document.tables


@pytest.mark.parametrize("suffix", [*OFFICE_AND_PDF, ".md"])
def test_zero_byte(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    _fails(path, "empty file (0 bytes)")


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx"])
def test_truncated_office_file(tmp_path: Path, suffix: str) -> None:
    path = truncate(make(tmp_path / f"cut{suffix}"))
    _fails(path, "truncated or corrupt ZIP package")
    _reader_fails(path, "not a readable")


def test_truncated_pdf(tmp_path: Path) -> None:
    path = truncate(make(tmp_path / "cut.pdf"))
    _fails(path, "truncated PDF")
    _reader_fails(path, "not a readable PDF")


def test_png_renamed_to_pdf(tmp_path: Path) -> None:
    path = tmp_path / "photo.pdf"
    path.write_bytes(PNG_HEADER + bytes(64))
    _fails(path, "content is PNG, not PDF")
    _reader_fails(path, "not a readable PDF")


def test_docx_renamed_to_pptx(tmp_path: Path) -> None:
    path = make(tmp_path / "memo.docx").rename(tmp_path / "memo.pptx")
    _fails(path, "content is DOCX, not PPTX")
    _reader_fails(path, "not a readable PowerPoint deck")


def test_pptx_renamed_to_docx_fails_in_the_reader_too(tmp_path: Path) -> None:
    path = make(tmp_path / "deck.pptx").rename(tmp_path / "deck.docx")
    _reader_fails(path, "not a readable Word document")


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx"])
def test_password_protected_office_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"locked{suffix}"
    path.write_bytes(OLE_HEADER)
    _fails(path, "password-protected or encrypted Office file")
    _reader_fails(path)


def test_encrypted_pdf(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    pdf = canvas.Canvas(str(path), encrypt="secret")
    pdf.drawString(72, 750, "Confidential")
    pdf.save()
    _fails(path, "encrypted PDF")


def test_oversized(tmp_path: Path) -> None:
    _fails(make(tmp_path / "deck.pptx"), "oversized", SafetyLimits(max_bytes=1000))


def test_zip_bomb_is_refused_before_reading(tmp_path: Path) -> None:
    path = make(tmp_path / "book.xlsx")
    _fails(path, "zip bomb suspected", SafetyLimits(max_zip_entries=3))


def test_unsupported_suffix_lists_supported_types(tmp_path: Path) -> None:
    path = tmp_path / "slides.key"
    path.write_bytes(b"keynote")
    message = _fails(path, "unsupported file type '.key'")
    assert "supported: .pptx, .xlsx, .xlsm, .pdf, .docx, .md, .markdown, .txt" in message


def test_missing_file_fails_in_every_reader(tmp_path: Path) -> None:
    for suffix in [*OFFICE_AND_PDF, ".txt"]:
        _reader_fails(tmp_path / f"gone{suffix}", "not a readable")
