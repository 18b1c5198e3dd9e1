"""An open-loop load generator: POST one body at a fixed arrival rate, latency from the schedule.

wrk is closed-loop: each connection sends its next request only when the last one came back, so
a server that stalls is sent less and its stall hides in few samples (coordinated omission).
wrk2 and vegeta, the usual open-loop tools, are not packaged here, so this is ours:

* Request ``i`` is due at ``start + i / rate``. Its latency runs from that *scheduled* time to
  the last byte of the answer, so time a request waited because the generator or the server
  fell behind is counted, never skipped.
* Each request takes an idle keep-alive connection, or opens a new one when none is idle: a slow
  answer never holds back the next send. ``max_connections`` caps the pool; a request finding
  it full waits for a free connection (still timed from its schedule) and is counted in
  ``waited_for_connection``. A send more than 1 ms after its scheduled time is counted in
  ``late_sends`` (generator lag, also inside the latencies).
* Raw HTTP/1.1 over asyncio protocols (uvloop when installed): the request bytes are built once,
  an answer is read by its ``Content-Length``. Not a general client: it expects the server to
  answer every request with a length and keep the connection open.
* A warm-up at the same rate opens the pool first and is not recorded. The generator's own CPU
  time (user + system) over the measured phase is reported as a share of one core.

Runs as its own process (``python bench/openloop.py URL --rate R --duration D --body-file F
[--header 'Name: value'] [--warmup S]``), printing one JSON object; a non-2xx answer or a
socket error counts as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass
from typing import cast
from urllib.parse import urlsplit

LATE_S = 0.001
MAX_CONNECTIONS = 512
ANSWER_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class OpenLoopResult:
    rate: float
    duration_s: float
    sent: int
    completed: int
    achieved_rps: float
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    errors: int
    late_sends: int
    waited_for_connection: int
    connections_opened: int
    generator_cpu_share: float


class _Connection(asyncio.Protocol):
    """One keep-alive connection answering one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[int] | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("connection closed mid-answer"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        head_end = self.buffer.find(b"\r\n\r\n")
        if head_end < 0 or self.waiter is None or self.waiter.done():
            return
        head = bytes(self.buffer[:head_end]).lower()
        length_at = head.find(b"\r\ncontent-length:")
        if length_at < 0:
            self.waiter.set_exception(ConnectionError("answer without Content-Length"))
            return
        line_end = head.find(b"\r\n", length_at + 2)
        length = int(head[length_at + 17 : line_end if line_end >= 0 else None])
        if len(self.buffer) < head_end + 4 + length:
            return
        status = int(self.buffer[9:12])
        del self.buffer[: head_end + 4 + length]
        self.waiter.set_result(status)

    async def exchange(self, request: bytes) -> int:
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return await asyncio.wait_for(self.waiter, ANSWER_TIMEOUT_S)


class _Generator:
    def __init__(self, host: str, port: int, request: bytes, max_connections: int) -> None:
        self.host, self.port, self.request = host, port, request
        self.max_connections = max_connections
        self.idle: deque[_Connection] = deque()
        self.open = 0
        self.opened = 0
        self.freed = asyncio.Event()
        self.latencies: list[float] = []
        self.errors = 0
        self.waited = 0
        self.recording = False

    async def _connection(self) -> _Connection:
        while True:
            while self.idle:
                connection = self.idle.pop()
                if not connection.closed:
                    return connection
                self.open -= 1
            if self.open < self.max_connections:
                self.open += 1
                self.opened += 1
                try:
                    _, protocol = await asyncio.get_running_loop().create_connection(
                        _Connection, self.host, self.port
                    )
                except OSError:
                    self.open -= 1
                    raise
                return protocol
            self.waited += self.recording
            self.freed.clear()
            await self.freed.wait()

    async def one(self, scheduled: float) -> None:
        recording = self.recording
        ok = False
        connection: _Connection | None = None
        try:
            connection = await self._connection()
            status = await connection.exchange(self.request)
            ok = 200 <= status < 300
        except Exception:  # any failure of a request is an error, counted below
            if connection is not None:
                connection.closed = True
                if connection.transport is not None:
                    connection.transport.close()
        finally:
            if connection is not None:
                if connection.closed:
                    self.open -= 1
                else:
                    self.idle.append(connection)
                self.freed.set()
        if recording:
            self.latencies.append(time.perf_counter() - scheduled)
            self.errors += not ok

    async def phase(self, rate: float, duration: float) -> tuple[int, int, float]:
        """Send at ``rate`` for ``duration`` s; (sent, late sends, wall seconds until every
        answer of the phase is in)."""
        total = max(1, round(rate * duration))
        interval = 1.0 / rate
        tasks: set[asyncio.Task[None]] = set()
        late = 0
        start = time.perf_counter()
        for i in range(total):
            due = start + i * interval
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            if time.perf_counter() - due > LATE_S:
                late += 1
            task = asyncio.create_task(self.one(due))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks)
        return total, late, time.perf_counter() - start


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    rank = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))
    return sorted_values[rank]


async def run_open_loop(
    url: str,
    body: bytes,
    *,
    rate: float,
    duration: float,
    headers: list[tuple[str, str]] | None = None,
    warmup: float = 1.0,
    max_connections: int = MAX_CONNECTIONS,
) -> OpenLoopResult:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    lines = [
        f"POST {parts.path or '/'} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in headers or []),
    ]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    generator = _Generator(host, port, request, max_connections)
    if warmup > 0:
        await generator.phase(rate, warmup)
    generator.recording = True
    before = resource.getrusage(resource.RUSAGE_SELF)
    sent, late, wall = await generator.phase(rate, duration)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for connection in generator.idle:
        if connection.transport is not None:
            connection.transport.close()
    latencies = sorted(generator.latencies)
    completed = len(latencies) - generator.errors
    return OpenLoopResult(
        rate=rate,
        duration_s=duration,
        sent=sent,
        completed=completed,
        achieved_rps=completed / wall,
        p50_ms=_percentile(latencies, 0.50) * 1000,
        p99_ms=_percentile(latencies, 0.99) * 1000,
        p999_ms=_percentile(latencies, 0.999) * 1000,
        max_ms=(latencies[-1] * 1000) if latencies else 0.0,
        errors=generator.errors,
        late_sends=late,
        waited_for_connection=generator.waited,
        connections_opened=generator.opened,
        generator_cpu_share=cpu / wall,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--rate", type=float, required=True, help="requests per second")
    parser.add_argument("--duration", type=float, required=True, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=1.0, help="unrecorded seconds first")
    parser.add_argument("--body-file", required=True, help="the POST body (JSON)")
    parser.add_argument("--header", action="append", default=[], help="'Name: value'")
    parser.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS)
    args = parser.parse_args(argv)
    with open(args.body_file, "rb") as f:
        body = f.read()
    headers = [tuple(part.strip() for part in h.split(":", 1)) for h in args.header]
    main_coroutine = run_open_loop(
        args.url,
        body,
        rate=args.rate,
        duration=args.duration,
        headers=[(name, value) for name, value in headers],
        warmup=args.warmup,
        max_connections=args.max_connections,
    )
    try:
        import uvloop
    except ImportError:
        result = asyncio.run(main_coroutine)
    else:
        result = uvloop.run(main_coroutine)
    print(json.dumps(asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
