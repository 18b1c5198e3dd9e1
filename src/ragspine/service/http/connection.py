"""The HTTP connection ``ragspine serve`` runs: uvicorn's httptools protocol plus the limits it
lacks, so slow or oversized clients cannot hold the server's sockets and memory.

uvicorn times out only idle keep-alive connections, and any byte restarts that; it bounds
neither how long a request head may take nor how large it may grow. Here a request's head must
arrive whole within ``header_timeout`` seconds of the connection (or of its first byte, for the
next request on a kept-alive connection) and within ``max_header_bytes``; its body must keep up
``body_min_rate`` bytes a second after a grace of ``body_timeout`` seconds (Apache's
``mod_reqtimeout`` rule: a slow link uploading steadily passes, a client dripping a byte now
and then does not). A breach is answered 408 or 431 in the service's JSON error shape, and the
connection closed.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from functools import cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from ragspine.service.settings import ConnectionLimits


@cache
def connection_limits() -> ConnectionLimits:
    """This process's limits, read once from the ``RAGSPINE_*`` environment."""
    return ConnectionLimits()


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on each request's head and body and a
    size limit on its head."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = connection_limits()
        self._head_done = False
        self._head_bytes = 0
        # The size of the read being parsed now.
        self._read_bytes = 0
        # Loop time by which the head (or the body) must be in; None: nothing awaited.
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._read_bytes = len(data)
        super().data_received(data)
        # A head still incomplete after the parser ran is buffered: its bytes count at once,
        # so a head that never ends cannot grow the buffer past one read beyond the limit.
        if not self._head_done and not self.transport.is_closing():
            self._head_bytes += len(data)
            if self._head_bytes > self._limits.max_header_bytes:
                self._head_too_large()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_done or self._deadline is None:
            # The next request on a kept-alive connection: its head gets a deadline of its own.
            self._await_head()

    def on_headers_complete(self) -> None:
        limit = self._limits.max_header_bytes
        # The bytes read for this head (the earlier reads it spans and this one) bound its
        # parsed size: only a head that may be over the limit is measured (per request, the
        # sum cost as much as the rest of this class).
        if self._head_bytes + self._read_bytes > limit:
            # The head as parsed: its URL and each header with ": " and CRLF. Summed here,
            # once, rather than per parser callback (uvicorn's own keep them whole).
            parsed = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            if parsed > limit:
                # A head that came whole in one read: refused before the app sees it.
                self._head_too_large()
                return
        self._head_done = True
        super().on_headers_complete()
        self._arm(self._limits.body_timeout)

    def on_body(self, body: bytes) -> None:
        if self.transport.is_closing():
            return
        super().on_body(body)
        if self._deadline is not None:
            self._deadline += len(body) / self._limits.body_min_rate

    def on_message_complete(self) -> None:
        if self.transport.is_closing():
            return
        super().on_message_complete()
        # Nothing is awaited until the next request begins; the timer stays set (it finds no
        # deadline when it fires) so a kept-alive connection does not set and cancel one per
        # request: the next head's deadline, later than the timer, reuses it (``_arm``).
        self._deadline = None

    def _await_head(self) -> None:
        self._head_done = False
        self._head_bytes = 0
        self._arm(self._limits.header_timeout)

    def _head_too_large(self) -> None:
        limit = self._limits.max_header_bytes
        self._refuse(431, "header_too_large", f"the request head is larger than {limit:,} bytes")

    def _arm(self, seconds: float) -> None:
        self._deadline = self.loop.time() + seconds
        # A later deadline is met by the timer already set (it looks again when it fires).
        if self._timer is not None and self._timer.when() > self._deadline:
            self._timer.cancel()
            self._timer = None
        if self._timer is None:
            self._timer = self.loop.call_at(self._deadline, self._check)

    def _disarm(self) -> None:
        self._deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        if self._deadline is None or self.transport.is_closing():
            return
        if self.loop.time() < self._deadline:
            # The deadline moved on (body bytes arrived): wait for the new one.
            self._timer = self.loop.call_at(self._deadline, self._check)
            return
        what = "body" if self._head_done else "head"
        self._refuse(408, "request_timeout", f"the request {what} did not arrive in time")

    def _refuse(self, status: int, type_: str, message: str) -> None:
        """Answer ``status`` unless a response has begun, and close the connection."""
        self._disarm()
        # Until this request's head is done, ``cycle`` is the previous request's, if any.
        if not self._head_done or self.cycle is None or not self.cycle.response_started:
            rid = uuid.uuid4().hex
            body = json.dumps(
                {"error": {"type": type_, "message": message, "request_id": rid}}
            ).encode()
            head = [
                STATUS_LINE[status],
                *(
                    name + b": " + value + b"\r\n"
                    for name, value in self.server_state.default_headers
                ),
                b"content-type: application/json\r\n",
                b"content-length: " + str(len(body)).encode() + b"\r\n",
                b"x-request-id: " + rid.encode() + b"\r\n",
                b"connection: close\r\n\r\n",
            ]
            self.transport.write(b"".join(head) + body)
        # An app still waiting for the body sees the client gone (``connection_lost``).
        self.transport.close()
