"""A scripted local HTTP server that speaks the OpenAI and Anthropic wire formats.

Tests drive the real SDKs against it instead of mocking them, so what is checked is the JSON the
SDK really sent and how the adapter reacts to real HTTP failures. Usage::

    with FakeLLMServer() as srv:
        srv.script(Reply.tool_call("query_metric", {"metric": "REVENUE"}), Reply.text_reply("done"))
        provider = OpenAIProvider(base_url=srv.openai_base_url)   # or base_url=srv.base_url
        ...
        assert srv.requests[0].body["tools"][0]["type"] == "function"

Replies are consumed in order by whichever endpoint is called (``POST /v1/chat/completions`` or
``POST /v1/messages``) and rendered in that endpoint's format. An unscripted request gets an
HTTP 500 so a test that calls the model more often than expected fails loudly.

A Chat Completions request with ``"stream": true`` gets its reply as server-sent chunks, sent
with chunked transfer encoding like real servers: the text word by word, the tool call's
arguments a few characters at a time, then the finish reason and ``[DONE]``. ``Reply.cut_stream``
drops the connection after some chunks (a server dying mid-answer), ``Reply.unfinished_stream``
ends the stream cleanly without a finish reason, and ``Reply.raw_stream`` sends chunks as given.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass(frozen=True)
class Reply:
    """One scripted answer; build it with the class methods rather than by hand."""

    text: str = ""
    tool_name: str | None = None
    # A dict is sent as proper arguments; a str is sent verbatim (malformed arguments).
    tool_arguments: dict[str, object] | str = field(default_factory=dict)
    tool_call_id: str = "call_1"
    status: int = 200
    error_message: str = ""
    delay: float = 0.0
    raw_body: dict[str, object] | None = None
    # Streaming only: drop the connection after this many chunks; end without a finish reason;
    # send one chunk per given choice instead of the ones rendered from the reply.
    cut_after: int | None = None
    finish: bool = True
    raw_chunks: tuple[dict[str, object], ...] | None = None

    @classmethod
    def text_reply(cls, text: str) -> Reply:
        return cls(text=text)

    @classmethod
    def tool_call(
        cls, name: str, arguments: dict[str, object], *, call_id: str = "call_1", text: str = ""
    ) -> Reply:
        return cls(text=text, tool_name=name, tool_arguments=arguments, tool_call_id=call_id)

    @classmethod
    def malformed_tool_call(cls, name: str, raw_arguments: str) -> Reply:
        return cls(tool_name=name, tool_arguments=raw_arguments)

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> Reply:
        return cls(status=status, error_message=message)

    @classmethod
    def slow(cls, seconds: float) -> Reply:
        """Answer only after ``seconds``: longer than the client timeout means a timeout."""
        return cls(text="too late", delay=seconds)

    @classmethod
    def raw(cls, body: dict[str, object], status: int = 200) -> Reply:
        """Send ``body`` as is, for shapes the other builders cannot express."""
        return cls(raw_body=body, status=status)

    @classmethod
    def cut_stream(cls, text: str, *, after: int) -> Reply:
        """Stream ``text`` but drop the connection after ``after`` chunks."""
        return cls(text=text, cut_after=after)

    @classmethod
    def unfinished_stream(cls, text: str) -> Reply:
        """Stream ``text`` and ``[DONE]`` but never a finish reason."""
        return cls(text=text, finish=False)

    @classmethod
    def raw_stream(cls, *choices: dict[str, object]) -> Reply:
        """Stream one chunk per choice (``index``, ``delta``, ``finish_reason``), then [DONE]."""
        return cls(raw_chunks=choices)


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


class FakeLLMServer:
    """Threaded HTTP server on 127.0.0.1 with an ephemeral port; use it as a context manager."""

    def __init__(self) -> None:
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (and so every test using the server) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """Root URL: what the Anthropic SDK expects as ``base_url``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """Root URL plus ``/v1``: what the OpenAI SDK expects as ``base_url``."""
        return f"{self.base_url}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order across both endpoints."""
        with self._lock:
            self._replies.extend(replies)

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing.set()  # wakes handlers still sleeping in a slow reply
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def _next_reply(self, path: str, headers: dict[str, str], body: Any) -> Reply:
        with self._lock:
            self.requests.append(RecordedRequest(path=path, headers=headers, body=body))
            if self._replies:
                return self._replies.popleft()
        return Reply.error(500, "no scripted reply left")

    def _wait(self, seconds: float) -> None:
        self._closing.wait(seconds)


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path not in (OPENAI_PATH, ANTHROPIC_PATH):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"null")
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server._next_reply(self.path, headers, body)
            if reply.delay:
                server._wait(reply.delay)
            streamed = isinstance(body, dict) and body.get("stream") is True
            render = _openai_body if self.path == OPENAI_PATH else _anthropic_body
            # The client may have given up (timeout) before a slow reply was ready.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                if streamed and self.path == OPENAI_PATH and reply.status == 200:
                    self._stream(reply)
                else:
                    self._send(reply.status, render(reply))

        def _stream(self, reply: Reply) -> None:
            # Chunked framing needs HTTP/1.1; the connection closes after this one reply.
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for sent, chunk in enumerate(_openai_chunks(reply)):
                if sent == reply.cut_after:
                    # No terminating chunk: the client sees the body break off.
                    self.wfile.flush()
                    return
                self._write_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _send(self, status: int, payload: dict[str, object]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler


def _wire_arguments(reply: Reply) -> str:
    if isinstance(reply.tool_arguments, str):
        return reply.tool_arguments
    return json.dumps(reply.tool_arguments)


def _openai_body(reply: Reply) -> dict[str, object]:
    if reply.raw_body is not None:
        return reply.raw_body
    if reply.status != 200:
        return {"error": {"message": reply.error_message, "type": "server_error", "code": None}}
    message: dict[str, object] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_name is not None:
        message["tool_calls"] = [
            {
                "id": reply.tool_call_id,
                "type": "function",
                "function": {"name": reply.tool_name, "arguments": _wire_arguments(reply)},
            }
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_name else "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def _openai_chunks(reply: Reply) -> list[dict[str, object]]:
    """The reply as ``chat.completion.chunk`` payloads, split the way real servers split them."""
    if reply.raw_chunks is not None:
        return [_chunk(c) for c in reply.raw_chunks]
    deltas: list[dict[str, object]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": word} for word in re.findall(r"\S+\s*", reply.text)]
    if reply.tool_name is not None:
        function = {"name": reply.tool_name, "arguments": ""}
        first = {"index": 0, "id": reply.tool_call_id, "type": "function", "function": function}
        deltas.append({"tool_calls": [first]})
        arguments = _wire_arguments(reply)
        deltas += [
            {"tool_calls": [{"index": 0, "function": {"arguments": arguments[i : i + 5]}}]}
            for i in range(0, len(arguments), 5)
        ]
    chunks = [_chunk({"index": 0, "delta": d, "finish_reason": None}) for d in deltas]
    if reply.finish:
        reason = "tool_calls" if reply.tool_name else "stop"
        chunks.append(_chunk({"index": 0, "delta": {}, "finish_reason": reason}))
    return chunks


def _chunk(choice: dict[str, object]) -> dict[str, object]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
        "choices": [choice],
    }


def _anthropic_body(reply: Reply) -> dict[str, object]:
    if reply.raw_body is not None:
        return reply.raw_body
    if reply.status != 200:
        return {"type": "error", "error": {"type": "api_error", "message": reply.error_message}}
    content: list[dict[str, object]] = [{"type": "text", "text": reply.text}] if reply.text else []
    if reply.tool_name is not None:
        content.append(
            {
                "type": "tool_use",
                "id": reply.tool_call_id,
                "name": reply.tool_name,
                # Anthropic sends parsed input; a malformed call is input that is not an object.
                "input": reply.tool_arguments,
            }
        )
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": content,
        "stop_reason": "tool_use" if reply.tool_name else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }
