"""The access log: one line per request, made cheaply on the event loop and written in batches
by a thread of its own while the service runs.

A request only makes the line's record (without the stack walk ``Logger.info`` does to name
its caller: the caller is always :func:`log_access`) and appends it to a queue; nothing wakes
for it. Every ``interval`` seconds, or sooner once ``batch`` records wait, a writer thread
hands what is queued to the log's own handlers, which format it (a plain stream handler
writes the batch's lines with one write and one flush); what is left is written when the
service stops. A crash loses at most the last ``interval`` of lines, as for trace lines
(``observability.trace.BatchedTraceSink``).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ACCESS_LOG = logging.getLogger("ragspine.access")

_FORMAT = "%s %s %d %.1fms request_id=%s key=%s"
# A writer with nothing to do wakes this often; the lines of a busy second wait no longer.
INTERVAL_SECONDS = 0.25
BATCH = 512


def log_access(method: str, route: str, status: int, seconds: float, rid: str, key: str) -> None:
    """One request's access line: its method, route template, status, duration, request id
    and key name — never the key, the question or the answer."""
    logger = ACCESS_LOG
    if logger.isEnabledFor(logging.INFO):
        record = logger.makeRecord(
            logger.name,
            logging.INFO,
            __file__,
            _LINE,
            _FORMAT,
            (method, route, status, seconds * 1000, rid, key),
            None,
            log_access.__name__,
        )
        logger.handle(record)


_LINE = log_access.__code__.co_firstlineno


class _Deferred(logging.Handler):
    """Stands in for a logger's handlers: queues each record for :class:`_Writer`, taking
    no lock and waking no thread (a ``deque.append`` is safe from any thread)."""

    def __init__(self, batch: int) -> None:
        super().__init__()
        self.queued: collections.deque[logging.LogRecord] = collections.deque()
        self.full = threading.Event()
        self._batch = batch

    def handle(self, record: logging.LogRecord) -> bool:
        self.queued.append(record)
        if len(self.queued) >= self._batch:
            self.full.set()
        return True

    def emit(self, record: logging.LogRecord) -> None:
        self.handle(record)


class _Writer:
    """Hands the queued records to ``handlers`` every ``interval`` seconds, each handler
    taking the records at or above its own level (as ``QueueListener`` with
    ``respect_handler_level``)."""

    def __init__(
        self, deferred: _Deferred, handlers: list[logging.Handler], interval: float
    ) -> None:
        self._deferred = deferred
        self._handlers = handlers
        self._interval = interval
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="ragspine-access", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, then write what is still queued."""
        self._stopping = True
        self._deferred.full.set()
        self._thread.join()
        self._write()

    def _run(self) -> None:
        while not self._stopping:
            self._deferred.full.wait(self._interval)
            self._deferred.full.clear()
            self._write()

    def _write(self) -> None:
        queued = self._deferred.queued
        records = []
        while queued:
            records.append(queued.popleft())
        if not records:
            return
        for handler in self._handlers:
            taken = [record for record in records if record.levelno >= handler.level]
            if isinstance(handler, logging.StreamHandler) and _plain_stream(handler):
                _write_lines(handler, taken)
            else:
                for record in taken:
                    handler.handle(record)


def _plain_stream(handler: logging.Handler) -> bool:
    """A ``StreamHandler`` writing a record as its own ``emit`` does: the formatted line and
    the terminator, then a flush (not a subclass that writes otherwise, e.g. a file opened
    late or rotated)."""
    return type(handler).emit is logging.StreamHandler.emit


def _write_lines(handler: logging.StreamHandler[Any], records: list[logging.LogRecord]) -> None:
    """``records`` written as ``handler.handle`` writes each (its filters, its formatter, its
    error handling), in one write and one flush: a busy second's lines cost one system call
    instead of one each."""
    handler.acquire()
    try:
        lines = []
        for record in records:
            if not handler.filter(record):
                continue
            try:
                lines.append(handler.format(record) + handler.terminator)
            except RecursionError:
                raise
            except Exception:
                handler.handleError(record)
        if lines:
            try:
                handler.stream.write("".join(lines))
                handler.flush()
            except RecursionError:
                raise
            except Exception:
                handler.handleError(records[-1])
    finally:
        handler.release()


class LineFormatter(logging.Formatter):
    """``logging.Formatter`` whose default time (``%(asctime)s`` without a ``datefmt``) is
    formatted once a second and reused with each record's milliseconds: the same text, without
    a ``localtime`` and ``strftime`` per line (a fifth of an access line's cost)."""

    _second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None or not self.default_msec_format:
            return super().formatTime(record, datefmt)
        whole = int(record.created)
        second = self._second
        if second[0] != whole:
            second = (whole, time.strftime(self.default_time_format, self.converter(whole)))
            self._second = second
        return self.default_msec_format % (second[1], record.msecs)


@contextmanager
def access_log_off_the_loop(
    logger: logging.Logger = ACCESS_LOG,
    *,
    interval: float = INTERVAL_SECONDS,
    batch: int = BATCH,
) -> Iterator[None]:
    """While the block runs, ``logger``'s handlers format and write its records from a thread
    of their own, in batches: a request only creates and queues its record. What is queued is
    written when the block ends. A logger without handlers of its own (its records go to its
    parents) is left as it is."""
    handlers = list(logger.handlers)
    if not handlers:
        yield
        return
    deferred = _Deferred(batch)
    writer = _Writer(deferred, handlers, interval)
    for handler in handlers:
        logger.removeHandler(handler)
    logger.addHandler(deferred)
    writer.start()
    try:
        yield
    finally:
        logger.removeHandler(deferred)
        writer.stop()  # writes what is queued
        for handler in handlers:
            logger.addHandler(handler)
