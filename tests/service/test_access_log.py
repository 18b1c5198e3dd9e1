"""The access log off the event loop (``edge.access_log_off_the_loop``): a request only queues
its record; the log's own handlers format and write it from a thread, and every queued line is
written when the service stops."""

from __future__ import annotations

import io
import logging

from ragspine.service.http.edge import access_log_off_the_loop


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
