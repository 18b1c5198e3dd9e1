"""``/mcp``: the MCP server's streamable HTTP transport inside the service.

The caller's API key decides the clearance exactly as on ``/v1``: ``Authorization: Bearer
<key>`` or ``X-API-Key``, the same 401 for no key or an unknown or revoked one (checked before
the MCP transport sees the request), and each tool call reads the key of its own request
again, so a session never outlives its key's revocation nor borrows another request's key.
The transport is stateless (each request stands alone, JSON responses), so it works the same
behind ``--workers N`` processes. Without the ``mcp`` extra nothing is mounted.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from fastapi import FastAPI, Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ragspine.service.answering import Answerer
from ragspine.service.http.edge import error_response, request_id_of
from ragspine.service.keys.store import (
    KEY_REQUIRED,
    KEY_UNKNOWN,
    NO_AUTH_NAME,
    Authenticator,
    Caller,
)
from ragspine.service.settings import ServiceSettings

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

MCP_PATH = "/mcp"


class KeyRefused(Exception):
    """No key, or an unknown or revoked one: the message is the API's 401 message."""


def caller_of_headers(
    headers: Mapping[str, str] | None,
    settings: ServiceSettings,
    authenticator: Authenticator | None,
) -> Caller:
    """The caller whose key ``headers`` carry, as ``/v1`` decides it; raises ``KeyRefused``."""
    if settings.no_auth:
        return Caller(NO_AUTH_NAME, settings.no_auth_clearance)
    token = _token(headers or {})
    if not token:
        raise KeyRefused(KEY_REQUIRED)
    assert authenticator is not None  # create_app requires one with auth on
    found = authenticator.authenticate(token)
    if found is None:
        raise KeyRefused(KEY_UNKNOWN)
    return found


def _token(headers: Mapping[str, str]) -> str | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    scheme, _, credentials = lowered.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return lowered.get("x-api-key") or None


def mount_mcp(
    app: FastAPI,
    answerer: Answerer,
    settings: ServiceSettings,
    authenticator: Authenticator | None,
) -> Callable[[], AbstractAsyncContextManager[Any]]:
    """Route ``/mcp`` to the MCP server; return what the app's lifespan runs the transport
    in (a fresh one each time the app starts); a no-op without the ``mcp`` extra."""
    if importlib.util.find_spec("mcp") is None:
        return nullcontext
    from mcp.server.transport_security import TransportSecuritySettings

    from ragspine.service.mcp_server.tools import ToolFailure, build_server

    def caller_of(ctx: Context[Any, Any]) -> Caller:
        try:
            return caller_of_headers(ctx.headers, settings, authenticator)
        except KeyRefused as err:
            raise ToolFailure(str(err)) from err

    server = build_server(answerer, caller_of, max_question_chars=settings.max_question_chars)
    keyed = _Keyed(settings, authenticator)

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        # The SDK's own app is not mounted (the route puts the key check in front of its
        # transport); building it makes a session manager, which runs once: one per start.
        server.streamable_http_app(
            json_response=True,
            stateless_http=True,
            # The API key guards every request; DNS-rebinding protection would also refuse
            # any Host but loopback, which a deployment behind its own name needs.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = server.session_manager
        async with manager.run():
            keyed.transport = manager.handle_request
            try:
                yield
            finally:
                keyed.transport = None

    app.router.routes.append(Route(MCP_PATH, endpoint=keyed, methods=_METHODS))
    return running


_METHODS = ["GET", "POST", "DELETE"]


class _Keyed:
    """The transport behind the API-key check (an ASGI app, so the route passes it the raw
    request); ``transport`` is set while the app runs."""

    def __init__(self, settings: ServiceSettings, authenticator: Authenticator | None) -> None:
        self.transport: Callable[[Scope, Receive, Send], Awaitable[None]] | None = None
        self._settings = settings
        self._authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            await anyio.to_thread.run_sync(
                caller_of_headers, dict(request.headers), self._settings, self._authenticator
            )
        except KeyRefused as err:
            refusal = error_response(
                401, str(err), request_id_of(request), headers={"WWW-Authenticate": "Bearer"}
            )
            await refusal(scope, receive, send)
            return
        assert self.transport is not None, "the app's lifespan runs the MCP transport"
        await self.transport(scope, receive, send)
