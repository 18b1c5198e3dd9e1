"""What a format library says while one file is read is reported against that file.

pdfminer logs "Cannot set gray non-stroke color", openpyxl warns "Data Validation extension is
not supported": printed raw on stderr they name no file and interleave with the progress bar.
``library_notes`` collects them (logging records of WARNING and above, and ``warnings``) for
the duration of one file, so the ingest summary can show them beside its name.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

# A hostile file can make a library complain once per object: a few distinct notes say enough.
MAX_NOTES = 5


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a library's malformed format string must not fail the file
            message = str(record.msg)
        self.messages.append(f"{record.name}: {message}")


@contextmanager
def library_notes() -> Iterator[list[str]]:
    """Yield a list that, when the block ends, holds the distinct notes it produced (at most
    ``MAX_NOTES``, then a count of the others); nothing reaches stderr meanwhile."""
    notes: list[str] = []
    collector = _Collector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield notes
    finally:
        root.removeHandler(collector)
        found = [*collector.messages, *(f"{w.category.__name__}: {w.message}" for w in caught)]
        distinct = list(dict.fromkeys(" ".join(n.split()) for n in found))
        notes += distinct[:MAX_NOTES]
        if len(distinct) > MAX_NOTES:
            notes.append(f"and {len(distinct) - MAX_NOTES} more library messages")
