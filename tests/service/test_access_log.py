"""The access log off the event loop (``access_log.access_log_off_the_loop``): a request only
queues its record; the log's own handlers format and write it from a thread, in batches, and
every queued line is written when the service stops."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable

from ragspine.service.http.access_log import ACCESS_LOG, access_log_off_the_loop, log_access


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
