"""Uploaded files written into the workspace, where no name from the client can lead elsewhere.

Each upload batch gets its own folder, ``DIR/uploads/<batch>/``. Of the client's file name only
a cleaned base name is kept (for display, for the document id and for the profile's file-name
sensitivity rules); the bytes go to a hidden temporary file first and get their name only when
complete and within the size limit, so no half-written or oversized file is ever left behind.

An upload is ingested as the document ``uploads/<sender>/<name>``: sending the same name again
is a new version of the sender's own document, and no sender can replace a document another
key uploaded or one ingested from a folder (whose clearance might be above the sender's).
"""

from __future__ import annotations

import os
import re
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ragspine.errors import UsageError
from ragspine.ingestion.pipeline import METADATA_SUFFIX
from ragspine.ingestion.readers import SUPPORTED_SUFFIXES
from ragspine.service.jobs.queue import JobFile
from ragspine.workspace import Workspace

_MiB = 1024 * 1024
_CHUNK = _MiB
# Longest kept file name, in characters (file systems allow 255 bytes; CJK takes 3 each).
_MAX_NAME = 80
_BATCH = re.compile(r"[A-Za-z0-9_-]{1,64}")
# What a kept name may hold besides letters and digits of any script; the rest becomes "_".
_UNSAFE = re.compile(r"[^\w .,()\[\]+&@#-]")
# A name that climbs out of a folder (a ``..`` part), starts at a root (``/``, ``\``, ``C:``)
# or hides a dot, a separator or a NUL behind percent-encoding is refused rather than cut to its
# base name: no person names a file so, only an attack or a broken client does.
_PATH_TRICK = re.compile(r"(^|[/\\])\.\.([/\\]|$)|^[/\\]|^[A-Za-z]:|%(2e|2f|5c|00)", re.I)


@dataclass(frozen=True)
class UploadLimits:
    """The size limits of uploads, in bytes: one file, and all files of one request.

    ``store_upload`` enforces ``max_file_bytes``; the HTTP layer enforces the others before
    it stores anything.
    """

    max_file_bytes: int = 50 * _MiB
    max_request_bytes: int = 200 * _MiB
    max_files: int = 20


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def new_batch_name() -> str:
    """A fresh folder name for one request's uploads."""
    return uuid.uuid4().hex


def store_upload(
    uploads: Workspace | Path,
    batch: str,
    client_filename: str,
    data: bytes | Readable,
    *,
    sender: str = "",
    limits: UploadLimits | None = None,
) -> JobFile:
    """Write one uploaded file to ``DIR/uploads/<batch>/`` of a workspace (or to ``<batch>/``
    of the folder ``uploads``) and return it as a job's file.

    ``batch`` must be a plain folder name (see :func:`new_batch_name`). The stored name is the
    client's base name, cleaned; when the batch already holds that name, ``-2``, ``-3``... is
    added before the extension. ``sender`` (the API key's name) names the document:
    ``uploads/<sender>/<stored name>``. Raises ``UsageError`` for a name that cannot be kept (empty,
    hidden, ``..``, control characters, an unsupported type, a metadata sidecar) and for a file
    over ``limits.max_file_bytes``.
    """
    max_bytes = (limits or UploadLimits()).max_file_bytes
    name = safe_name(client_filename)
    if not _BATCH.fullmatch(batch):
        raise UsageError(f"upload folder name {batch!r} is not valid")
    root = uploads.uploads_path if isinstance(uploads, Workspace) else uploads
    folder = root / batch
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".part-{uuid.uuid4().hex}"
    try:
        _write_capped(temporary, data, max_bytes, name)
        stored = _link_unique(temporary, folder, name)
    finally:
        temporary.unlink(missing_ok=True)
    return JobFile(name=name, path=stored, doc_id=upload_doc_id(sender, stored.name))


def upload_doc_id(sender: str, name: str) -> str:
    """The document id an upload of ``name`` by ``sender`` is ingested as."""
    return f"uploads/{sender}/{name}" if sender else f"uploads/{name}"


def safe_name(client_filename: str) -> str:
    """The part of a client's file name that is kept: its base name, cleaned and bounded."""
    if _PATH_TRICK.search(client_filename):
        raise UsageError(
            f"upload name {client_filename[:100]!r} holds a path (a '..' part, a root or an "
            "encoded separator); send the file's own name"
        )
    base = re.split(r"[/\\]", client_filename)[-1]
    base = unicodedata.normalize("NFC", base).strip().rstrip(".")
    shown = repr(client_filename[:100])
    if any(unicodedata.category(c).startswith("C") for c in base):
        raise UsageError(f"upload name {shown} holds control characters")
    if not base or base.startswith("."):
        raise UsageError(f"upload name {shown} is empty, hidden or a folder; name the file")
    if base.lower().endswith(METADATA_SUFFIX):
        # A sidecar next to an upload would set the sensitivity of the file it names.
        raise UsageError(f"upload name {shown}: metadata sidecars cannot be uploaded")
    stem, suffix = os.path.splitext(_UNSAFE.sub("_", base))
    if suffix.lower() not in SUPPORTED_SUFFIXES:
        supported = ", ".join(s.lstrip(".") for s in SUPPORTED_SUFFIXES)
        raise UsageError(f"upload {shown} is not a supported type; supported: {supported}")
    return stem[: _MAX_NAME - len(suffix)] + suffix


def _write_capped(target: Path, data: bytes | Readable, max_bytes: int, name: str) -> None:
    too_big = UsageError(f"{name} is larger than the upload limit of {_size(max_bytes)}")
    if isinstance(data, bytes):
        if len(data) > max_bytes:
            raise too_big
        target.write_bytes(data)
        return
    written = 0
    with target.open("xb") as out:
        while chunk := data.read(_CHUNK):
            written += len(chunk)
            if written > max_bytes:
                raise too_big
            out.write(chunk)


def _link_unique(temporary: Path, folder: Path, name: str) -> Path:
    """Give the complete file its name; a hard link never replaces a file already there."""
    stem, suffix = os.path.splitext(name)
    for n in range(1, 10_000):
        candidate = folder / (name if n == 1 else f"{stem}-{n}{suffix}")
        try:
            os.link(temporary, candidate)
        except FileExistsError:
            continue
        return candidate
    raise UsageError(f"too many uploads named {name} in one request")


def _size(n: int) -> str:
    return f"{n / _MiB:g} MB" if n >= _MiB else f"{n} bytes"
