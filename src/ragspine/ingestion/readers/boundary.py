"""The one place a reader turns a library's complaint about a bad file into an ``IngestError``."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragspine.errors import IngestError

# What format libraries raise when the *file* is bad (not our code): a broken container, a
# missing part, an unparsable value, an I/O failure. Readers add their library's own classes.
BAD_FILE_ERRORS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    KeyError,
    ValueError,
    OSError,
    EOFError,
)


@contextmanager
def bad_file_errors(path: Path, what: str, *library_errors: type[Exception]) -> Iterator[None]:
    """Re-raise a bad-file exception from the block as ``IngestError`` naming ``path``.

    Anything else (a ``TypeError``, an ``AttributeError``...) is a bug and propagates unchanged.
    """
    try:
        yield
    except (*BAD_FILE_ERRORS, *library_errors) as exc:
        raise IngestError(f"{path}: not a readable {what}: {describe(exc)}") from exc


def describe(exc: BaseException) -> str:
    """``"PSEOF: Unexpected EOF"`` — the class says more than many libraries' messages do."""
    if len(exc.args) == 1 and isinstance(exc.args[0], BaseException):
        return describe(exc.args[0])  # a library wrapper (pdfplumber's) around the real error
    detail = str(exc).strip()
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
