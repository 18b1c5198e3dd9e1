"""Byte-stable output for every corpus writer: one fixed time and author, re-stamped zips.

Office files are zip packages whose members carry the time they were written; every package is
re-zipped with one fixed timestamp and its document properties pinned to these values, so the
same spec always yields the same bytes. A package inside a package (the workbook python-pptx
embeds behind a chart, whose properties say when it was made) is frozen the same way.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from pathlib import Path

FIXED_TIME = dt.datetime(2025, 1, 1, 0, 0, 0)
_ZIP_TIME = (2025, 1, 1, 0, 0, 0)
AUTHOR = "ACME Finance (RAGSpine demo)"
_STAMP = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")
_FIXED_STAMP = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode()


def frozen_zip(data: bytes) -> bytes:
    """The same package with every member stamped with one fixed time, in the same order."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            member = zipfile.ZipInfo(info.filename, _ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.create_system = 3
            member.external_attr = 0o644 << 16
            target.writestr(member, _frozen_member(info.filename, source.read(info.filename)))
    return out.getvalue()


def write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _frozen_member(name: str, data: bytes) -> bytes:
    if name.endswith(".xlsx"):
        return frozen_zip(data)
    if name == "docProps/core.xml":
        return _STAMP.sub(rb"\g<1>" + _FIXED_STAMP + rb"\g<2>", data)
    return data
