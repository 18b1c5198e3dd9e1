"""The neutral format every provider speaks: the ``LLMProvider`` Protocol, its reply types and
the readers and tool-spec converters the adapters share.

The agent never sees an SDK type:

- messages: ``{"role": "user", "content": str}``,
  ``{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments"}]}``
  (``tool_calls`` optional) and ``{"role": "tool", "tool_call_id", "name", "content": <JSON str>}``;
- tools: ``{"name", "description", "parameters": <JSON schema object>}``.

Each adapter converts to its wire format at the edge. Network, timeout and API failures become
``ProviderError``; anything else (a bad argument, a bug) propagates unchanged so it is never
mistaken for an outage.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "SLOT_HINT_PREFIX",
    "LLMProvider",
    "ProviderResponse",
    "ToolCall",
    "neutral_tool_calls",
    "parse_arguments",
    "text_of",
    "to_anthropic_tool",
    "to_openai_tool",
]

# The agent writes this line into the user message; the mock reads it back instead of
# understanding language, which keeps it deterministic.
SLOT_HINT_PREFIX = "Parsed slots (JSON): "


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation requested by the model."""

    id: str
    name: str
    arguments: dict[str, object]
    # Kept only when the model sent arguments that are not a JSON object, so the failure can be
    # reported instead of silently running the tool with no arguments.
    raw_arguments: str = ""


@dataclass(frozen=True)
class ProviderResponse:
    """A model reply in the neutral format.

    ``stop_reason`` is ``"end_turn"``, ``"tool_use"``, ``"max_tokens"`` or the provider's own
    value; ``raw_content`` is the SDK's content object, for debugging only.
    """

    text: str
    tool_calls: list[ToolCall]
    stop_reason: str
    raw_content: object = None
    usage: dict[str, int] = field(default_factory=dict)


class LLMProvider(Protocol):
    """Anything that turns a neutral conversation plus tool specs into one model reply."""

    def create_message(
        self,
        *,
        system: str,
        messages: list[dict[str, object]],
        tools: list[dict[str, object]],
    ) -> ProviderResponse: ...


def to_anthropic_tool(spec: dict[str, object]) -> dict[str, object]:
    """Convert a neutral tool spec to the Anthropic Messages ``tools`` entry."""
    return {
        "name": spec["name"],
        "description": spec.get("description", ""),
        "input_schema": spec["parameters"],
    }


def to_openai_tool(spec: dict[str, object]) -> dict[str, object]:
    """Convert a neutral tool spec to the OpenAI Chat Completions ``tools`` entry."""
    return {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec.get("description", ""),
            "parameters": spec["parameters"],
        },
    }


def parse_arguments(raw: object) -> tuple[dict[str, object], str]:
    """Return ``(arguments, raw_arguments)``; raw text is kept only when it is not an object."""
    if isinstance(raw, dict):
        return raw, ""
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
    # ``json.loads`` without its wrapper: the decoder's own call, and whitespace at either end
    # (JSON's four characters only) skipped the way ``loads`` skips it.
    stripped = text.strip(_JSON_SPACE)
    try:
        parsed, end = _DECODER.raw_decode(stripped)
    except ValueError:
        return {}, text
    if end == len(stripped) and isinstance(parsed, dict):
        return parsed, ""
    return {}, text


_DECODER = json.JSONDecoder()
_JSON_SPACE = " \t\n\r"


def text_of(message: dict[str, object]) -> str:
    """A neutral message's text content, or ``""`` when it has none."""
    content = message.get("content")
    return content if isinstance(content, str) else ""


def neutral_tool_calls(message: dict[str, object]) -> list[dict[str, Any]]:
    """The ``tool_calls`` of a neutral assistant message (an empty list when absent)."""
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TypeError(f"tool_calls must be a list, got {type(calls).__name__}")
    return calls
