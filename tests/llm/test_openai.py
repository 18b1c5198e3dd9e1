from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.messages import zh
from ragspine.errors import ProviderError
from ragspine.llm.openai import OpenAIProvider
from ragspine.llm.protocol import ToolCall, to_openai_tool
from tests.agent.fake_llm_server import FakeLLMServer, Reply
from tests.agent.helpers import CountingStore
from tests.llm.helpers import CONVERSATION, FOUND, QUERY_METRIC, openai_provider, user


def test_openai_wire_format(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"), Reply.text_reply("ok"))
    provider = openai_provider(fake_llm_server.base_url)

    provider.create_message(system="Be exact.", messages=CONVERSATION, tools=[QUERY_METRIC])
    provider.create_message(system="", messages=[user("q")], tools=[])

    with_tools, without_tools = (r.body for r in fake_llm_server.requests)
    assert fake_llm_server.requests[0].path == "/v1/chat/completions"
    assert (with_tools["model"], with_tools["temperature"], with_tools["max_tokens"]) == (
        "test-model",
        0.0,
        1024,
    )
    system, first, assistant, result_1, result_2 = with_tools["messages"]
    assert system == {"role": "system", "content": "Be exact."}
    assert first == {"role": "user", "content": "What was ACME CN revenue in FY2024?"}
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

    response = openai_provider(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("t1", "q", {"a": 1})]
    assert (response.stop_reason, response.usage) == ("tool_use", {})


def test_openai_reply_without_choices_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.raw({"id": "x", "choices": []}))

    with pytest.raises(ProviderError, match="no choices"):
        openai_provider(fake_llm_server.base_url).create_message(system="", messages=[], tools=[])


def test_openai_local_server_needs_no_key(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_llm_server.script(Reply.text_reply("ok"))

    OpenAIProvider(base_url=fake_llm_server.openai_base_url).create_message(
        system="", messages=[user("q")], tools=[]
    )

    assert fake_llm_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_openai_without_key_or_server_is_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        OpenAIProvider()


# --------------------------------------------------------------------------- streaming


def _streaming(root_url: str, *, timeout: float = 5.0) -> OpenAIProvider:
    return openai_provider(root_url, timeout=timeout, stream=True)


def test_streamed_text_is_joined(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("Revenue rose on agency sales [1]."))

    response = _streaming(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[]
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
        system="s", messages=[user("q")], tools=[QUERY_METRIC]
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
        system="", messages=[user("q")], tools=[QUERY_METRIC]
    )

    assert response.tool_calls == [ToolCall("c1", "q", {"a": 1}), ToolCall("c2", "q", {"b": 2})]


def test_streamed_truncated_arguments_are_kept_raw(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.malformed_tool_call("query_metric", '{"metric": "REV'))

    response = _streaming(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[QUERY_METRIC]
    )

    [call] = response.tool_calls
    assert (call.arguments, call.raw_arguments) == ({}, '{"metric": "REV')


def test_stream_cut_mid_answer_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.cut_stream("Revenue rose 1320 because of agency sales.", after=3))

    with pytest.raises(ProviderError, match=r"stream broke off after 3 chunk\(s\)"):
        _streaming(fake_llm_server.base_url).create_message(
            system="", messages=[user("q")], tools=[]
        )


def test_stream_without_finish_reason_is_provider_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.unfinished_stream("Revenue rose because"))

    with pytest.raises(ProviderError, match="before the model finished"):
        _streaming(fake_llm_server.base_url).create_message(
            system="", messages=[user("q")], tools=[]
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
            system="", messages=[user("q")], tools=[]
        )


def test_non_streaming_requests_do_not_mention_streaming(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.script(Reply.text_reply("ok"))

    openai_provider(fake_llm_server.base_url).create_message(
        system="", messages=[user("q")], tools=[]
    )

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
