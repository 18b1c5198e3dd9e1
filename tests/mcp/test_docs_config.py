"""docs/mcp.md's client configurations, used as a client uses them: the stdio entry's command
and arguments start the server, the HTTP entry's URL and headers reach ``/mcp``; each then
lists exactly the tools (and their inputs) of the page's tool table and answers a figure of
the corpus's ground truth. Only the placeholders are replaced: the workspace path, the host
and port, the key."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.conftest import SRC, call
from tests.mcp.test_tools import FOUND, copies, slots
from tests.service_workspace import ServiceKeys

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
TEXT = GUIDE.read_text(encoding="utf-8")
WORKSPACE_PLACEHOLDER = "/path/to/ws"
KEY_PLACEHOLDER = "rsk_..."
DOCUMENTED_BASE = "http://127.0.0.1:8000"


def configurations() -> tuple[dict[str, Any], dict[str, Any]]:
    """The page's stdio and HTTP ``mcpServers`` entries, in that order."""
    found = [
        json.loads(block)["mcpServers"]["ragspine"]
        for block in re.findall(r"```json\n(.*?)```", TEXT, re.S)
    ]
    assert len(found) == 2, found
    stdio, http = found
    assert "command" in stdio and http["type"] == "http"
    return stdio, http


def documented_tools() -> dict[str, set[str]]:
    """The tool table: each tool's name and the names its Input column gives."""
    table = TEXT.split("## Tools", 1)[1].split("\n\n", 2)[1]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    return {
        re.findall(r"`(\w+)`", name)[0]: set(re.findall(r"`(\w+)`", inputs))
        for name, inputs in rows
    }


async def check(session: ClientSession, workspace: Path) -> None:
    listed = (await session.list_tools()).tools
    assert {t.name: set(t.input_schema["properties"]) for t in listed} == documented_tools()
    found = copies(workspace, FOUND)[0]
    hit = await call(session, "query_metric", **slots(found))
    assert (hit["status"], hit["value"], hit["unit"]) == ("found", found.value, found.unit)


def test_the_stdio_configuration_starts_the_server(service_workspace: Path) -> None:
    stdio, _ = configurations()
    # The console script of the environment running the tests, as a client finds it on PATH.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    command = shutil.which(stdio["command"], path=path)
    assert command is not None, stdio["command"]
    args = [str(service_workspace) if a == WORKSPACE_PLACEHOLDER else a for a in stdio["args"]]
    assert args != stdio["args"]
    env = {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    server = StdioServerParameters(command=command, args=args, env=env)

    async def scenario() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session, service_workspace)

    anyio.run(scenario)


def test_the_http_configuration_reaches_the_service(
    served: str, service_workspace: Path, service_keys: ServiceKeys
) -> None:
    import httpx2

    _, http = configurations()
    assert http["url"].startswith(DOCUMENTED_BASE)
    url = served + http["url"].removeprefix(DOCUMENTED_BASE)
    headers = {
        name: value.replace(KEY_PLACEHOLDER, service_keys.internal)
        for name, value in http["headers"].items()
    }
    assert headers != http["headers"]

    async def scenario() -> None:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await check(session, service_workspace)

    anyio.run(scenario)
