"""What every request passes through: its id, the body size limit, JSON errors, the access log
and the metrics.

The access log and the metrics name the route template, the status, the duration, the request
id and the key's name — never the key, the question or the answer. The error log names a
failure's request id, class and frames, never its message (see :func:`ragspine.errors.withheld`).
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any, overload

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragspine.errors import RagSpineError, UnavailableError, mapping_for, withheld
from ragspine.observability.trace import new_request_id
from ragspine.service.http.access_log import log_access
from ragspine.service.http.direct import DirectRoutes

_LOG = logging.getLogger("ragspine.service")

REQUEST_ID_HEADER = "X-Request-ID"
# A client's id is kept only when it is short and plain, so it is safe in logs and headers.
_WELL_FORMED_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
UNMATCHED = "<unmatched>"
# Seconds a client is asked to wait after a 503 for a store or queue that does not answer: a
# database restart or a lost pooled connection is over in a few seconds.
UNAVAILABLE_RETRY_SECONDS = 2

_TYPES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    503: "unavailable",
}
# Latency buckets in seconds: structured answers take about a millisecond, narrative ones more.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The app's Prometheus collectors, in a registry of its own (never the global one)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "ragspine_http_requests",
            "HTTP requests by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "ragspine_http_request_duration_seconds",
            "HTTP request latency by route template and method.",
            ["route", "method"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.answers = Counter(
            "ragspine_answers",
            "Answers by endpoint, answer route (faq, structured, narrative, composite) and kind.",
            ["endpoint", "route", "answer_kind"],
            registry=self.registry,
        )
        self.answer_latency = Histogram(
            "ragspine_answer_duration_seconds",
            "Time to compute an answer, by answer route and kind.",
            ["route", "answer_kind"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        # Each label set's children, found once: ``labels()`` checks and locks on every call.
        self._served: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self._answered: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}

    def served(self, route: str, method: str, status: int, seconds: float) -> None:
        """One HTTP request: its route template, method, status and duration."""
        key = (route, method, status)
        children = self._served.get(key)
        if children is None:
            children = (
                self.requests.labels(route, method, str(status)),
                self.latency.labels(route, method),
            )
            self._served[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def answered(self, endpoint: str, route: str, kind: str, seconds: float) -> None:
        """One answer: the endpoint asked, the answer's route and kind, and its duration."""
        key = (endpoint, route, kind)
        children = self._answered.get(key)
        if children is None:
            children = (
                self.answers.labels(endpoint, route, kind),
                self.answer_latency.labels(route, kind),
            )
            self._answered[key] = children
        children[0].inc()
        children[1].observe(seconds)


