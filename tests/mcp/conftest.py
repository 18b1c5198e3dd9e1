"""The MCP tests' workspace, keys, served app and client sessions.

The workspace and keys are the service tests' (the demo plus a RESTRICTED board note; an
INTERNAL, a RESTRICTED and a revoked key). ``served`` runs ``create_app`` under uvicorn on a
loopback port, so ``/mcp`` is reached over real HTTP by the SDK's own client; ``stdio`` spawns
``python -m ragspine mcp`` and talks to it with the SDK's stdio client.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.service_workspace import ServiceKeys
from tests.serving import serve_workspace

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture(scope="session")
def served(service_workspace: Path, service_keys: ServiceKeys) -> Iterator[str]:
    """The service's base URL: ``create_app`` under uvicorn, in a thread of this process."""
    with serve_workspace(service_workspace) as base:
        yield base


@asynccontextmanager
async def http_session(base_url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    """An initialised MCP client session on ``base_url``/mcp, sending ``headers``."""
    import httpx2

    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(f"{base_url}/mcp", http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[ClientSession]:
    """An initialised MCP client session on ``ragspine mcp ARGS`` over stdio."""
    env = {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ragspine", "mcp", *args], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; fails the test on a tool error."""
    result = await session.call_tool(tool, arguments)
    assert not getattr(result, "is_error", False), result
    content: dict[str, Any] = result.structured_content  # type: ignore[attr-defined]
    return content


async def error_of(session: ClientSession, tool: str, **arguments: Any) -> str:
    """A tool error's message (the SDK prefixes it with the tool's name)."""
    result = await session.call_tool(tool, arguments)
    assert getattr(result, "is_error", False), result
    text: str = result.content[0].text  # type: ignore[attr-defined]
    prefix = f"Error executing tool {tool}: "
    assert text.startswith(prefix), text
    return text[len(prefix) :]
