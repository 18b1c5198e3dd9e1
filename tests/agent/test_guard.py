"""The anti-fabrication guard against hostile models: no number but found facts, ever.

The hostile-provider matrix judges each answer against an oracle the test holds before the call:
the visible facts for the slots the question asks (``helpers.allowed_numbers``), never the tool
results the agent produced.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.agent.agent import answer_question
from ragspine.agent.guard import (
    MAX_TOOL_ITERATIONS,
    ToolContext,
    hint_arguments,
    run_tool_loop,
    slot_hint,
)
from ragspine.agent.llm_provider import SLOT_HINT_PREFIX, ProviderResponse, ToolCall
from ragspine.agent.messages import en, zh
from ragspine.agent.query_tools import lookup, normalize
from ragspine.agent.types import (
    AgentResult,
    AnswerKind,
    FactNotFound,
    FoundFact,
    GuardOverride,
    Slots,
    Source,
    ToolError,
)
from ragspine.observability.trace import RequestTrace
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import PERIOD_TYPES, Period
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from tests.agent.helpers import (
    CountingStore,
    ScriptedProvider,
    assert_no_invented_numbers,
    network_error,
    text,
    tool_call,
)
from tests.profiles import acme, initech

REF = date(2026, 11, 26)
FOUND_Q = "中国内地FY2024的REVENUE是多少"
MISSING_Q = "中国内地FY2025的REVENUE是多少"

CN_FY2024 = Slots("REVENUE", "ACME_CN", Period(2024, "FY"), "TOTAL")
CN_FY2025 = Slots("REVENUE", "ACME_CN", Period(2025, "FY"), "TOTAL")
HK_FY2024 = Slots("REVENUE", "ACME_HK", Period(2024, "FY"), "TOTAL")
HK_FY2025 = Slots("REVENUE", "ACME_HK", Period(2025, "FY"), "TOTAL")
CN_FY2024_SOURCE = Source("ACME_FY2024_Review.pptx", "slide=2,table=1,row=REVENUE,col=FY2024")


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def run(question: str, store: CountingStore, provider: ScriptedProvider) -> AgentResult:
    return answer_question(question, store, provider, reference_date=REF)


def asked(**overrides: str) -> ProviderResponse:
    """A tool call for FOUND_Q's slots, with ``overrides`` swapped in."""
    args = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024", "channel": "TOTAL"}
    args.update(overrides)
    return tool_call(**args)


def test_found_path_discards_fabricated_extra_number(store: CountingStore) -> None:
    with_prose = ProviderResponse(
        "Revenue was 1320, up 45% to a record 9999.", asked().tool_calls, "tool_use"
    )
    provider = ScriptedProvider([with_prose, text("It grew 77%.")])
    result = run(FOUND_Q, store, provider)
    assert (
        "9999" not in result.answer
        and "9,999" not in result.answer
        and "45" not in result.answer
        and "77" not in result.answer
    )
    assert result.tool_results == [FoundFact(CN_FY2024, 1320, "USD_M", CN_FY2024_SOURCE)]
    assert result.sources == [CN_FY2024_SOURCE]
    assert result.guard_override is None
    assert result.trace["model_text_discarded"] is True
    # The query answered the slots asked: the model is not asked to word it.
    assert provider.calls == 1
    assert_no_invented_numbers(result, [CN_FY2024])


def test_not_found_overrides_a_model_that_invents_a_number(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(period="FY2025"), text("FY2025 revenue was 1500 USD_M.")])
    result = run(MISSING_Q, store, provider)
    assert "1500" not in result.answer and "1,500" not in result.answer
    assert result.answer.startswith("查不到：")
    assert result.answer_kind is AnswerKind.NOT_FOUND
    assert result.tool_results == [FactNotFound(CN_FY2025)]
    assert result.trace["fabrication_guard_triggered"] is True
    assert result.sources == []


