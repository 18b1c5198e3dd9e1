from __future__ import annotations

import pytest

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


def test_tool_calls_must_be_a_list() -> None:
    assert neutral_tool_calls({"role": "assistant", "content": "x"}) == []
    with pytest.raises(TypeError, match="tool_calls must be a list, got dict"):
        neutral_tool_calls({"role": "assistant", "tool_calls": {"id": "c1"}})
