"""``AnthropicProvider``: the Claude Messages API adapter.

The ``anthropic`` SDK is imported lazily by absolute name, so the core runs without the ``llm``
extra and this module's own name never shadows the SDK.
"""

from __future__ import annotations

import os
from typing import Any

from ragspine.errors import ProviderError
from ragspine.llm.protocol import (
    ProviderResponse,
    ToolCall,
    neutral_tool_calls,
    parse_arguments,
    text_of,
    to_anthropic_tool,
)
from ragspine.llm.sdk import LOCAL_PLACEHOLDER_KEY, describe_api_error, import_sdk, usage_counts

__all__ = ["DEFAULT_ANTHROPIC_MODEL", "AnthropicProvider"]

DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"


class AnthropicProvider:
    """Claude Messages API adapter."""

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 0,
        max_tokens: int = 1024,
    ) -> None:
        self._sdk = import_sdk("anthropic")
        if api_key is None and base_url is not None and not _anthropic_env_credential():
            api_key = LOCAL_PLACEHOLDER_KEY
        # With api_key None the SDK resolves env vars and on-disk profiles itself.
        try:
            self._client = self._sdk.Anthropic(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
            )
        except self._sdk.AnthropicError as err:  # e.g. a configured profile file is missing
            raise ProviderError(f"Anthropic client could not be created: {err}") from err
        credentials = getattr(self._client, "credentials", None)  # absent in older SDKs
        if not (self._client.api_key or self._client.auth_token or credentials):
            # Otherwise the SDK raises TypeError at the first request, which looks like a bug.
            raise ProviderError("Anthropic client: no credentials; set ANTHROPIC_API_KEY")
        self.model = model
        self._where = f"Anthropic provider at {self._client.base_url}"
        self._timeout = timeout
        self._max_tokens = max_tokens

    def create_message(
        self,
        *,
        system: str,
        messages: list[dict[str, object]],
        tools: list[dict[str, object]],
    ) -> ProviderResponse:
        request: dict[str, object] = {
            "model": self.model,
            "max_tokens": self._max_tokens,
            "messages": _to_anthropic_messages(messages),
        }
        if system:
            request["system"] = system
        if tools:
            request["tools"] = [to_anthropic_tool(t) for t in tools]
        try:
            reply = self._client.messages.create(**request)
        except self._sdk.APIError as err:
            message = describe_api_error(self._sdk, err, where=self._where, timeout=self._timeout)
            raise ProviderError(message) from err
        return _from_anthropic_message(reply)


def _anthropic_env_credential() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


def _to_anthropic_messages(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    wire: list[dict[str, object]] = []
    # The API wants every result answering one assistant turn in a single user message, so
    # consecutive tool messages share one list of tool_result blocks.
    results: list[dict[str, object]] | None = None
    for message in messages:
        role = message.get("role")
        if role == "tool":
            if results is None:
                results = []
                wire.append({"role": "user", "content": results})
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message["tool_call_id"],
                    "content": text_of(message),
                }
            )
            continue
        results = None
        if role == "user":
            wire.append({"role": "user", "content": text_of(message)})
        elif role == "assistant":
            wire.append({"role": "assistant", "content": _anthropic_assistant_blocks(message)})
        else:
            raise ValueError(f"unknown message role {role!r}; expected user, assistant or tool")
    return wire


def _anthropic_assistant_blocks(message: dict[str, object]) -> list[dict[str, object]]:
    text = text_of(message)
    blocks: list[dict[str, object]] = [{"type": "text", "text": text}] if text else []
    for call in neutral_tool_calls(message):
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": call["name"],
                "input": call.get("arguments", {}),
            }
        )
    return blocks


def _from_anthropic_message(reply: Any) -> ProviderResponse:
    texts: list[str] = []
    tool_calls: list[ToolCall] = []
    for block in reply.content or []:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments, raw = parse_arguments(block.input)
            tool_calls.append(
                ToolCall(id=block.id, name=block.name, arguments=arguments, raw_arguments=raw)
            )
    return ProviderResponse(
        text="".join(texts),
        tool_calls=tool_calls,
        stop_reason=reply.stop_reason or "",
        raw_content=reply.content,
        usage=usage_counts(reply.usage, input_tokens="input_tokens", output_tokens="output_tokens"),
    )
