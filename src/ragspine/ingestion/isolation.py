"""What a format library says while one file is read is reported against that file.

pdfminer logs "Cannot set gray non-stroke color", openpyxl warns "Data Validation extension is
not supported": printed raw on stderr they name no file and interleave with the progress bar.
``library_notes`` collects them (logging records of WARNING and above, and ``warnings``) for
the duration of one file, so the ingest summary can show them beside its name.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# A hostile file can make a library complain once per object: a few distinct notes say enough.
MAX_NOTES = 5


class _Collector(logging.Handler):
    """Keeps the WARNING-and-above records of one thread: a server ingests on a worker thread
    while other threads answer requests, and their log lines are not this file's notes."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self._thread:
            return
        try:
            message = record.getMessage()
        except Exception:  # a library's malformed format string must not fail the file
            message = str(record.msg)
        self.messages.append(f"{record.name}: {message}")


# ``warnings.catch_warnings`` swaps process-wide state and is not safe across threads, so the
# capture is installed once for as long as any thread collects, and each warning goes to the
# list of the thread that raised it (other threads' warnings are shown as before).
_local = threading.local()
_lock = threading.Lock()
_collecting = 0
_saved: tuple[Any, Any] | None = None


def _show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    sink: list[str] | None = getattr(_local, "warnings", None)
    if sink is not None:
        sink.append(f"{category.__name__}: {message}")
    elif _saved is not None:
        _saved[1](message, category, filename, lineno, file, line)


def _start_capture() -> None:
    global _collecting, _saved
    with _lock:
        if _collecting == 0:
            _saved = (warnings.filters[:], warnings.showwarning)
            warnings.simplefilter("always")  # every warning of the file, not once per place
            warnings.showwarning = _show
        _collecting += 1


def _stop_capture() -> None:
    global _collecting, _saved
    with _lock:
        _collecting -= 1
        if _collecting == 0 and _saved is not None:
            warnings.filters = _saved[0]
            mutated = getattr(warnings, "_filters_mutated", None)  # what catch_warnings calls
            if callable(mutated):
                mutated()
            warnings.showwarning = _saved[1]
            _saved = None


@contextmanager
def library_notes() -> Iterator[list[str]]:
    """Yield a list that, when the block ends, holds the distinct notes this thread's
    libraries produced in it (at most ``MAX_NOTES``, then a count of the others); nothing
    reaches stderr meanwhile."""
    notes: list[str] = []
    collector = _Collector()
    caught: list[str] = []
    root = logging.getLogger()
    root.addHandler(collector)
    outer = getattr(_local, "warnings", None)
    _local.warnings = caught
    _start_capture()
    try:
        yield notes
    finally:
        _stop_capture()
        _local.warnings = outer
        root.removeHandler(collector)
        found = [*collector.messages, *caught]
        distinct = list(dict.fromkeys(" ".join(n.split()) for n in found))
        notes += distinct[:MAX_NOTES]
        if len(distinct) > MAX_NOTES:
            notes.append(f"and {len(distinct) - MAX_NOTES} more library messages")
