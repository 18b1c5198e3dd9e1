"""An agent loop over MCP: the project's mock provider calls ``query_metric`` through the
SDK's client, and its final answer holds no number the tool did not return.

The provider sees the tools exactly as the MCP server lists them (name, description, input
schema), asks for the figure its slot hint names, and reads back the tool's structured result
(or its tool error). Each case's every number in the final text must be one of the tool
results' numbers or one the request itself carried (its period).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession

from ragspine.llm.mock import MockProvider
from ragspine.llm.protocol import SLOT_HINT_PREFIX
from tests.mcp.conftest import http_session
from tests.mcp.test_tools import FOUND, copies, restricted_fact, slots
from tests.service_workspace import ServiceKeys

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
MAX_TURNS = 4


def numbers(text: str) -> set[float]:
    return {float(n) for n in _NUMBER.findall(text)}


async def agent_loop(
    session: ClientSession, provider: MockProvider, request: dict[str, str]
) -> tuple[str, list[str]]:
    """Run the provider against the MCP tools until it answers; its answer and every tool
    message it read."""
    listed = (await session.list_tools()).tools
    # query_metric first: the mock calls the first tool it is offered.
    ordered = sorted(listed, key=lambda t: t.name != "query_metric")
    tools: list[dict[str, object]] = [
        {"name": t.name, "description": t.description or "", "parameters": t.input_schema}
        for t in ordered
    ]
    hint = f"{SLOT_HINT_PREFIX}{json.dumps(request)}"
    messages: list[dict[str, object]] = [{"role": "user", "content": f"Question\n{hint}"}]
    read: list[str] = []
    for _ in range(MAX_TURNS):
        response = provider.create_message(system="", messages=messages, tools=tools)
        if not response.tool_calls:
            return response.text, read
        messages.append({"role": "assistant", "content": response.text})
        for call in response.tool_calls:
            result = await session.call_tool(call.name, dict(call.arguments))
            content: Any = (
                result.content[0].text  # type: ignore[union-attr]
                if getattr(result, "is_error", False)
                else json.dumps(result.structured_content)  # type: ignore[union-attr]
            )
            read.append(content)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError("the provider never answered")


@pytest.mark.parametrize("case", ["found", "not_found", "restricted", "competitor", "unread"])
def test_the_mock_agent_gets_no_number_the_tools_did_not_return(
    served: str, service_workspace: Path, service_keys: ServiceKeys, case: str
) -> None:
    found = copies(service_workspace, FOUND)[0]
    restricted = restricted_fact(service_workspace)
    request = {
        "found": slots(found),
        "not_found": {**slots(found), "period": "FY2099"},
        "restricted": slots(restricted),
        "competitor": {**slots(found), "entity": "竞安保险"},
        "unread": {**slots(found), "metric": "NO_SUCH_METRIC"},
    }[case]
    provider = MockProvider()

    async def scenario() -> tuple[str, list[str]]:
        headers = {"Authorization": f"Bearer {service_keys.internal}"}
        async with http_session(served, headers) as session:
            return await agent_loop(session, provider, request)

    answer, read = anyio.run(scenario)
    assert provider.calls == 2 and len(read) == 1  # one tool call, then the answer
    returned = numbers(" ".join(read)) | numbers(" ".join(request.values()))
    assert numbers(answer) <= returned, (answer, read)
    if case == "found":
        assert found.value in numbers(answer)
    else:
        assert found.value not in numbers(answer) and restricted.value not in numbers(answer)
        assert numbers(answer) <= numbers(" ".join(request.values()))
