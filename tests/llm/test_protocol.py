from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.llm.protocol import (
    neutral_tool_calls,
    parse_arguments,
    to_anthropic_tool,
    to_openai_tool,
)
from tests.llm.helpers import QUERY_METRIC


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


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"a": 1}, ({"a": 1}, "")),
        ('{"a": 1}', ({"a": 1}, "")),
        ('{"a": 1', ({}, '{"a": 1')),
        ("[1, 2]", ({}, "[1, 2]")),
        ([1, 2], ({}, "[1, 2]")),
    ],
    ids=["object", "json-object", "truncated", "json-array", "list"],
)
def test_arguments_that_are_not_an_object_are_kept_raw(
    raw: object, expected: tuple[dict[str, object], str]
) -> None:
    assert parse_arguments(raw) == expected


def _as_loads_reads_it(text: str) -> tuple[dict[str, object], str]:
    """``parse_arguments`` of a string as ``json.loads`` defines it."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}, text
    return (parsed, "") if isinstance(parsed, dict) else ({}, text)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
).map(json.dumps)


@given(
    st.sampled_from(["", " ", "\t\n", "\u3000", "\ufeff", "\u00a0"]),
    _JSONISH | st.text(alphabet='{}[]":, 1a\\', max_size=10),
    st.sampled_from(["", " ", "\r\n", "\u3000", "x", "}"]),
)
def test_text_arguments_are_read_as_json_loads_reads_them(
    before: str, body: str, after: str
) -> None:
    text = before + body + after
    assert parse_arguments(text) == _as_loads_reads_it(text)


def test_tool_calls_must_be_a_list() -> None:
    assert neutral_tool_calls({"role": "assistant", "content": "x"}) == []
    with pytest.raises(TypeError, match="tool_calls must be a list, got dict"):
        neutral_tool_calls({"role": "assistant", "tool_calls": {"id": "c1"}})
