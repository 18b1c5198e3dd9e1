"""answer_question end to end through the real OpenAI and Anthropic SDKs, on a local server."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import AnthropicProvider, LLMProvider, OpenAIProvider
from ragspine.agent.messages import zh
from ragspine.agent.types import AnswerKind, GuardOverride, Slots
from ragspine.profile.periods import Period
from tests.agent.fake_llm_server import FakeLLMServer, Reply
from tests.agent.helpers import CountingStore, assert_no_invented_numbers

REF = date(2026, 11, 26)
ARGS = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024", "channel": "TOTAL"}
CN_FY2024 = Slots("REVENUE", "ACME_CN", Period(2024, "FY"), "TOTAL")


def providers(server: FakeLLMServer) -> dict[str, LLMProvider]:
    return {
        "openai": OpenAIProvider("local-model", base_url=server.openai_base_url, timeout=0.5),
        "anthropic": AnthropicProvider(base_url=server.base_url, api_key="test", timeout=0.5),
    }


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_tool_round_trip_then_prose_is_discarded(
    tmp_path: Path, fake_llm_server: FakeLLMServer, kind: str
) -> None:
    # The model first queries another entity: that result goes back over the wire, the model
    # answers in prose with an invented figure, and the agent answers from its own query.
    store = CountingStore(tmp_path / "f.db")
    fake_llm_server.script(
        Reply.tool_call("query_metric", {**ARGS, "entity": "ACME_HK"}),
        Reply.text_reply("Revenue was 1320, a record 5555!"),
    )
    result = answer_question(
        "中国内地FY2024的REVENUE是多少", store, providers(fake_llm_server)[kind], reference_date=REF
    )
    assert "5555" not in result.answer and "1,320 百万美元" in result.answer
    assert [(r.slots, r.status) for r in result.tool_results] == [(CN_FY2024, "found")]
    assert result.guard_override is GuardOverride.SLOT_MISMATCH
    second = fake_llm_server.requests[1].body
    # The tool result went back over the wire in the provider's own format.
    assert "2210.5" in str(second["messages"])


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_query_for_the_asked_slots_ends_the_loop(
    tmp_path: Path, fake_llm_server: FakeLLMServer, kind: str
) -> None:
    store = CountingStore(tmp_path / "f.db")
    fake_llm_server.script(
        Reply.tool_call("query_metric", ARGS), Reply.text_reply("Revenue was 1320, a record 5555!")
    )
    result = answer_question(
        "中国内地FY2024的REVENUE是多少", store, providers(fake_llm_server)[kind], reference_date=REF
    )
    assert "5555" not in result.answer and "1,320 百万美元" in result.answer
    assert result.guard_override is None and result.trace["guard_override"] is False
    assert len(fake_llm_server.requests) == 1 and result.trace["llm_calls"] == 1


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_truncated_tool_arguments_from_a_weak_model(
    tmp_path: Path, fake_llm_server: FakeLLMServer, kind: str
) -> None:
    store = CountingStore(tmp_path / "f.db")
    fake_llm_server.script(
        Reply.malformed_tool_call("query_metric", '{"metric": "REVEN'),
        Reply.text_reply("I think 999."),
    )
    result = answer_question(
        "中国内地FY2024的REVENUE是多少", store, providers(fake_llm_server)[kind], reference_date=REF
    )
    assert "1,320 百万美元" in result.answer and "999" not in result.answer
    assert result.guard_override is GuardOverride.SLOT_MISMATCH
    assert result.trace["guard_override"] is True
    assert_no_invented_numbers(result, [CN_FY2024])


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("failure", [Reply.error(500), Reply.error(401), Reply.slow(1.5)])
def test_server_failures_degrade_without_numbers(
    tmp_path: Path, fake_llm_server: FakeLLMServer, kind: str, failure: Reply
) -> None:
    store = CountingStore(tmp_path / "f.db")
    fake_llm_server.script(failure)
    result = answer_question(
        "中国内地FY2024的REVENUE是多少", store, providers(fake_llm_server)[kind], reference_date=REF
    )
    assert result.answer == zh.PROVIDER_UNAVAILABLE
    assert result.answer_kind is AnswerKind.DEGRADED
    assert not re.search(r"\d", result.answer)
