"""Shared fixtures-as-data for the provider tests: a tool spec, a tool result and a conversation."""

from __future__ import annotations

import json

from ragspine.llm.anthropic import AnthropicProvider
from ragspine.llm.openai import OpenAIProvider

QUERY_METRIC: dict[str, object] = {
    "name": "query_metric",
    "description": "Look up one metric value.",
    "parameters": {
        "type": "object",
        "properties": {"metric": {"type": "string"}, "entity": {"type": "string"}},
        "required": ["metric"],
    },
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


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def openai_provider(root_url: str, *, timeout: float = 5.0, stream: bool = False) -> OpenAIProvider:
    """An OpenAI adapter pointed at a FakeLLMServer's root URL."""
    return OpenAIProvider(
        "test-model", base_url=f"{root_url}/v1", api_key="k", timeout=timeout, stream=stream
    )


def anthropic_provider(root_url: str, *, timeout: float = 5.0) -> AnthropicProvider:
    """An Anthropic adapter pointed at a FakeLLMServer's root URL."""
    return AnthropicProvider("test-model", base_url=root_url, api_key="k", timeout=timeout)
