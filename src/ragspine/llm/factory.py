"""``build_provider``: the provider a ``--provider`` option names, built from its CLI options."""

from __future__ import annotations

from enum import StrEnum

from ragspine.errors import UsageError
from ragspine.llm.anthropic import DEFAULT_ANTHROPIC_MODEL, AnthropicProvider
from ragspine.llm.mock import MockProvider
from ragspine.llm.openai import DEFAULT_OPENAI_MODEL, OpenAIProvider
from ragspine.llm.protocol import LLMProvider

__all__ = ["ProviderName", "build_provider"]


class ProviderName(StrEnum):
    """The providers a command line can choose."""

    MOCK = "mock"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


def build_provider(
    name: ProviderName, *, model: str | None = None, base_url: str | None = None
) -> LLMProvider:
    """The provider ``--provider`` names; a missing SDK is a usage error naming the extra."""
    if name is ProviderName.MOCK:
        if model or base_url:
            # Rejected rather than ignored, so a forgotten --provider cannot fall back to the mock.
            raise UsageError("--model and --base-url apply only to --provider openai or anthropic")
        return MockProvider()
    try:
        if name is ProviderName.OPENAI:
            return OpenAIProvider(model or DEFAULT_OPENAI_MODEL, base_url=base_url)
        return AnthropicProvider(model or DEFAULT_ANTHROPIC_MODEL, base_url=base_url)
    except ImportError as err:
        raise UsageError(str(err)) from err
