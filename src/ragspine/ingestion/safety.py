"""Checks a file must pass before any parser touches it (size, real format, zip bombs) and the
budget of work it may cost while it is read and mapped (cells, rows, pages, characters, time).

Every failure is an ``IngestError`` whose message names the file and the reason, so a batch
ingest can report each rejected file on one line.
"""

from __future__ import annotations

import dataclasses
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ragspine.errors import IngestError

_MiB = 1024 * 1024


@dataclass(frozen=True)
class SafetyLimits:
    """Resource limits for one input file (sizes in bytes).

    The work limits hold for the whole file: every table's cells and rows together (a
    workbook's are counted from its sheet parts before it is loaded), its PDF pages or slides,
    the characters of its text and table cells, and the seconds spent reading and mapping it.
    The defaults pass the largest honest reports we know with a wide margin and keep the
    memory one file can take well under 1 GB.
    """

    max_bytes: int = 100 * _MiB
    max_zip_uncompressed: int = 200 * _MiB
    max_zip_entries: int = 5000
    max_zip_ratio: float = 200.0
    max_cells: int = 500_000
    max_rows: int = 200_000
    max_pages: int = 5_000
    max_characters: int = 20_000_000
    max_seconds: float = 300.0


@dataclass
class WorkBudget:
    """What reading and mapping one file may still cost; each check raises ``IngestError``.

    Readers count what they are about to load (a workbook's cells, a PDF's pages) before they
    load it, and call ``tick`` between pages, sheets and slides, so a hostile file stops early
    instead of running the machine out of memory or time.
    """

    path: Path
    limits: SafetyLimits = field(default_factory=SafetyLimits)
    started: float = field(default_factory=time.monotonic)

    def cells(self, count: int) -> None:
        self._at_most(count, self.limits.max_cells, "cells")

    def rows(self, count: int) -> None:
        self._at_most(count, self.limits.max_rows, "rows")

    def pages(self, count: int, noun: str = "pages") -> None:
        self._at_most(count, self.limits.max_pages, noun)

    def characters(self, count: int) -> None:
        self._at_most(count, self.limits.max_characters, "characters")

    def tick(self, where: str) -> None:
        """Fail when the file has taken longer than ``max_seconds``; ``where`` names the spot."""
        elapsed = time.monotonic() - self.started
        if elapsed > self.limits.max_seconds:
            raise IngestError(
                f"{self.path}: reading took {elapsed:,.1f} seconds, over the limit of "
                f"{self.limits.max_seconds:,g} seconds (stopped at {where})"
            )

    def _at_most(self, count: int, limit: int, noun: str) -> None:
        if count > limit:
            raise IngestError(f"{self.path}: {count:,} {noun} exceed the limit of {limit:,}")


# Entries smaller than this cannot hurt whatever their ratio, and tiny repetitive XML parts of
# honest Office files (an empty sheet's styles, say) can compress very well.
_RATIO_FLOOR_BYTES = _MiB

# Office suffix -> (format name, folder of its main part inside the package).
_OFFICE_PARTS = {
    ".pptx": ("PPTX", "ppt/"),
    ".xlsx": ("XLSX", "xl/"),
    ".xlsm": ("XLSM", "xl/"),
    ".docx": ("DOCX", "word/"),
}
_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt"})

# How much of a PDF's head may precede "%PDF-", and how much of its tail "%%EOF" may follow
# (the tolerances PDF viewers apply).
_PDF_SLACK = 1024

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MAGIC = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "ZIP"),
    (b"PK\x05\x06", "ZIP"),
    (_OLE_MAGIC, "OLE"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x1f\x8b", "GZIP"),
    (b"7z\xbc\xaf\x27\x1c", "7Z"),
    (b"Rar!\x1a\x07", "RAR"),
)


def check_file(
    path: str | Path,
    limits: SafetyLimits | None = None,
    *,
    max_bytes: int | None = None,
    max_zip_uncompressed: int | None = None,
    max_zip_entries: int | None = None,
    max_zip_ratio: float | None = None,
) -> None:
    """Raise ``IngestError`` unless ``path`` is a non-empty, plausible file of its suffix's type.

    Limits come from ``limits`` (default ``SafetyLimits()``); a keyword overrides one of them.
    Suffixes this module does not know are only checked for size; choosing a reader (and
    rejecting unsupported types) is the reader registry's job.
    """
    path = Path(path)
    base = limits or SafetyLimits()
    limits = dataclasses.replace(
        base,
        max_bytes=base.max_bytes if max_bytes is None else max_bytes,
        max_zip_uncompressed=(
            base.max_zip_uncompressed if max_zip_uncompressed is None else max_zip_uncompressed
        ),
        max_zip_entries=base.max_zip_entries if max_zip_entries is None else max_zip_entries,
        max_zip_ratio=base.max_zip_ratio if max_zip_ratio is None else max_zip_ratio,
    )
    size = _size(path)
    if size == 0:
        raise IngestError(f"{path}: empty file (0 bytes)")
    if size > limits.max_bytes:
        raise IngestError(f"{path}: oversized: {size} bytes > limit {limits.max_bytes} bytes")
    head = _read(path, 0)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        _check_pdf(path, head, size)
    elif suffix in _OFFICE_PARTS:
        _check_office(path, head, suffix, limits)
    elif suffix in _TEXT_SUFFIXES:
        found = sniff(head)
        if found is not None:
            raise IngestError(f"{path}: content is {found}, not text")


def sniff(head: bytes) -> str | None:
    """The binary format ``head`` (a file's first bytes) starts with, or None if unknown."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def _size(path: Path) -> int:
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise IngestError(f"{path}: file not found") from None
    except OSError as exc:
        raise IngestError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    if not path.is_file():
        raise IngestError(f"{path}: not a regular file")
    return stat.st_size


def _read(path: Path, offset: int) -> bytes:
    """Up to 1024 bytes of ``path`` from ``offset``."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read(_PDF_SLACK)
    except OSError as exc:
        raise IngestError(f"{path}: cannot read file: {exc.strerror or exc}") from None


def _check_pdf(path: Path, head: bytes, size: int) -> None:
    if b"%PDF-" not in head:
        found = sniff(head)
        what = (
            f"content is {found}, not PDF" if found else "no %PDF- header in the first 1024 bytes"
        )
        raise IngestError(f"{path}: {what}")
    if b"%%EOF" not in _read(path, max(0, size - _PDF_SLACK)):
        raise IngestError(f"{path}: truncated PDF: no %%EOF marker at the end of the file")


def _check_office(path: Path, head: bytes, suffix: str, limits: SafetyLimits) -> None:
    expected, main_folder = _OFFICE_PARTS[suffix]
    found = sniff(head)
    if found == "OLE":
        raise IngestError(
            f"{path}: password-protected or encrypted Office file (or legacy .ppt/.xls/.doc)"
        )
    if found != "ZIP":
        raise IngestError(f"{path}: content is {found or 'not a ZIP package'}, not {expected}")
    names = _zip_names(path, limits)
    if "[Content_Types].xml" not in names:
        raise IngestError(f"{path}: ZIP archive without [Content_Types].xml, not {expected}")
    if not any(name.startswith(main_folder) for name in names):
        actual = _office_kind(names)
        what = f"content is {actual}" if actual else f"no {main_folder} part"
        raise IngestError(f"{path}: {what}, not {expected}")


def _zip_names(path: Path, limits: SafetyLimits) -> set[str]:
    """Entry names of the ZIP at ``path`` after the truncation and zip-bomb checks."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    # NotImplementedError: zipfile's answer to a damaged "version needed" field ("zip file
    # version 8.4", found by the reader fuzzer).
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        raise IngestError(f"{path}: truncated or corrupt ZIP package: {exc}") from None
    unsupported = sorted(
        {e.compress_type for e in entries} - {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    )
    if unsupported:  # Office writes stored or deflated entries; zipfile reads few others
        raise IngestError(
            f"{path}: corrupt ZIP package: entries compressed with method {unsupported[0]}"
        )
    if len(entries) > limits.max_zip_entries:
        raise IngestError(
            f"{path}: zip bomb suspected: {len(entries)} entries > limit {limits.max_zip_entries}"
        )
    total = sum(entry.file_size for entry in entries)
    if total > limits.max_zip_uncompressed:
        raise IngestError(
            f"{path}: zip bomb suspected: {total} bytes uncompressed > limit "
            f"{limits.max_zip_uncompressed} bytes"
        )
    for entry in entries:
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size >= _RATIO_FLOOR_BYTES and ratio > limits.max_zip_ratio:
            raise IngestError(
                f"{path}: zip bomb suspected: entry {entry.filename!r} expands {ratio:.0f}x "
                f"> limit {limits.max_zip_ratio:.0f}x"
            )
    return {entry.filename for entry in entries}


def _office_kind(names: set[str]) -> str | None:
    for name, folder in (("PPTX", "ppt/"), ("XLSX", "xl/"), ("DOCX", "word/")):
        if any(entry.startswith(folder) for entry in names):
            return name
    return None