@pytest.mark.parametrize(("question", "slots"), [(FOUND_Q, CN_FY2024), (MISSING_Q, CN_FY2025)])
def test_a_made_up_number_without_a_tool_call_is_replaced_by_the_parsed_query(
    store: CountingStore, question: str, slots: Slots
) -> None:
    provider = ScriptedProvider([text("It was 4242 USD_M, trust me.")])
    result = run(question, store, provider)
    assert "4242" not in result.answer and "4,242" not in result.answer
    assert result.guard_override is GuardOverride.NO_TOOL_CALL
    assert result.trace["guard_override"] is True
    assert result.trace["guard_override_reason"] == "no_tool_call"
    assert [r.slots for r in result.tool_results] == [slots]
    assert_no_invented_numbers(result, [slots])


def test_a_query_for_other_slots_is_discarded(store: CountingStore) -> None:
    # Asked for CN FY2024; the model looks up HK FY2025 (2480) and then CN FY2025.
    provider = ScriptedProvider(
        [
            asked(entity="ACME_HK", period="FY2025"),
            asked(period="FY2025"),
            text("Done."),
        ]
    )
    result = run(FOUND_Q, store, provider)
    assert "2480" not in result.answer and "2,480" not in result.answer
    assert result.guard_override is GuardOverride.SLOT_MISMATCH
    assert result.trace["guard_override_reason"] == "slot_mismatch"
    assert result.tool_results == [FoundFact(CN_FY2024, 1320, "USD_M", CN_FY2024_SOURCE)]
    assert_no_invented_numbers(result, [CN_FY2024])


