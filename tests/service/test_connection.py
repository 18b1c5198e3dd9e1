"""``GuardedProtocol`` under a real uvicorn on loopback: a head must come whole in time and
within its size, a body must keep up its minimum rate; a steady client passes."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from ragspine.service.http.connection import GuardedProtocol, connection_limits

HEADER_TIMEOUT = 0.5
BODY_TIMEOUT = 0.5
MIN_RATE = 1_000
MAX_HEADER_BYTES = 4_096


async def echo(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers 200 with the request body, once it has all of it."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    for name, value in (
        ("HEADER_TIMEOUT", HEADER_TIMEOUT),
        ("BODY_TIMEOUT", BODY_TIMEOUT),
        ("BODY_MIN_RATE", MIN_RATE),
        ("MAX_HEADER_BYTES", MAX_HEADER_BYTES),
    ):
        monkeypatch.setenv(f"RAGSPINE_{name}", str(value))
    connection_limits.cache_clear()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(echo, http=GuardedProtocol, lifespan="off", log_config=None)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(10)
    sock.close()
    connection_limits.cache_clear()


def send_slowly(port: int, pieces: list[bytes], pause: float) -> tuple[int, float]:
    """Send ``pieces`` ``pause`` seconds apart (stopping once answered); the status and the
    seconds it took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.settimeout(pause)
        received = b""
        for piece in pieces:
            try:
                sock.sendall(piece)
                received += sock.recv(4096)
                break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.settimeout(10)
        while block := sock.recv(4096):
            received += block
    return int(received.split(b" ", 2)[1]), time.monotonic() - started


HEAD = b"POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"


def test_a_head_sent_a_byte_at_a_time_is_408_at_its_deadline(port: int) -> None:
    status, seconds = send_slowly(port, [HEAD] + [b"X"] * 40, 0.05)
    assert status == 408
    assert HEADER_TIMEOUT <= seconds < HEADER_TIMEOUT + 1


def test_a_head_over_the_size_limit_is_431_and_one_within_it_is_served(port: int) -> None:
    def whole(extra: int) -> int:
        request = HEAD + b"X-Pad: " + b"a" * extra + b"\r\nContent-Length: 2\r\n\r\nok"
        status, _ = send_slowly(port, [request], 5)
        return status

    assert whole(MAX_HEADER_BYTES) == 431
    assert whole(MAX_HEADER_BYTES - 200) == 200
    # A head that never ends is cut once its buffered bytes pass the limit.
    endless = [HEAD + b"X-Pad: "] + [b"a" * 1_000] * 20
    assert send_slowly(port, endless, 0.01)[0] == 431


def test_a_head_over_the_limit_only_with_its_last_read_is_431(port: int) -> None:
    # The first read stays within the limit and leaves the head open; the second ends it
    # past the limit (the head is measured when its reads together may exceed it).
    opening = HEAD + b"X-Pad: " + b"a" * (MAX_HEADER_BYTES - 300)
    closing = b"b" * 400 + b"\r\nContent-Length: 2\r\n\r\nok"
    assert send_slowly(port, [opening, closing], 0.2)[0] == 431
    within = b"b" * 100 + b"\r\nContent-Length: 2\r\n\r\nok"
    assert send_slowly(port, [opening, within], 0.2)[0] == 200


def test_a_dripped_body_is_408_and_a_steady_one_is_served(port: int) -> None:
    opening = HEAD + b"Content-Length: 4000\r\n\r\n"
    dripped, seconds = send_slowly(port, [opening] + [b"x"] * 100, 0.05)
    assert dripped == 408 and seconds < BODY_TIMEOUT + 1
    # 500 bytes every 0.25 s is 2,000 B/s, above the minimum: it takes 2 s, well past the
    # bare timeout, and passes.
    steady, seconds = send_slowly(port, [opening] + [b"y" * 500] * 8, 0.25)
    assert steady == 200 and seconds > BODY_TIMEOUT


def test_the_next_head_on_a_kept_alive_connection_has_its_own_deadline(port: int) -> None:
    first = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(first)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        sock.sendall(b"POST / HTTP/1.1\r\n")
        answer = b""
        while block := sock.recv(4096):
            answer += block
    assert answer.startswith(b"HTTP/1.1 408")
    assert time.monotonic() - started < HEADER_TIMEOUT + 1
