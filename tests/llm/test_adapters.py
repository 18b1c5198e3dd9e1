"""The contract both SDK adapters keep, run against each through a local fake server."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable

import pytest

from ragspine.errors import ProviderError
from ragspine.llm.anthropic import AnthropicProvider
from ragspine.llm.openai import OpenAIProvider
from ragspine.llm.protocol import LLMProvider, ToolCall
from tests.agent.fake_llm_server import FakeLLMServer, Reply
from tests.llm.helpers import QUERY_METRIC, anthropic_provider, openai_provider, user

ProviderFactory = Callable[..., LLMProvider]


@pytest.fixture(params=[openai_provider, anthropic_provider], ids=["openai", "anthropic"])
def make_provider(request: pytest.FixtureRequest) -> ProviderFactory:
    factory: ProviderFactory = request.param
    return factory


def test_tool_call_round_trip(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.tool_call("query_metric", {"metric": "REVENUE"}, call_id="t1"))

    response = make_provider(fake_llm_server.base_url).create_message(
        system="s", messages=[user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("t1", "query_metric", {"metric": "REVENUE"})]
    assert response.stop_reason == "tool_use"
    assert response.usage == {"input_tokens": 11, "output_tokens": 7}


def test_text_reply(fake_llm_server: FakeLLMServer, make_provider: ProviderFactory) -> None:
    fake_llm_server.script(Reply.text_reply("Revenue was 1320."))

    response = make_provider(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[]
    )

    assert (response.text, response.tool_calls, response.stop_reason) == (
        "Revenue was 1320.",
        [],
        "end_turn",
    )


def test_malformed_tool_arguments_are_kept_raw(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.malformed_tool_call("query_metric", '{"metric": "REV'))

    response = make_provider(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[QUERY_METRIC]
    )

    [call] = response.tool_calls
    assert (call.name, call.arguments, call.raw_arguments) == (
        "query_metric",
        {},
        '{"metric": "REV',
    )


@pytest.mark.parametrize(("status", "kind"), [(500, "HTTP 500"), (401, "HTTP 401")])
def test_http_error_becomes_provider_error(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory, status: int, kind: str
) -> None:
    fake_llm_server.script(Reply.error(status, "boom"))
    provider = make_provider(fake_llm_server.base_url)

    with pytest.raises(ProviderError, match=f"{kind}.*boom"):
        provider.create_message(system="", messages=[user("q")], tools=[])


def test_timeout_becomes_provider_error(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.slow(5.0))
    provider = make_provider(fake_llm_server.base_url, timeout=0.5)

    with pytest.raises(ProviderError, match=r"no response within 0\.5s"):
        provider.create_message(system="", messages=[user("q")], tools=[])


def test_connection_refused_becomes_provider_error(make_provider: ProviderFactory) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = make_provider(f"http://127.0.0.1:{port}")

    with pytest.raises(ProviderError, match="could not connect"):
        provider.create_message(system="", messages=[user("q")], tools=[])


def test_program_errors_are_not_provider_errors(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.text_reply("unused"))
    provider = make_provider(fake_llm_server.base_url)
    call = {"id": "c1", "name": "query_metric", "arguments": {"metric": object()}}
    unserialisable: list[dict[str, object]] = [
        user("q"),
        {"role": "assistant", "content": "", "tool_calls": [call]},
    ]

    with pytest.raises(TypeError, match="not JSON serializable"):
        provider.create_message(system="", messages=unserialisable, tools=[])
    with pytest.raises(ValueError, match="unknown message role 'bot'"):
        provider.create_message(system="", messages=[{"role": "bot", "content": "x"}], tools=[])


@pytest.mark.parametrize("factory", [OpenAIProvider, AnthropicProvider])
def test_missing_sdk_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, factory: Callable[[], LLMProvider]
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setitem(sys.modules, "anthropic", None)

    with pytest.raises(ImportError, match=r"pip install 'ragspine\[llm\]'"):
        factory()
