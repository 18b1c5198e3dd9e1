"""The seeds' import path for the LLM seam; everything here lives in :mod:`ragspine.llm`."""

from __future__ import annotations

from ragspine.llm import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL,
    SLOT_HINT_PREFIX,
    AnthropicProvider,
    LLMProvider,
    MockProvider,
    OpenAIProvider,
    ProviderError,
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
