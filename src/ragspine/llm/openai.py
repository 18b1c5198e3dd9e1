"""``OpenAIProvider``: the Chat Completions adapter, plain and streamed, for OpenAI and any
compatible server (vLLM, llama.cpp, Ollama).

The ``openai`` SDK is imported lazily by absolute name, so the core runs without the ``llm``
extra and this module's own name never shadows the SDK.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragspine.errors import ProviderError
from ragspine.llm.protocol import (
    ProviderResponse,
    ToolCall,
    neutral_tool_calls,
    parse_arguments,
    text_of,
    to_openai_tool,
)
from ragspine.llm.sdk import LOCAL_PLACEHOLDER_KEY, describe_api_error, import_sdk, usage_counts

__all__ = ["DEFAULT_OPENAI_MODEL", "OpenAIProvider", "to_openai_messages"]

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


class OpenAIProvider:
    """Chat Completions adapter for OpenAI and any compatible server (vLLM, llama.cpp, Ollama).

    With ``stream`` the reply arrives as server-sent chunks whose text and tool-call pieces are
    joined into the same ``ProviderResponse``; ``timeout`` then bounds each wait for the next
    chunk rather than the whole reply. A stream that breaks off before the model finished is a
    ``ProviderError``, never a shorter answer.
    """

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 0,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        stream: bool = False,
    ) -> None:
        self._sdk = import_sdk("openai")
        if api_key is None and base_url is not None and not os.environ.get("OPENAI_API_KEY"):
            api_key = LOCAL_PLACEHOLDER_KEY
        try:
            self._client = self._sdk.OpenAI(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
            )
        except self._sdk.OpenAIError as err:  # raised for a missing key, before any request
            raise ProviderError(f"OpenAI client could not be created: {err}") from err
        self.model = model
        self._where = f"OpenAI-compatible provider at {self._client.base_url}"
        self._timeout = timeout
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._stream = stream

    def create_message(
        self,
        *,
        system: str,
        messages: list[dict[str, object]],
        tools: list[dict[str, object]],
    ) -> ProviderResponse:
        request: dict[str, object] = {
            "model": self.model,
            "messages": to_openai_messages(system, messages),
            "temperature": self._temperature,
            # max_tokens rather than max_completion_tokens: every local server understands it.
            "max_tokens": self._max_tokens,
        }
        if tools:
            request["tools"] = [to_openai_tool(t) for t in tools]
        if self._stream:
            request["stream"] = True
        try:
            completion = self._client.chat.completions.create(**request)
        except self._sdk.APIError as err:
            message = describe_api_error(self._sdk, err, where=self._where, timeout=self._timeout)
            raise ProviderError(message) from err
        if self._stream:
            return self._read_stream(completion)
        # A non-JSON 200 body comes back as a plain string, so look the field up defensively.
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ProviderError(f"{self._where}: response had no choices")
        return _from_openai_choice(choices[0], getattr(completion, "usage", None))

    def _read_stream(self, chunks: Any) -> ProviderResponse:
        reply = _StreamedReply()
        try:
            with contextlib.closing(chunks):
                for chunk in chunks:
                    reply.add(chunk)
        except (self._sdk.APIError, *_stream_transport_errors()) as err:
            cause = err.__cause__ or err
            raise ProviderError(
                f"{self._where}: the reply stream broke off after {reply.chunks} chunk(s) ({cause})"
            ) from err
        if reply.finish_reason is None:
            raise ProviderError(
                f"{self._where}: the reply stream ended after {reply.chunks} chunk(s) "
                "before the model finished"
            )
        return reply.response()


def to_openai_messages(system: str, messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """The Chat Completions ``messages`` for a system prompt and a neutral conversation."""
    wire: list[dict[str, object]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message.get("role")
        if role == "user":
            wire.append({"role": "user", "content": text_of(message)})
        elif role == "assistant":
            wire.append(_to_openai_assistant(message))
        elif role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": message["tool_call_id"],
                    "content": text_of(message),
                }
            )
        else:
            raise ValueError(f"unknown message role {role!r}; expected user, assistant or tool")
    return wire


def _to_openai_assistant(message: dict[str, object]) -> dict[str, object]:
    calls = neutral_tool_calls(message)
    if not calls:
        return {"role": "assistant", "content": text_of(message)}
    return {
        "role": "assistant",
        # "" rather than null beside tool calls: OpenAI accepts both, while llama.cpp's server
        # rejects a null content with HTTP 500 (abetlen/llama-cpp-python#1805).
        "content": text_of(message),
        "tool_calls": [
            {
                "id": call["id"],
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call.get("arguments", {}), ensure_ascii=False),
                },
            }
            for call in calls
        ],
    }


_OPENAI_STOP_REASONS = {
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
}


def _from_openai_choice(choice: Any, sdk_usage: Any) -> ProviderResponse:
    message = choice.message
    calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    return _openai_response(message.content or "", calls, choice.finish_reason, message, sdk_usage)


def _openai_response(
    text: str,
    calls: Sequence[tuple[str, str, object]],
    finish_reason: str | None,
    raw_content: object,
    sdk_usage: Any,
) -> ProviderResponse:
    """The neutral reply from its parts; ``calls`` holds (id, name, arguments as sent)."""
    tool_calls = []
    for call_id, name, wire_arguments in calls:
        # Some compatible servers (older Ollama) send arguments as an object, not a JSON string.
        arguments, raw = parse_arguments(wire_arguments or "")
        tool_calls.append(ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw))
    reason = finish_reason or ""
    stop_reason = _OPENAI_STOP_REASONS.get(reason, reason)
    if tool_calls and stop_reason == "end_turn":
        # Several local servers report "stop" alongside tool calls; the calls are what count.
        stop_reason = "tool_use"
    return ProviderResponse(
        text=text,
        tool_calls=tool_calls,
        stop_reason=stop_reason,
        raw_content=raw_content,
        usage=usage_counts(
            sdk_usage, input_tokens="prompt_tokens", output_tokens="completion_tokens"
        ),
    )


@dataclass
class _StreamedCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _StreamedReply:
    """Chat Completions chunks joined: text deltas in order, tool-call pieces by their index."""

    chunks: int = 0
    texts: list[str] = field(default_factory=list)
    calls: dict[int, _StreamedCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Any = None

    def add(self, chunk: Any) -> None:
        self.chunks += 1
        # Only a final usage chunk carries usage, and it has no choices.
        self.usage = getattr(chunk, "usage", None) or self.usage
        for choice in getattr(chunk, "choices", None) or []:
            delta = choice.delta
            if delta is not None:
                self.texts.append(delta.content or "")
                for piece in delta.tool_calls or []:
                    self._add_call_piece(piece)
            self.finish_reason = choice.finish_reason or self.finish_reason

    def _add_call_piece(self, piece: Any) -> None:
        # OpenAI numbers the calls; a server that omits the index sends each call in one piece.
        index = piece.index if piece.index is not None else len(self.calls)
        call = self.calls.setdefault(index, _StreamedCall())
        call.id = piece.id or call.id
        function = piece.function
        if function is not None:
            # The name comes once from OpenAI but is repeated in every piece by some servers.
            call.name = function.name or call.name
            call.arguments.append(function.arguments or "")

    def response(self) -> ProviderResponse:
        calls = [(c.id, c.name, "".join(c.arguments)) for _, c in sorted(self.calls.items())]
        return _openai_response("".join(self.texts), calls, self.finish_reason, None, self.usage)


def _stream_transport_errors() -> tuple[type[Exception], ...]:
    """Transport errors that SDKs built on httpx let escape from a stream they are reading.

    Later SDKs wrap them in ``APIConnectionError``/``APITimeoutError``, which the caller already
    catches; for those this is merely redundant. httpx is the SDK's own dependency, not an extra
    of ours, so its absence is no error.
    """
    try:
        httpx = importlib.import_module("httpx")
    except ImportError:
        return ()
    error: type[Exception] = httpx.TransportError
    return (error,)
