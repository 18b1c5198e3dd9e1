"""``ragspine mcp``: the MCP server on stdio for a local client, at one clearance.

The answerer and its parts are the HTTP service's own (the backend over the workspace or the
deployment, its FAQ and its LLM provider), so a tool called over stdio passes the same gates
as ``/v1``; the caller is the command line's, with the clearance it names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

from ragspine.llm.factory import build_provider
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.answering import Answerer
from ragspine.service.keys.store import Caller
from ragspine.service.mcp_server.tools import build_server
from ragspine.service.parts import close_all, open_backend, open_faq
from ragspine.service.settings import ServiceSettings

# The caller's name in traces: a local process, not a key.
STDIO_CALLER = "mcp-stdio"


def open_answerer(settings: ServiceSettings) -> tuple[Answerer, Callable[[], None]]:
    """The answerer ``settings`` describe and the function closing it and its parts."""
    provider = build_provider(settings.provider, model=settings.model, base_url=settings.base_url)
    owned: list[Callable[[], None]] = []
    try:
        backend = open_backend(settings, owned)
        faq = open_faq(settings, backend, owned)
    except BaseException:
        close_all(owned)
        raise
    answerer = Answerer(settings, provider, faq, backend)

    def close() -> None:
        answerer.close()
        close_all(owned)

    return answerer, close


def serve_stdio(settings: ServiceSettings, clearance: Sensitivity) -> None:
    """Serve the MCP server on stdin/stdout until the client closes it."""
    answerer, close = open_answerer(settings)
    caller = Caller(STDIO_CALLER, clearance)

    def caller_of(_: Context[Any, Any]) -> Caller:
        return caller

    try:
        server = build_server(answerer, caller_of, max_question_chars=settings.max_question_chars)
        server.run("stdio")
    finally:
        close()