def test_a_model_that_calls_tools_forever_hits_the_cap(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK")])
    result = run(FOUND_Q, store, provider)
    assert provider.calls == MAX_TOOL_ITERATIONS
    assert result.guard_override is GuardOverride.ITERATION_CAP
    assert result.trace["guard_override_reason"] == "iteration_cap"
    assert [r.slots for r in result.tool_results] == [CN_FY2024]
    assert "2210" not in result.answer and "2,210" not in result.answer
    assert_no_invented_numbers(result, [CN_FY2024])


def test_truncated_or_malformed_tool_arguments_fall_back_to_the_parsed_query(
    store: CountingStore,
) -> None:
    provider = ScriptedProvider([tool_call(metric="REVEN"), text("")])
    result = run(FOUND_Q, store, provider)
    assert result.tool_results == [FoundFact(CN_FY2024, 1320, "USD_M", CN_FY2024_SOURCE)]
    assert result.guard_override is GuardOverride.SLOT_MISMATCH


def test_prose_padded_with_numbers_never_reaches_the_answer(store: CountingStore) -> None:
    padded = ProviderResponse(
        text="Per slide 7, 2024 revenue of 1,320 (vs 1,111 in 2023, +18.8%).",
        tool_calls=asked().tool_calls,
        stop_reason="tool_use",
    )
    provider = ScriptedProvider([padded, text("Also 77% margin and 12 new branches.")])
    result = run(FOUND_Q, store, provider)
    for invented in ("1,111", "1111", "18.8", "77", "12 new"):
        assert invented not in result.answer
    assert_no_invented_numbers(result, [CN_FY2024])


@pytest.mark.parametrize("question", [FOUND_Q, "What was Mainland China revenue in FY2024?"])
def test_network_errors_degrade_to_a_number_free_message(
    store: CountingStore, question: str
) -> None:
    provider = ScriptedProvider([network_error()])
    result = run(question, store, provider)
    assert result.answer in (zh.PROVIDER_UNAVAILABLE, en.PROVIDER_UNAVAILABLE)
    assert not re.search(r"\d", result.answer)
    assert result.answer_kind is AnswerKind.DEGRADED
    assert result.trace["provider_error"] is True
    assert result.sources == [] and result.tool_results == []


def test_network_error_on_the_second_turn_also_degrades(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK"), network_error()])
    result = run(FOUND_Q, store, provider)
    assert result.answer == zh.PROVIDER_UNAVAILABLE


def test_program_errors_in_the_provider_are_not_swallowed(store: CountingStore) -> None:
    provider = ScriptedProvider([TypeError("bug in adapter")])
    with pytest.raises(TypeError):
        run(FOUND_Q, store, provider)


# --- the hostile-provider matrix: every script against every question, judged by the oracle

HOSTILE_SCRIPTS = {
    "invents_without_tool": [text("Revenue: 8888 USD_M")],
    "other_entity": [asked(entity="ACME_HK"), text("HK had 2210.5")],
    "other_period": [asked(period="FY2025"), text("not found, but about 1400")],
    "forever": [asked(entity="ACME_GROUP", period="FY2025")],
    "padding": [asked(), text("1320 and 31% share and 7 products")],
    "network": [network_error()],
}

# Each question with the slots it asks (after the gateway's assumptions: FY2025 is the latest
# complete fiscal year on REF; a growth question also asks its base year).
QUESTIONS = {
    FOUND_Q: [CN_FY2024],
    MISSING_Q: [CN_FY2025],
    "What was Mainland China revenue in FY2024?": [CN_FY2024],
    "香港FY2025收入同比增长多少": [HK_FY2025, HK_FY2024],
    "中国内地的收入是多少": [CN_FY2025],
}


@pytest.mark.parametrize("name", sorted(HOSTILE_SCRIPTS))
@pytest.mark.parametrize("question", sorted(QUESTIONS))
def test_hostile_providers_never_get_a_number_into_the_answer(
    store: CountingStore, name: str, question: str
) -> None:
    provider = ScriptedProvider(HOSTILE_SCRIPTS[name])
    result = run(question, store, provider)
    assert_no_invented_numbers(result, QUESTIONS[question])
    for line in result.answer.splitlines():
        computed = line.startswith(("变化", "差值", "Change", "Difference"))
        if computed:
            assert len(result.sources) == 2  # both operands are cited
        elif re.search(r"USD_M|PCT", line):
            assert "来源：" in line or "source:" in line


# --- run_tool_loop on its own: which result counts, and why the agent ran the query itself


def tools(store: CountingStore) -> ToolContext:
    return ToolContext(store, acme(), REF, DEFAULT_CLEARANCE, RequestTrace("test"))


@pytest.mark.parametrize(
    ("script", "override"),
    [
        ([asked(), text("")], None),
        ([text("1320")], GuardOverride.NO_TOOL_CALL),
        ([asked(entity="ACME_HK"), text("")], GuardOverride.SLOT_MISMATCH),
        ([tool_call(metric="nonsense"), text("")], GuardOverride.SLOT_MISMATCH),
        ([asked(entity="ACME_HK")], GuardOverride.ITERATION_CAP),
    ],
)
def test_tool_loop_returns_the_asked_result_and_the_override_reason(
    store: CountingStore, script: list[ProviderResponse], override: GuardOverride | None
) -> None:
    context = tools(store)
    result, reason = run_tool_loop(FOUND_Q, CN_FY2024, ScriptedProvider(script), context)
    assert result == FoundFact(CN_FY2024, 1320, "USD_M", CN_FY2024_SOURCE)
    assert reason is override
    assert context.trace.guard_override is (override is not None)
    assert context.trace.guard_override_reason == (override or "")


def test_a_model_that_never_stops_querying_other_slots_hits_the_cap(
    store: CountingStore,
) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK")])
    result, reason = run_tool_loop(FOUND_Q, CN_FY2024, provider, tools(store))
    assert provider.calls == MAX_TOOL_ITERATIONS
    assert reason is GuardOverride.ITERATION_CAP and result.slots == CN_FY2024


def test_the_first_query_for_the_asked_slots_ends_the_loop(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK"), asked(), text("9999")])
    result, reason = run_tool_loop(FOUND_Q, CN_FY2024, provider, tools(store))
    assert (result.slots, reason, provider.calls) == (CN_FY2024, None, 2)


def test_the_last_result_for_the_asked_slots_is_kept(store: CountingStore) -> None:
    provider = ScriptedProvider([asked(entity="ACME_HK"), asked(channel="合计"), text("")])
    result, reason = run_tool_loop(FOUND_Q, CN_FY2024, provider, tools(store))
    assert (result.slots, reason) == (CN_FY2024, None)


def test_the_model_reads_each_result_as_its_wire_dict(store: CountingStore) -> None:
    wrong_tool = ProviderResponse("", [ToolCall("c9", "delete_everything", {})], "tool_use")
    provider = ScriptedProvider([asked(entity="ACME_HK"), wrong_tool, text("")])
    run_tool_loop(FOUND_Q, CN_FY2024, provider, tools(store))
    tool_turns = [m for m in provider.prompts[-1]["messages"] if m["role"] == "tool"]
    hk_fy2024 = Slots("REVENUE", "ACME_HK", CN_FY2024.period, "TOTAL")
    assert [json.loads(m["content"]) for m in tool_turns] == [
        lookup(store, hk_fy2024).to_dict(),
        ToolError("unknown tool 'delete_everything'").to_dict(),
    ]


def test_the_model_sees_the_parsed_slots_as_a_hint(store: CountingStore) -> None:
    provider = ScriptedProvider([text("")])
    run_tool_loop(FOUND_Q, CN_FY2024, provider, tools(store))
    first = provider.prompts[0]["messages"][0]["content"]
    hint = json.loads(str(first).split(SLOT_HINT_PREFIX, 1)[1])
    assert hint == {
        "metric": "REVENUE",
        "entity": "ACME_CN",
        "period": "FY2024",
        "channel": "TOTAL",
    }


@given(st.text(), st.text(), st.text(), st.integers(1990, 2099))
def test_the_slot_hint_is_the_json_dumps_of_the_slots(
    metric: str, entity: str, channel: str, year: int
) -> None:
    task = Slots(metric, entity, Period(year, "FY"), channel)
    hint = {"metric": metric, "entity": entity, "period": f"FY{year}", "channel": channel}
    assert slot_hint(task) == json.dumps(hint)


@st.composite
def _hinted(draw: st.DrawFn) -> tuple[DomainProfile, Slots]:
    profile = draw(st.sampled_from([acme(), initech()]))
    return profile, Slots(
        draw(st.sampled_from([m.code for m in profile.metrics])),
        draw(st.sampled_from([e.code for e in profile.entities])),
        # Every year the period scanner reads: a parser cannot name any other.
        Period(draw(st.integers(1990, 2099)), draw(st.sampled_from(PERIOD_TYPES))),
        draw(st.sampled_from([c.code for c in profile.channels])),
    )


@given(_hinted())
def test_the_hinted_slots_read_back_through_the_glossary_are_the_same_slots(
    hinted: tuple[DomainProfile, Slots],
) -> None:
    # What lets a model call that writes the hint back skip the glossary.
    profile, task = hinted
    args = hint_arguments(task)
    assert normalize(**args, profile=profile, reference_date=REF) == task


@pytest.mark.parametrize(
    "arguments",
    [
        hint_arguments(CN_FY2024),
        {**hint_arguments(CN_FY2024), "entity": "Mainland China"},
        {**hint_arguments(CN_FY2024), "period": "FY2025"},
        {k: v for k, v in hint_arguments(CN_FY2024).items() if k != "channel"},
        {**hint_arguments(CN_FY2024), "extra": "x"},
    ],
    ids=["the-hint", "an-alias", "another-period", "no-channel", "an-extra-argument"],
)
def test_a_model_call_gives_the_same_result_with_or_without_the_hint(
    store: CountingStore, arguments: dict[str, object]
) -> None:
    call = ToolCall(id="c1", name="query_metric", arguments=arguments)
    hinted, plain = tools(store), tools(store)
    assert hinted.run_model_call(call, CN_FY2024) == plain.run_model_call(call)
    assert hinted.trace.to_event() | {"ts": 0, "duration_ms": 0} == plain.trace.to_event() | {
        "ts": 0,
        "duration_ms": 0,
    }