def request_headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by name (lower case, as ASGI servers give them), the first of
    each name as Starlette's ``Headers.get`` finds it; read once per request and kept in the
    scope while its header list is the same. The edge and the hot endpoints read the few they
    need from it instead of scanning the list for each (with the request id appended without
    ``MutableHeaders``, 21k of the edge's 95k instructions a structured question)."""
    raw = scope["headers"]
    kept = scope.get(_HEADERS_KEY)
    if kept is not None and kept[0] is raw:
        known: dict[bytes, bytes] = kept[1]
        return known
    if not isinstance(raw, list):  # ASGI allows any iterable; Starlette makes it a list too
        raw = scope["headers"] = list(raw)
    found = dict(reversed(raw))  # the first of a name is set last, so it stays
    scope[_HEADERS_KEY] = (raw, found)
    return found


_HEADERS_KEY = "ragspine.headers"


@overload
def request_header(scope: Scope, name: bytes) -> str | None: ...
@overload
def request_header(scope: Scope, name: bytes, default: str) -> str: ...
def request_header(scope: Scope, name: bytes, default: str | None = None) -> str | None:
    """The first value of header ``name`` (lower case), as ``Headers.get`` reads it."""
    value = request_headers(scope).get(name)
    return default if value is None else value.decode("latin-1")


def request_id_of(request: Request) -> str:
    return str(getattr(request.state, "request_id", "")) or new_request_id()


def error_response(
    status: int,
    message: str,
    request_id: str,
    *,
    type_: str | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "error": {
            "type": type_ or _TYPES.get(status, "error"),
            "message": message,
            "request_id": request_id,
        }
    }
    return JSONResponse(body | (extra or {}), status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Every error leaves as ``{"error": {"type", "message", "request_id"}}``; a failure of ours
    (5xx) is logged with its detail and answered without it. (Anything unexpected is answered
    by :class:`Edge`.)"""

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        return error_response(
            exc.status_code,
            str(exc.detail),
            request_id_of(request),
            headers=dict(exc.headers or {}),
        )

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        # Where and what, never the input itself (it may be the question).
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}"
            for e in exc.errors()[:5]
        )
        return error_response(422, problems or "invalid request", request_id_of(request))

    async def ours(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RagSpineError)
        mapping = mapping_for(exc)
        rid = request_id_of(request)
        # A 503 is a store or a queue that does not answer now: the client may retry.
        headers = (
            {"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)} if mapping.http_status == 503 else None
        )
        if isinstance(exc, UnavailableError):
            # Written for the caller (what is down and that nothing was done), never input.
            return error_response(503, str(exc), rid, type_=mapping.type, headers=headers)
        if mapping.http_status >= 500:
            _LOG.error("request %s failed: %s: %s", rid, type(exc).__name__, exc)
            message = f"the service could not answer ({mapping.type}); see request {rid}"
            return error_response(
                mapping.http_status, message, rid, type_=mapping.type, headers=headers
            )
        return error_response(mapping.http_status, str(exc), rid, type_=mapping.type)

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(RagSpineError, ours)


class Edge:
    """Pure ASGI middleware: request id in and out, body limits, access log, request metrics,
    and the 500 answer to anything unexpected (a response already started is cut short).
    The ``direct`` routes are served from here, past FastAPI's router (``direct.py``).

    The body limit is checked twice: a declared ``Content-Length`` over it is refused before
    the app runs, and the bytes actually received are counted (a chunked body has no length).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: Metrics,
        max_body_bytes: int,
        upload_path: str,
        max_upload_bytes: int,
        direct: DirectRoutes | None = None,
    ) -> None:
        self.app = app
        self.direct = direct
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self.upload_path = upload_path
        self.max_upload_bytes = max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent = request_header(scope, b"x-request-id", "")
        rid = sent if sent and _WELL_FORMED_ID.fullmatch(sent) else new_request_id()
        rid_header = (b"x-request-id", rid.encode("latin-1"))
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = rid
        status = 0
        limit = self.max_upload_bytes if scope["path"] == self.upload_path else self.max_body_bytes

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # A copy: never the response's own list of headers.
                headers = message["headers"] = list(message.get("headers", ()))
                if any(name == b"x-request-id" for name, _ in headers):
                    MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid  # the first replaced
                else:
                    headers.append(rid_header)
            await send(message)

        received = 0

        async def counted(message_source: Receive = receive) -> Message:
            nonlocal received
            message = await message_source()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, _too_large(limit))
            return message

        try:
            declared = _declared_length(request_header(scope, b"content-length"))
            if declared is not None and declared > limit:
                await error_response(413, _too_large(limit), rid)(scope, receive, send_with_id)
            elif self.direct is not None and (route := self.direct.match(scope)) is not None:
                await self.direct.serve(route, scope, counted, send_with_id)
            else:
                await self.app(scope, counted, send_with_id)
        except HTTPException as exc:
            # Counted bytes over the limit while something outside a route was reading.
            if exc.status_code != 413 or status:
                raise
            await error_response(413, str(exc.detail), rid)(scope, receive, send_with_id)
        except Exception as exc:
            # Anything unexpected ends here, logged without its message: Starlette's last
            # resort would re-raise it for the server to log whole, question and all.
            _LOG.error("request %s failed: %s", rid, withheld(exc))
            if not status:
                await error_response(
                    500, f"internal error; see request {rid}", rid, type_="internal_error"
                )(scope, receive, send_with_id)
        finally:
            self._record(scope, state, rid, status or 500, time.perf_counter() - started)

    def _record(
        self, scope: Scope, state: dict[str, Any], rid: str, status: int, seconds: float
    ) -> None:
        route = scope.get("route")
        template = str(getattr(route, "path", UNMATCHED))
        method = str(scope["method"])
        self.metrics.served(template, method, status, seconds)
        log_access(method, template, status, seconds, rid, state.get("key_name", "-"))


def _declared_length(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def _too_large(limit: int) -> str:
    return f"the request body is larger than this endpoint's limit of {limit:,} bytes"
