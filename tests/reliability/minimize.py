"""Shrink a crashing fuzz input into a regression file: ``python -m tests.reliability.minimize
CRASH OUT``.

The property kept is the library's complaint: reading the smaller file must end in the same
exception (class and message, as ``describe`` words it) as the crash. An Office package loses
every ZIP entry it can do without; any other file loses bytes from its end while it can.
"""

from __future__ import annotations

import io
import sys
import tempfile
import zipfile
from pathlib import Path

from ragspine.errors import IngestError
from ragspine.ingestion import ocr
from ragspine.ingestion.readers import read_document
from ragspine.ingestion.readers.boundary import describe


def complaint(data: bytes, suffix: str) -> str:
    """What reading ``data`` as a ``suffix`` file ends in ("" when it reads)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            read_document(path)
        except IngestError as exc:
            cause = exc.__cause__
            return describe(cause) if cause is not None else str(exc).replace(str(path), "")
        except Exception as exc:
            return describe(exc)
    return ""


def _without_entries(data: bytes, suffix: str, target: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    for drop in sorted(range(len(entries)), key=lambda i: -len(entries[i][1])):
        kept = [e for i, e in enumerate(entries) if i != drop]
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for info, payload in kept:
                archive.writestr(info, payload)
        if complaint(buffer.getvalue(), suffix) == target:
            return _without_entries(buffer.getvalue(), suffix, target)
    return data


def _shorter(data: bytes, suffix: str, target: str) -> bytes:
    step = len(data) // 2
    while step:
        if complaint(data[:-step], suffix) == target:
            data = data[:-step]
        else:
            step //= 2
    return data


def minimize(data: bytes, suffix: str) -> bytes:
    target = complaint(data, suffix)
    if not target:
        raise SystemExit("the input reads: nothing to minimize")
    if zipfile.is_zipfile(io.BytesIO(data)):
        try:
            return _without_entries(data, suffix, target)
        except zipfile.BadZipFile:
            pass  # a damaged central directory: shrink the bytes instead
    return _shorter(data, suffix, target)


def main(crash: str, out: str) -> int:
    ocr._ENGINE_MODULE = "ragspine_ocr_switched_off_for_fuzzing"
    source = Path(crash)
    smaller = minimize(source.read_bytes(), source.suffix)
    Path(out).write_bytes(smaller)
    print(f"{source.stat().st_size} -> {len(smaller)} bytes: {complaint(smaller, source.suffix)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
