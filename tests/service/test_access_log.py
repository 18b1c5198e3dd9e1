"""The access log off the event loop (``access_log.access_log_off_the_loop``): a request only
queues its record; the log's own handlers format and write it from a thread, in batches, and
every queued line is written when the service stops."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from ragspine.service.http.access_log import (
    ACCESS_LOG,
    LineFormatter,
    access_log_off_the_loop,
    log_access,
)


def test_queued_lines_are_formatted_by_the_handlers_and_all_written_at_the_end() -> None:
    logger = logging.getLogger("ragspine.test-access")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    try:
        with access_log_off_the_loop(logger):
            assert logger.handlers != [handler]  # the queue stands in for the handler
            for n in range(200):
                logger.info("POST %s %d request_id=%s", "/v1/ask", 200, f"r{n}")
        assert logger.handlers == [handler]
        lines = out.getvalue().splitlines()
        assert lines == [f"INFO POST /v1/ask 200 request_id=r{n}" for n in range(200)]
    finally:
        logger.removeHandler(handler)


def test_a_logger_without_handlers_of_its_own_is_left_alone() -> None:
    logger = logging.getLogger("ragspine.test-access-bare")
    with access_log_off_the_loop(logger):
        assert logger.handlers == []


def _logger_writing_to(name: str, *levels: int) -> tuple[logging.Logger, list[io.StringIO]]:
    """A logger with one plain handler per level in ``levels``, each writing to its own buffer."""
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    outs = []
    for level in levels:
        out = io.StringIO()
        handler = logging.StreamHandler(out)
        handler.setLevel(level)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logger.addHandler(handler)
        outs.append(out)
    return logger, outs


def _eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


def test_a_line_is_queued_by_the_request_and_written_by_the_thread_within_the_interval() -> None:
    logger, (out,) = _logger_writing_to("ragspine.test-access-interval", logging.INFO)
    with access_log_off_the_loop(logger, interval=0.05):
        logger.info("GET /healthz 200")
        assert _eventually(lambda: out.getvalue() == "INFO GET /healthz 200\n")


def test_nothing_is_written_on_the_callers_thread_before_a_batch_fills() -> None:
    logger, (out,) = _logger_writing_to("ragspine.test-access-batch", logging.INFO)
    with access_log_off_the_loop(logger, interval=3600, batch=5):
        for n in range(4):
            logger.info("line %d", n)
        time.sleep(0.2)
        assert out.getvalue() == ""  # four of five: the writer sleeps on
        logger.info("line %d", 4)  # a full batch wakes it
        assert _eventually(lambda: out.getvalue().count("\n") == 5)
    assert out.getvalue().splitlines() == [f"INFO line {n}" for n in range(5)]


def test_each_handler_writes_only_the_levels_it_takes() -> None:
    logger, (everything, warnings) = _logger_writing_to(
        "ragspine.test-access-levels", logging.INFO, logging.WARNING
    )
    with access_log_off_the_loop(logger):
        logger.info("served")
        logger.warning("slow")
    assert everything.getvalue().splitlines() == ["INFO served", "WARNING slow"]
    assert warnings.getvalue().splitlines() == ["WARNING slow"]


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_an_access_line_names_its_request_and_key_and_respects_the_level() -> None:
    kept = _Kept()
    level = ACCESS_LOG.level
    ACCESS_LOG.addHandler(kept)
    try:
        ACCESS_LOG.setLevel(logging.INFO)
        log_access("POST", "/v1/ask", 200, 0.00125, "rid-1", "analyst")
        ACCESS_LOG.setLevel(logging.WARNING)  # access lines off
        log_access("POST", "/v1/ask", 200, 0.001, "rid-2", "analyst")
    finally:
        ACCESS_LOG.removeHandler(kept)
        ACCESS_LOG.setLevel(level)
    (record,) = kept.records
    assert record.getMessage() == "POST /v1/ask 200 1.2ms request_id=rid-1 key=analyst"
    assert (record.levelno, record.funcName) == (logging.INFO, "log_access")


class _CountedStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0
        self.flushes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def flush(self) -> None:
        self.flushes += 1


class _Odd(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return isinstance(record.args, tuple) and record.args[0] % 2 == 1


def test_a_batch_is_one_write_and_one_flush_keeping_filters_and_format_errors() -> None:
    logger = logging.getLogger("ragspine.test-access-one-write")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    out = _CountedStream()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(_Odd())
    failed: list[logging.LogRecord] = []
    handler.handleError = failed.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        with access_log_off_the_loop(logger, interval=3600, batch=10_000):
            for n in range(100):
                logger.info("line %d", n)
            logger.info("broken %d %d", 1)  # too few arguments: the format fails
    finally:
        logger.removeHandler(handler)
    assert out.getvalue().splitlines() == [f"INFO line {n}" for n in range(1, 100, 2)]
    assert (out.writes, out.flushes) == (1, 1)
    assert [record.msg for record in failed] == ["broken %d %d"]


def test_the_line_formatter_writes_the_time_as_logging_does_formatting_each_second_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fmt = "%(asctime)s %(levelname)s %(message)s"
    ours, reference = LineFormatter(fmt), logging.Formatter(fmt)
    records = []
    for created in (1_700_000_000.0, 1_700_000_000.0421, 1_700_000_000.999, 1_700_000_001.5):
        record = logging.makeLogRecord({"msg": "x", "levelno": 20, "levelname": "INFO"})
        record.created, record.msecs = created, int((created - int(created)) * 1000) + 0.0
        records.append(record)
    expected = [reference.format(record) for record in records]
    calls: list[object] = []
    strftime = time.strftime

    def counted(*args: Any) -> str:
        calls.append(args)
        return strftime(*args)

    monkeypatch.setattr(time, "strftime", counted)
    assert [ours.format(record) for record in records] == expected
    assert len(calls) == 2  # two distinct seconds
    dated = LineFormatter(fmt, datefmt="%H:%M")  # a date format of its own: as logging does
    assert dated.format(records[0]) == logging.Formatter(fmt, datefmt="%H:%M").format(records[0])
