from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragspine.errors import ProviderError
from ragspine.llm.anthropic import AnthropicProvider
from ragspine.llm.protocol import to_anthropic_tool
from tests.agent.fake_llm_server import FakeLLMServer, Reply
from tests.llm.helpers import CONVERSATION, FOUND, QUERY_METRIC, anthropic_provider, user


def test_anthropic_wire_format(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"), Reply.text_reply("ok"))
    provider = anthropic_provider(fake_llm_server.base_url)

    provider.create_message(system="Be exact.", messages=CONVERSATION, tools=[QUERY_METRIC])
    provider.create_message(system="", messages=[user("q")], tools=[])

    with_tools, without_tools = (r.body for r in fake_llm_server.requests)
    assert fake_llm_server.requests[0].path == "/v1/messages"
    assert (with_tools["model"], with_tools["max_tokens"]) == ("test-model", 1024)
    assert with_tools["system"] == "Be exact."
    first, assistant, results = with_tools["messages"]
    assert first == {"role": "user", "content": "What was ACME CN revenue in FY2024?"}
    assert assistant["content"][:2] == [
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "c1", "name": "query_metric", "input": {"metric": "REVENUE"}},
    ]
    # Both results to one assistant turn travel in a single user message.
    assert results["role"] == "user"
    assert [b["tool_use_id"] for b in results["content"]] == ["c1", "c2"]
    assert results["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": json.dumps(FOUND),
    }
    assert with_tools["tools"] == [to_anthropic_tool(QUERY_METRIC)]
    assert "tools" not in without_tools
    assert "system" not in without_tools


def test_anthropic_local_server_needs_no_key(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    fake_llm_server.script(Reply.text_reply("ok"))

    AnthropicProvider(base_url=fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[]
    )

    headers = fake_llm_server.requests[0].headers
    # This SDK sends the key as a bearer token; older ones used x-api-key.
    assert "not-needed" in headers.get("authorization", "") + headers.get("x-api-key", "")


def test_anthropic_without_credentials_is_provider_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no profile on disk: nothing resolves

    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider()

    # A config dir that is named but empty makes the SDK itself fail at construction.
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    with pytest.raises(ProviderError, match="Config file not found"):
        AnthropicProvider()
