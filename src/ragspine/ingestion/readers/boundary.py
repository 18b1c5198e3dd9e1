"""The one place a reader turns a library's complaint about a bad file into an ``IngestError``."""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from ragspine.errors import IngestError

# What format libraries raise when the *file* is bad (not our code): a broken container, a
# damaged compressed part, a missing part, an unparsable value, an I/O failure. Readers add
# their library's own classes.
BAD_FILE_ERRORS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    KeyError,
    ValueError,
    OSError,
    EOFError,
)
_OURS = "ragspine"


@contextmanager
def bad_file_errors(
    path: Path, what: str, *library_errors: type[Exception], inside: tuple[str, ...] = ()
) -> Iterator[None]:
    """Re-raise a bad-file exception from the block as ``IngestError`` naming ``path``.

    ``inside`` names the format library's packages ("pptx", "lxml"): any exception raised in
    their code rather than ours is the file's too. Fuzzing found python-pptx, python-docx and
    openpyxl raising ``AttributeError``, ``TypeError`` and ``IndexError`` on packages whose
    parts were swapped, renamed or had attributes removed (tests/hostile/regressions). Anything
    else raised in our own code (a ``TypeError``, an ``AttributeError``...) is a bug and
    propagates unchanged; so does ``MemoryError``, which says nothing about the file.
    """
    try:
        yield
    except (*BAD_FILE_ERRORS, *library_errors) as exc:
        raise IngestError(f"{path}: not a readable {what}: {describe(exc)}") from exc
    except MemoryError:
        raise
    except Exception as exc:
        if not inside or _raised_in(exc.__traceback__, inside) != "library":
            raise
        raise IngestError(f"{path}: not a readable {what}: {describe(exc)}") from exc


def _raised_in(trace: TracebackType | None, libraries: tuple[str, ...]) -> str:
    """Whose code the exception came from: "library", "ours", or "" (neither, e.g. a test's).

    The innermost frame of ragspine or of one of ``libraries`` decides; the standard library's
    frames (``posixpath.join`` called by the library with a missing value) do not count.
    """
    owner = ""
    while trace is not None:
        package = str(trace.tb_frame.f_globals.get("__name__", "")).partition(".")[0]
        if package == _OURS:
            owner = "ours"
        elif package in libraries:
            owner = "library"
        trace = trace.tb_next
    return owner


def describe(exc: BaseException) -> str:
    """``"PSEOF: Unexpected EOF"`` — the class says more than many libraries' messages do."""
    if len(exc.args) == 1 and isinstance(exc.args[0], BaseException):
        return describe(exc.args[0])  # a library wrapper (pdfplumber's) around the real error
    name = type(exc).__name__
    if name == "error":  # zlib.error, struct.error: the module says what failed
        name = f"{type(exc).__module__}.{name}"
    detail = str(exc).strip()
    return f"{name}: {detail}" if detail else name
