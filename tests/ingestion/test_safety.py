from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from ragspine.errors import IngestError
from ragspine.ingestion.safety import SafetyLimits, check_file, sniff
from tests.ingestion.readers.samples import (
    OLE_HEADER,
    PNG_HEADER,
    make,
    make_docx,
    office_zip,
    truncate,
)

MiB = 1024 * 1024


def _rejects(path: Path, reason: str, **limits: int) -> None:
    with pytest.raises(IngestError) as caught:
        check_file(path, **limits)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert reason in message, message


def test_default_limits() -> None:
    assert SafetyLimits() == SafetyLimits(100 * MiB, 200 * MiB, 5000, 200.0)


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx", ".pdf", ".md", ".txt", ".csv"])
def test_valid_files_pass(tmp_path: Path, suffix: str) -> None:
    check_file(make(tmp_path / f"sample{suffix}"))


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx", ".pdf", ".md"])
def test_zero_byte_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    _rejects(path, "empty file (0 bytes)")


def test_oversized_file_by_keyword_or_limits(tmp_path: Path) -> None:
    path = make(tmp_path / "big.pdf")
    size = path.stat().st_size
    _rejects(path, f"oversized: {size} bytes > limit 100 bytes", max_bytes=100)
    with pytest.raises(IngestError, match="oversized"):
        check_file(path, SafetyLimits(max_bytes=100))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    _rejects(tmp_path / "gone.pdf", "file not found")
    folder = tmp_path / "folder.pdf"
    folder.mkdir()
    _rejects(folder, "not a regular file")


def test_png_renamed_to_pdf(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(PNG_HEADER + b"\x00" * 100)
    _rejects(path, "content is PNG, not PDF")


def test_pdf_header_must_appear_in_the_first_kilobyte(tmp_path: Path) -> None:
    late = tmp_path / "late.pdf"
    late.write_bytes(b" " * 2000 + b"%PDF-1.4\n%%EOF\n")
    _rejects(late, "no %PDF- header in the first 1024 bytes")
    early = tmp_path / "early.pdf"
    early.write_bytes(b" " * 500 + b"%PDF-1.4\n%%EOF\n")
    check_file(early)


def test_truncated_pdf(tmp_path: Path) -> None:
    _rejects(truncate(make(tmp_path / "cut.pdf")), "truncated PDF")


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx"])
def test_truncated_office_file(tmp_path: Path, suffix: str) -> None:
    _rejects(truncate(make(tmp_path / f"cut{suffix}")), "truncated or corrupt ZIP package")


@pytest.mark.parametrize("suffix", [".pptx", ".xlsx", ".docx"])
def test_ole_file_with_office_suffix_is_encrypted_or_legacy(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"locked{suffix}"
    path.write_bytes(OLE_HEADER)
    _rejects(path, "password-protected or encrypted Office file (or legacy .ppt/.xls/.doc)")


def test_docx_renamed_to_pptx(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "memo.docx").rename(tmp_path / "memo.pptx")
    _rejects(path, "content is DOCX, not PPTX")


def test_png_renamed_to_xlsx(tmp_path: Path) -> None:
    path = tmp_path / "chart.xlsx"
    path.write_bytes(PNG_HEADER)
    _rejects(path, "content is PNG, not XLSX")


def test_plain_zip_is_not_an_office_file(tmp_path: Path) -> None:
    path = tmp_path / "archive.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    _rejects(path, "ZIP archive without [Content_Types].xml, not XLSX")


def test_binary_renamed_to_text(tmp_path: Path) -> None:
    path = make(tmp_path / "report.pdf").rename(tmp_path / "report.md")
    _rejects(path, "content is PDF, not text")


def test_zip_bomb_by_compression_ratio(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xlsx"
    office_zip(path, {})
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("xl/worksheets/sheet1.xml", "w") as entry,
    ):
        for _ in range(50):
            entry.write(bytes(MiB))
    _rejects(path, "zip bomb suspected: entry 'xl/worksheets/sheet1.xml' expands")


def test_zip_bomb_by_entry_count(tmp_path: Path) -> None:
    path = office_zip(tmp_path / "many.xlsx", {f"xl/media/{i}.bin": b"" for i in range(10_000)})
    _rejects(path, "zip bomb suspected: 10002 entries > limit 5000")


def test_zip_bomb_by_total_size(tmp_path: Path) -> None:
    path = office_zip(tmp_path / "wide.xlsx", {"xl/a.xml": b"<a/>" * 100})
    _rejects(
        path, "zip bomb suspected: 419 bytes uncompressed > limit 100", max_zip_uncompressed=100
    )


def test_small_parts_may_compress_well(tmp_path: Path) -> None:
    # Honest packages hold small, repetitive XML parts; only big entries are judged by ratio.
    check_file(office_zip(tmp_path / "styles.xlsx", {"xl/styles.xml": b" " * 500_000}))


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"%PDF-1.7", "PDF"),
        (b"PK\x03\x04", "ZIP"),
        (PNG_HEADER, "PNG"),
        (b"\xff\xd8\xff\xe0", "JPEG"),
    ],
)
def test_sniff(head: bytes, kind: str) -> None:
    assert sniff(head) == kind
    assert sniff(b"# heading") is None


FUZZ_FINDS = Path(__file__).resolve().parents[1] / "data" / "fuzz"


def test_a_damaged_zip_version_field_is_a_corrupt_package() -> None:
    # Found by the reader fuzzer (seed 3014254806): one flipped bit in a workbook's "version
    # needed to extract"; zipfile raised NotImplementedError("zip file version 8.4").
    path = FUZZ_FINDS / "xlsx_zip_version_8_4.xlsx"
    with pytest.raises(IngestError, match=r"corrupt ZIP package: zip file version 8\.4"):
        check_file(path)


def test_an_entry_compressed_by_a_method_office_never_uses_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "book.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>", compress_type=zipfile.ZIP_BZIP2)
    with pytest.raises(IngestError, match="compressed with method 12"):
        check_file(path)
