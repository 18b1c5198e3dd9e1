from __future__ import annotations

import json
import socket
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import (
    SLOT_HINT_PREFIX,
    AnthropicProvider,
    LLMProvider,
    MockProvider,
    OpenAIProvider,
    ProviderError,
    ToolCall,
    to_anthropic_tool,
    to_openai_tool,
)
from ragspine.agent.messages import zh
from tests.agent.fake_llm_server import FakeLLMServer, Reply
from tests.agent.helpers import CountingStore

QUERY_METRIC: dict[str, object] = {
    "name": "query_metric",
    "description": "Look up one metric value.",
    "parameters": {
        "type": "object",
        "properties": {"metric": {"type": "string"}, "entity": {"type": "string"}},
        "required": ["metric"],
    },
}
SLOTS: dict[str, object] = {
    "metric": "REVENUE",
    "entity": "ACME_CN",
    "period": "FY2024",
    "channel": None,
}
FOUND: dict[str, object] = {
    "status": "found",
    "value": 1320,
    "unit": "USD_M",
    "metric_code": "REVENUE",
    "entity": "ACME_CN",
    "period_type": "FY",
    "period": "2024",
    "channel": "TOTAL",
}

# A conversation that has been through one tool round, with two results to the same turn.
CONVERSATION: list[dict[str, object]] = [
    {"role": "user", "content": "What was ACME CN revenue in FY2024?"},
    {
        "role": "assistant",
        "content": "Looking it up.",
        "tool_calls": [
            {"id": "c1", "name": "query_metric", "arguments": {"metric": "REVENUE"}},
            {"id": "c2", "name": "query_metric", "arguments": {"metric": "EBIT"}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "query_metric", "content": json.dumps(FOUND)},
    {"role": "tool", "tool_call_id": "c2", "name": "query_metric", "content": '{"status": "x"}'},
]


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def _hint(slots: dict[str, object]) -> str:
    return f"Question: revenue?\n{SLOT_HINT_PREFIX}{json.dumps(slots)}"


def _tool_result(result: dict[str, object]) -> dict[str, object]:
    return {"role": "tool", "tool_call_id": "mock-call-1", "content": json.dumps(result)}


# --------------------------------------------------------------------------- MockProvider


def test_mock_emits_tool_call_from_last_slot_hint_without_nulls() -> None:
    provider: LLMProvider = MockProvider()
    older = _user(_hint({"metric": "EBIT", "entity": "ACME_HK"}))

    response = provider.create_message(
        system="s", messages=[older, _user(_hint(SLOTS))], tools=[QUERY_METRIC]
    )

    expected: dict[str, object] = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024"}
    assert response.tool_calls == [ToolCall("mock-call-1", "query_metric", expected)]
    assert (response.text, response.stop_reason) == ("", "tool_use")


@pytest.mark.parametrize("text", ["What is revenue?", f"{SLOT_HINT_PREFIX}{{not json"])
def test_mock_without_usable_hint_answers_in_text(text: str) -> None:
    response = MockProvider().create_message(
        system="", messages=[_user(text)], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == []
    assert "could not determine" in response.text
    assert response.stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (FOUND, "ACME_CN 2024 REVENUE: 1320 USD_M"),
        ({"status": "not_found", "normalized": {"metric_code": "REVENUE"}}, "not found"),
        ({"status": "unrecognized_param", "param": "entity", "raw": "Foo"}, "entity"),
    ],
)
def test_mock_summarises_last_tool_result(result: dict[str, object], expected: str) -> None:
    messages = [_user(_hint(SLOTS)), _tool_result({"status": "not_found"}), _tool_result(result)]

    response = MockProvider().create_message(system="", messages=messages, tools=[QUERY_METRIC])

    assert expected in response.text
    assert (response.tool_calls, response.stop_reason) == ([], "end_turn")


def test_mock_synthesis_quotes_first_sentence_of_first_three_snippets() -> None:
    prompt = "\n".join(
        [
            "Answer from the snippets.",
            "[1] (source: deck (final).pptx · slide=5,notes) Revenue rose 3.5% on volume. More.",
            "[2] (source: memo.docx · page=3,para=2-4) 香港收入增长。主要因为旅游。",
            "[3] Prices were cut! Then margins fell.",
            "[4] (source: x.pdf · page=1) Never quoted.",
        ]
    )

    response = MockProvider().create_message(system="", messages=[_user(prompt)], tools=[])

    assert response.text == (
        "Revenue rose 3.5% on volume. [1] 香港收入增长。 [2] Prices were cut! [3]"
    )
    assert (response.tool_calls, response.stop_reason) == ([], "end_turn")


def test_mock_synthesis_without_snippets_is_empty() -> None:
    response = MockProvider().create_message(system="", messages=[_user("why?")], tools=[])

    assert response.text == ""


def test_mock_counts_every_call() -> None:
    provider = MockProvider()
    assert provider.calls == 0

    provider.create_message(system="", messages=[_user("a")], tools=[])
    provider.create_message(system="", messages=[_user(_hint(SLOTS))], tools=[QUERY_METRIC])

    assert provider.calls == 2


# --------------------------------------------------------------------------- converters


def test_tool_converters_reshape_the_neutral_spec() -> None:
    assert to_anthropic_tool(QUERY_METRIC) == {
        "name": "query_metric",
        "description": "Look up one metric value.",
        "input_schema": QUERY_METRIC["parameters"],
    }
    assert to_openai_tool(QUERY_METRIC) == {
        "type": "function",
        "function": {
            "name": "query_metric",
            "description": "Look up one metric value.",
            "parameters": QUERY_METRIC["parameters"],
        },
    }


# --------------------------------------------------------------------------- SDK adapters

ProviderFactory = Callable[..., LLMProvider]


def _openai(root_url: str, *, timeout: float = 5.0) -> OpenAIProvider:
    return OpenAIProvider("test-model", base_url=f"{root_url}/v1", api_key="k", timeout=timeout)


def _anthropic(root_url: str, *, timeout: float = 5.0) -> AnthropicProvider:
    return AnthropicProvider("test-model", base_url=root_url, api_key="k", timeout=timeout)


@pytest.fixture(params=[_openai, _anthropic], ids=["openai", "anthropic"])
def make_provider(request: pytest.FixtureRequest) -> ProviderFactory:
    factory: ProviderFactory = request.param
    return factory


def test_tool_call_round_trip(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.tool_call("query_metric", {"metric": "REVENUE"}, call_id="t1"))

    response = make_provider(fake_llm_server.base_url).create_message(
        system="s", messages=[_user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("t1", "query_metric", {"metric": "REVENUE"})]
    assert response.stop_reason == "tool_use"
    assert response.usage == {"input_tokens": 11, "output_tokens": 7}


def test_text_reply(fake_llm_server: FakeLLMServer, make_provider: ProviderFactory) -> None:
    fake_llm_server.script(Reply.text_reply("Revenue was 1320."))

    response = make_provider(fake_llm_server.base_url).create_message(
        system="", messages=[_user("q")], tools=[]
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
        system="", messages=[_user("q")], tools=[QUERY_METRIC]
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
        provider.create_message(system="", messages=[_user("q")], tools=[])


def test_timeout_becomes_provider_error(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.slow(5.0))
    provider = make_provider(fake_llm_server.base_url, timeout=0.5)

    with pytest.raises(ProviderError, match=r"no response within 0\.5s"):
        provider.create_message(system="", messages=[_user("q")], tools=[])


def test_connection_refused_becomes_provider_error(make_provider: ProviderFactory) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = make_provider(f"http://127.0.0.1:{port}")

    with pytest.raises(ProviderError, match="could not connect"):
        provider.create_message(system="", messages=[_user("q")], tools=[])


def test_program_errors_are_not_provider_errors(
    fake_llm_server: FakeLLMServer, make_provider: ProviderFactory
) -> None:
    fake_llm_server.script(Reply.text_reply("unused"))
    provider = make_provider(fake_llm_server.base_url)
    call = {"id": "c1", "name": "query_metric", "arguments": {"metric": object()}}
    unserialisable: list[dict[str, object]] = [
        _user("q"),
        {"role": "assistant", "content": "", "tool_calls": [call]},
    ]

    with pytest.raises(TypeError, match="not JSON serializable"):
        provider.create_message(system="", messages=unserialisable, tools=[])
    with pytest.raises(ValueError, match="unknown message role 'bot'"):
        provider.create_message(system="", messages=[{"role": "bot", "content": "x"}], tools=[])


# --------------------------------------------------------------------------- OpenAI specifics


def test_openai_wire_format(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"), Reply.text_reply("ok"))
    provider = _openai(fake_llm_server.base_url)

    provider.create_message(system="Be exact.", messages=CONVERSATION, tools=[QUERY_METRIC])
    provider.create_message(system="", messages=[_user("q")], tools=[])

    with_tools, without_tools = (r.body for r in fake_llm_server.requests)
    assert fake_llm_server.requests[0].path == "/v1/chat/completions"
    assert (with_tools["model"], with_tools["temperature"], with_tools["max_tokens"]) == (
        "test-model",
        0.0,
        1024,
    )
    system, user, assistant, result_1, result_2 = with_tools["messages"]
    assert system == {"role": "system", "content": "Be exact."}
    assert user == {"role": "user", "content": "What was ACME CN revenue in FY2024?"}
    assert assistant["content"] == "Looking it up."
    assert assistant["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "query_metric", "arguments": '{"metric": "REVENUE"}'},
    }
    assert result_1 == {"role": "tool", "tool_call_id": "c1", "content": json.dumps(FOUND)}
    assert result_2["tool_call_id"] == "c2"
    assert with_tools["tools"] == [to_openai_tool(QUERY_METRIC)]
    assert "tools" not in without_tools
    assert without_tools["messages"] == [{"role": "user", "content": "q"}]


def test_openai_accepts_lenient_local_server_replies(fake_llm_server: FakeLLMServer) -> None:
    # Object-valued arguments and finish_reason "stop" beside a tool call, as some servers send.
    call = {"id": "t1", "type": "function", "function": {"name": "q", "arguments": {"a": 1}}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    fake_llm_server.script(
        Reply.raw({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
    )

    response = _openai(fake_llm_server.base_url).create_message(
        system="", messages=[_user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("t1", "q", {"a": 1})]
    assert (response.stop_reason, response.usage) == ("tool_use", {})


def test_openai_reply_without_choices_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.raw({"id": "x", "choices": []}))

    with pytest.raises(ProviderError, match="no choices"):
        _openai(fake_llm_server.base_url).create_message(system="", messages=[], tools=[])


def test_openai_local_server_needs_no_key(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_llm_server.script(Reply.text_reply("ok"))

    OpenAIProvider(base_url=fake_llm_server.openai_base_url).create_message(
        system="", messages=[_user("q")], tools=[]
    )

    assert fake_llm_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_openai_without_key_or_server_is_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        OpenAIProvider()


@pytest.mark.parametrize("factory", [OpenAIProvider, AnthropicProvider])
def test_missing_sdk_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, factory: Callable[[], LLMProvider]
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setitem(sys.modules, "anthropic", None)

    with pytest.raises(ImportError, match=r"pip install 'ragspine\[llm\]'"):
        factory()


# --------------------------------------------------------------------------- Anthropic specifics


def test_anthropic_wire_format(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"), Reply.text_reply("ok"))
    provider = _anthropic(fake_llm_server.base_url)

    provider.create_message(system="Be exact.", messages=CONVERSATION, tools=[QUERY_METRIC])
    provider.create_message(system="", messages=[_user("q")], tools=[])

    with_tools, without_tools = (r.body for r in fake_llm_server.requests)
    assert fake_llm_server.requests[0].path == "/v1/messages"
    assert (with_tools["model"], with_tools["max_tokens"]) == ("test-model", 1024)
    assert with_tools["system"] == "Be exact."
    user, assistant, results = with_tools["messages"]
    assert user == {"role": "user", "content": "What was ACME CN revenue in FY2024?"}
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
        system="", messages=[_user("q")], tools=[]
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


# --------------------------------------------------------------------------- OpenAI streaming


def _streaming(root_url: str, *, timeout: float = 5.0) -> OpenAIProvider:
    return OpenAIProvider(
        "test-model", base_url=f"{root_url}/v1", api_key="k", timeout=timeout, stream=True
    )


def test_streamed_text_is_joined(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("Revenue rose on agency sales [1]."))

    response = _streaming(fake_llm_server.base_url).create_message(
        system="", messages=[_user("q")], tools=[]
    )

    assert (response.text, response.tool_calls, response.stop_reason) == (
        "Revenue rose on agency sales [1].",
        [],
        "end_turn",
    )
    assert fake_llm_server.requests[0].body["stream"] is True


def test_streamed_tool_call_arguments_are_joined(fake_llm_server: FakeLLMServer) -> None:
    arguments = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024"}
    fake_llm_server.script(Reply.tool_call("query_metric", arguments, call_id="t1", text="On it."))

    response = _streaming(fake_llm_server.base_url).create_message(
        system="s", messages=[_user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("t1", "query_metric", arguments)]
    assert (response.text, response.stop_reason) == ("On it.", "tool_use")


def test_streamed_calls_follow_their_index_and_tolerate_repeated_names(
    fake_llm_server: FakeLLMServer,
) -> None:
    def piece(index: int | None, arguments: str, **extra: object) -> dict[str, object]:
        call = {"index": index, "function": {"name": "q", "arguments": arguments}, **extra}
        return {"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}

    fake_llm_server.script(
        Reply.raw_stream(
            piece(0, '{"a"', id="c1"),
            piece(1, '{"b": 2}', id="c2"),
            piece(0, ": 1}"),
            {"index": 0, "delta": {}, "finish_reason": "tool_calls"},
        )
    )

    response = _streaming(fake_llm_server.base_url).create_message(
        system="", messages=[_user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("c1", "q", {"a": 1}), ToolCall("c2", "q", {"b": 2})]


def test_streamed_truncated_arguments_are_kept_raw(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.malformed_tool_call("query_metric", '{"metric": "REV'))

    response = _streaming(fake_llm_server.base_url).create_message(
        system="", messages=[_user("q")], tools=[QUERY_METRIC]
    )

    [call] = response.tool_calls
    assert (call.arguments, call.raw_arguments) == ({}, '{"metric": "REV')


def test_stream_cut_mid_answer_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.cut_stream("Revenue rose 1320 because of agency sales.", after=3))

    with pytest.raises(ProviderError, match=r"stream broke off after 3 chunk\(s\)"):
        _streaming(fake_llm_server.base_url).create_message(
            system="", messages=[_user("q")], tools=[]
        )


def test_stream_without_finish_reason_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.unfinished_stream("Revenue rose because"))

    with pytest.raises(ProviderError, match="before the model finished"):
        _streaming(fake_llm_server.base_url).create_message(
            system="", messages=[_user("q")], tools=[]
        )


@pytest.mark.parametrize(
    ("reply", "message"),
    [(Reply.error(503, "overloaded"), "HTTP 503"), (Reply.slow(5.0), r"no response within 0\.5s")],
    ids=["http-error", "timeout"],
)
def test_stream_that_never_starts_is_provider_error(
    fake_llm_server: FakeLLMServer, reply: Reply, message: str
) -> None:
    fake_llm_server.script(reply)

    with pytest.raises(ProviderError, match=message):
        _streaming(fake_llm_server.base_url, timeout=0.5).create_message(
            system="", messages=[_user("q")], tools=[]
        )


def test_non_streaming_requests_do_not_mention_streaming(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"))

    _openai(fake_llm_server.base_url).create_message(system="", messages=[_user("q")], tools=[])

    assert "stream" not in fake_llm_server.requests[0].body


def test_agent_degrades_when_the_stream_breaks_off(
    fake_llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    store = CountingStore(tmp_path / "facts.db")
    fake_llm_server.script(Reply.cut_stream("ACME CN revenue was 9999 in FY2024.", after=4))

    result = answer_question(
        "中国内地FY2024的REVENUE是多少",
        store,
        _streaming(fake_llm_server.base_url),
        reference_date=date(2026, 11, 26),
    )

    assert (result.answer, result.answer_kind) == (zh.PROVIDER_UNAVAILABLE, "degraded")
    assert result.trace["provider_error"] is True
