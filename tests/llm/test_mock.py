from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.llm import mock
from ragspine.llm.mock import MockProvider, _last_slot_hint
from ragspine.llm.protocol import SLOT_HINT_PREFIX, LLMProvider, ToolCall, parse_arguments
from tests.llm.helpers import FOUND, QUERY_METRIC, user

SLOTS: dict[str, object] = {
    "metric": "REVENUE",
    "entity": "ACME_CN",
    "period": "FY2024",
    "channel": None,
}


def _hint(slots: dict[str, object]) -> str:
    return f"Question: revenue?\n{SLOT_HINT_PREFIX}{json.dumps(slots)}"


def _tool_result(result: dict[str, object]) -> dict[str, object]:
    return {"role": "tool", "tool_call_id": "mock-call-1", "content": json.dumps(result)}


def test_mock_emits_tool_call_from_last_slot_hint_without_nulls() -> None:
    provider: LLMProvider = MockProvider()
    older = user(_hint({"metric": "EBIT", "entity": "ACME_HK"}))

    response = provider.create_message(
        system="s", messages=[older, user(_hint(SLOTS))], tools=[QUERY_METRIC]
    )

    expected: dict[str, object] = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024"}
    assert response.tool_calls == [ToolCall("mock-call-1", "query_metric", expected)]
    assert (response.text, response.stop_reason) == ("", "tool_use")


@pytest.mark.parametrize("text", ["What is revenue?", f"{SLOT_HINT_PREFIX}{{not json"])
def test_mock_without_usable_hint_answers_in_text(text: str) -> None:
    response = MockProvider().create_message(system="", messages=[user(text)], tools=[QUERY_METRIC])

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
    messages = [user(_hint(SLOTS)), _tool_result({"status": "not_found"}), _tool_result(result)]

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

    response = MockProvider().create_message(system="", messages=[user(prompt)], tools=[])

    assert response.text == (
        "Revenue rose 3.5% on volume. [1] 香港收入增长。 [2] Prices were cut! [3]"
    )
    assert (response.tool_calls, response.stop_reason) == ([], "end_turn")


def test_mock_synthesis_without_snippets_is_empty() -> None:
    response = MockProvider().create_message(system="", messages=[user("why?")], tools=[])

    assert response.text == ""


def test_mock_counts_every_call() -> None:
    provider = MockProvider()
    assert provider.calls == 0

    provider.create_message(system="", messages=[user("a")], tools=[])
    provider.create_message(system="", messages=[user(_hint(SLOTS))], tools=[QUERY_METRIC])

    assert provider.calls == 2


def _hint_by_every_line(messages: list[dict[str, object]]) -> dict[str, object] | None:
    """The rule as stated: the last line, of the last user message holding one, that starts
    with the prefix (after surrounding whitespace)."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        for line in reversed(str(message.get("content", "")).splitlines()):
            line = line.strip()
            if line.startswith(SLOT_HINT_PREFIX):
                try:
                    arguments = json.loads(line[len(SLOT_HINT_PREFIX) :])
                except ValueError:
                    return None
                if not isinstance(arguments, dict):
                    return None
                return {k: v for k, v in arguments.items() if v is not None}
    return None


_HINT_PIECES = st.sampled_from(
    [
        "Question: revenue?",
        f"{SLOT_HINT_PREFIX}{json.dumps({'metric': 'A'})}",
        f"  {SLOT_HINT_PREFIX}{json.dumps({'metric': 'B', 'entity': None})}  ",
        f"{SLOT_HINT_PREFIX}[1]",
        f"{SLOT_HINT_PREFIX}{{broken",
        "\n",
        "\r\n",
        "\u2028",
        " ",
        "",
    ]
)


@given(st.lists(st.lists(_HINT_PIECES, max_size=6).map("".join), min_size=1, max_size=3))
def test_the_hint_read_from_the_last_line_is_the_hint_every_line_gives(
    contents: list[str],
) -> None:
    messages = [user(text) for text in contents]
    assert _last_slot_hint(messages) == _hint_by_every_line(messages)


def test_a_hint_is_decoded_once_and_each_call_gets_its_own_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded: list[object] = []
    parse = parse_arguments

    def counted(raw: object) -> tuple[dict[str, object], str]:
        decoded.append(raw)
        return parse(raw)

    monkeypatch.setattr(mock, "parse_arguments", counted)
    mock._read_hint.cache_clear()
    hint = _hint({"metric": "NBV", "entity": "ACME_MO", "period": "FY2021", "channel": None})
    first = MockProvider().create_message(system="", messages=[user(hint)], tools=[QUERY_METRIC])
    first.tool_calls[0].arguments["metric"] = "tampered"
    again = MockProvider().create_message(system="", messages=[user(hint)], tools=[QUERY_METRIC])
    expected = {"metric": "NBV", "entity": "ACME_MO", "period": "FY2021"}
    assert again.tool_calls[0].arguments == expected
    assert len(decoded) == 1
