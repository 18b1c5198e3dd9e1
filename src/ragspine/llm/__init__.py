"""The LLM seam: the ``LLMProvider`` Protocol, its neutral message format and its adapters."""

from __future__ import annotations

from ragspine.errors import ProviderError
from ragspine.llm.anthropic import DEFAULT_ANTHROPIC_MODEL, AnthropicProvider
from ragspine.llm.mock import MockProvider
from ragspine.llm.openai import DEFAULT_OPENAI_MODEL, OpenAIProvider
from ragspine.llm.protocol import (
    SLOT_HINT_PREFIX,
    LLMProvider,
    ProviderResponse,
    ToolCall,
    to_anthropic_tool,
    to_openai_tool,
)

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_OPENAI_MODEL",
    "SLOT_HINT_PREFIX",
    "AnthropicProvider",
    "LLMProvider",
    "MockProvider",
    "OpenAIProvider",
    "ProviderError",
    "ProviderResponse",
    "ToolCall",
    "to_anthropic_tool",
    "to_openai_tool",
]
