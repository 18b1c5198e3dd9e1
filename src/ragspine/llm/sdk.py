"""What the two SDK adapters share: the lazy SDK import, error wording and usage counts.

The OpenAI and Anthropic SDKs are generated from the same template, so their error classes and
usage objects have the same shape and one description fits both.
"""

from __future__ import annotations

from typing import Any

from ragspine.optional import import_optional

__all__ = ["LLM_EXTRA", "LOCAL_PLACEHOLDER_KEY", "describe_api_error", "import_sdk", "usage_counts"]

LLM_EXTRA = "llm"
# Local OpenAI-compatible servers ignore the key, but both SDKs refuse to build a client without
# one.
LOCAL_PLACEHOLDER_KEY = "not-needed"


def import_sdk(name: str) -> Any:
    """The ``openai`` or ``anthropic`` module; a missing one names the ``llm`` extra."""
    return import_optional(name, extra=LLM_EXTRA)


def describe_api_error(sdk: Any, err: Exception, *, where: str, timeout: float) -> str:
    """One line for an SDK ``APIError``: timeout, connection failure or HTTP status."""
    if isinstance(err, sdk.APITimeoutError):
        return f"{where}: no response within {timeout:g}s"
    if isinstance(err, sdk.APIConnectionError):
        return f"{where}: could not connect ({err.__cause__ or err})"
    if isinstance(err, sdk.APIStatusError):
        return f"{where}: HTTP {err.status_code}: {err.message}"
    return f"{where}: {err}"


def usage_counts(sdk_usage: Any, **names: str) -> dict[str, int]:
    """Neutral usage counts from an SDK usage object, keeping only the integers it reported."""
    counts = {neutral: getattr(sdk_usage, sdk_name, None) for neutral, sdk_name in names.items()}
    return {k: v for k, v in counts.items() if isinstance(v, int)}
