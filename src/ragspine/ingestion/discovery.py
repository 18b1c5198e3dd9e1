"""Finding the files to ingest under the paths given: supported files by relative name, and
what a folder holds that cannot be read, so it fails by name."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragspine.errors import UsageError
from ragspine.ingestion.file_metadata import METADATA_SUFFIX
from ragspine.ingestion.readers import SUPPORTED_SUFFIXES
from ragspine.ingestion.readers.boundary import describe as describe_error


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest; ``problem`` says why something found in a folder cannot be (a named
    pipe, a sub-folder that cannot be listed), so it fails by name instead of vanishing."""

    doc_id: str
    path: Path
    problem: str = ""


def discover(paths: Sequence[Path]) -> list[SourceFile]:
    """Supported files under ``paths``, identified by their path relative to the given root.

    A folder's files are named relative to that folder ("decks/review.pptx"), so two
    ``report.pdf`` in different folders never collide; a file given directly is named by its
    file name. Missing paths are a usage error. What a folder holds that cannot be read — a
    named pipe, a socket, a broken link, a sub-folder that cannot be listed — comes back with
    its ``problem``, to fail by name.
    """
    found: dict[str, SourceFile] = {}
    for root in paths:
        if not root.exists():
            raise UsageError(f"{root}: no such file or folder")
        if root.is_dir():
            candidates: Iterable[SourceFile] = _folder(root)
        else:
            # A file named directly is always attempted, so an unsupported type fails loudly
            # instead of vanishing; in folders only supported types are picked up.
            candidates = [SourceFile(root.name, root)]
        for candidate in candidates:
            found.setdefault(candidate.doc_id, candidate)
    return [found[k] for k in sorted(found)]


def _folder(root: Path) -> Iterator[SourceFile]:
    """The supported files under ``root`` (hidden ones left out), and what cannot be read."""
    unlisted: list[OSError] = []
    for folder, subfolders, names in os.walk(root, onerror=unlisted.append):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for name in names:
            if name.startswith("."):
                continue
            path = Path(folder, name)
            doc_id = path.relative_to(root).as_posix()
            if not path.is_file():
                yield SourceFile(doc_id, path, _not_regular(path))
            elif path.suffix.lower() in SUPPORTED_SUFFIXES and not name.endswith(METADATA_SUFFIX):
                yield SourceFile(doc_id, path)
    for error in unlisted:
        path = Path(error.filename)
        where = path.relative_to(root).as_posix()
        reason = f"cannot read folder: {error.strerror or describe_error(error)}"
        yield SourceFile(f"{root.name if where == '.' else where}/", path, reason)


def _not_regular(path: Path) -> str:
    try:
        mode = path.stat().st_mode
    except OSError:
        return "broken link: its target does not exist"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "a device, not a regular file"
