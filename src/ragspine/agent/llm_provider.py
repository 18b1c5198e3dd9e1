"""The LLM seam: one ``LLMProvider`` Protocol, a deterministic offline mock and two SDK adapters.

The agent speaks a provider-neutral format and never sees an SDK type:

- messages: ``{"role": "user", "content": str}``,
  ``{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments"}]}``
  (``tool_calls`` optional) and ``{"role": "tool", "tool_call_id", "name", "content": <JSON str>}``;
- tools: ``{"name", "description", "parameters": <JSON schema object>}``.

Each adapter converts to its wire format at the edge and imports its SDK lazily, so the core runs
without the ``llm`` extra. Network, timeout and API failures become ``ProviderError``; anything
else (a bad argument, a bug) propagates unchanged so it is never mistaken for an outage.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragspine.errors import ProviderError

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

DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"

# The agent writes this line into the user message; the mock reads it back instead of
# understanding language, which keeps it deterministic.
SLOT_HINT_PREFIX = "Parsed slots (JSON): "

# Local OpenAI-compatible servers ignore the key, but both SDKs refuse to build a client without
# one.
_LOCAL_PLACEHOLDER_KEY = "not-needed"
_INSTALL_HINT = "pip install 'ragspine[llm]'"


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


def _parse_arguments(raw: object) -> tuple[dict[str, object], str]:
    """Return ``(arguments, raw_arguments)``; raw text is kept only when it is not an object."""
    if isinstance(raw, dict):
        return raw, ""
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}, text
    if isinstance(parsed, dict):
        return parsed, ""
    return {}, text


def _text_of(message: dict[str, object]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


# --------------------------------------------------------------------------- mock


_SNIPPET_LINE = re.compile(r"^\[(\d+)\] (.*)$")
# ASCII terminators end a sentence only before whitespace or the end, so "1.5" or "e.g." inside a
# figure does not split; CJK terminators are never part of a number, so they always end one.
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s|$)")
_SNIPPETS_USED = 3


class MockProvider:
    """Deterministic, offline provider: the default and the test double.

    It reads the slot hint the agent wrote instead of understanding the question, summarises tool
    results by fixed rules and answers narrative prompts extractively, so every run is identical.
    ``calls`` counts requests, letting tests prove a path made no LLM call.
    """

    def __init__(self) -> None:
        self.calls = 0

    def create_message(
        self,
        *,
        system: str,
        messages: list[dict[str, object]],
        tools: list[dict[str, object]],
    ) -> ProviderResponse:
        self.calls += 1
        if not tools:
            return _text_response(_extractive_answer(messages))
        tool_results = [m for m in messages if m.get("role") == "tool"]
        if tool_results:
            return _text_response(_summarise_tool_result(_text_of(tool_results[-1])))
        slots = _last_slot_hint(messages)
        if slots is None:
            return _text_response("I could not determine which figure the question asks for.")
        call = ToolCall(id="mock-call-1", name=str(tools[0]["name"]), arguments=slots)
        return ProviderResponse(text="", tool_calls=[call], stop_reason="tool_use")


def _text_response(text: str) -> ProviderResponse:
    return ProviderResponse(text=text, tool_calls=[], stop_reason="end_turn")


def _last_slot_hint(messages: list[dict[str, object]]) -> dict[str, object] | None:
    """Slots from the last hint line in user messages, nulls dropped; None if absent or broken."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        for line in reversed(_text_of(message).splitlines()):
            line = line.strip()
            if line.startswith(SLOT_HINT_PREFIX):
                arguments, raw = _parse_arguments(line[len(SLOT_HINT_PREFIX) :])
                if raw:
                    return None
                return {k: v for k, v in arguments.items() if v is not None}
    return None


def _summarise_tool_result(content: str) -> str:
    result, raw = _parse_arguments(content)
    status = result.get("status")
    if raw or status is None:
        return "The tool result could not be read."
    if status == "found":
        fields = [result.get(k) for k in ("entity", "period", "metric_code")]
        return f"{' '.join(str(f) for f in fields)}: {result.get('value')} {result.get('unit')}"
    if status == "not_found":
        return "not found"
    if status == "unrecognized_param":
        return f"unrecognized parameter: {result.get('param')}"
    return f"unexpected tool status: {status}"


def _extractive_answer(messages: list[dict[str, object]]) -> str:
    """The snippet sentences that share most words with the question, each cited as ``[n]``.

    Up to three sentences (two per snippet at most), printed in snippet order so the answer
    reads naturally; with no overlap at all, the first sentence of the first snippets.
    """
    user_texts = [_text_of(m) for m in messages if m.get("role") == "user"]
    if not user_texts:
        return ""
    lines = user_texts[-1].splitlines()
    question = next((ln[len("Question:") :] for ln in lines if ln.startswith("Question:")), "")
    wanted = _terms(question)
    scored: list[tuple[int, int, int, str]] = []  # (-overlap, snippet, position, sentence)
    snippets = [m for m in (_SNIPPET_LINE.match(line) for line in lines) if m is not None]
    for match in snippets:
        number = int(match.group(1))
        sentences = [s.strip() for s in _SENTENCE_END.split(_strip_source(match.group(2)))]
        for position, sentence in enumerate(s for s in sentences if s):
            overlap = len(wanted & _terms(sentence))
            scored.append((-overlap, number, position, sentence))
    best = [s for s in sorted(scored) if s[0] < 0]
    if not best:
        firsts = [s for s in scored if s[2] == 0][:_SNIPPETS_USED]
        return " ".join(f"{sentence} [{number}]" for _, number, _, sentence in firsts)
    chosen: list[tuple[int, int, int, str]] = []
    per_snippet: dict[int, int] = {}
    for item in best:
        if len(chosen) == _SNIPPETS_USED:
            break
        if per_snippet.get(item[1], 0) < 2:
            chosen.append(item)
            per_snippet[item[1]] = per_snippet.get(item[1], 0) + 1
    chosen.sort(key=lambda item: (item[1], item[2]))
    return " ".join(f"{sentence} [{number}]" for _, number, _, sentence in chosen)


_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
_QUESTION_WORDS = frozenset(
    [
        "what",
        "why",
        "how",
        "did",
        "does",
        "do",
        "is",
        "was",
        "were",
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "for",
        "to",
        "and",
        "or",
        "with",
        "which",
        "who",
    ]
)


def _terms(text: str) -> set[str]:
    """Lower-cased words and CJK character bigrams — enough to rank sentences offline."""
    terms: set[str] = set()
    for token in _WORD.findall(text.lower()):
        if token[0].isascii():
            if token not in _QUESTION_WORDS and len(token) > 1:
                terms.add(token)
        else:
            terms.update(token[i : i + 2] for i in range(max(1, len(token) - 1)))
    return terms


def _strip_source(text: str) -> str:
    """Drop a leading ``(source: …)`` label, allowing parentheses inside a file name."""
    if not text.startswith("(source:"):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return text[index + 1 :].strip()
    return ""


# --------------------------------------------------------------------------- SDK adapters


def _import_sdk(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ImportError(
            f"The {name} SDK is not installed; install the extra with: {_INSTALL_HINT}"
        ) from err


def _describe_api_error(sdk: Any, err: Exception, *, where: str, timeout: float) -> str:
    if isinstance(err, sdk.APITimeoutError):
        return f"{where}: no response within {timeout:g}s"
    if isinstance(err, sdk.APIConnectionError):
        return f"{where}: could not connect ({err.__cause__ or err})"
    if isinstance(err, sdk.APIStatusError):
        return f"{where}: HTTP {err.status_code}: {err.message}"
    return f"{where}: {err}"


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
        self._sdk = _import_sdk("openai")
        if api_key is None and base_url is not None and not os.environ.get("OPENAI_API_KEY"):
            api_key = _LOCAL_PLACEHOLDER_KEY
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
            "messages": _to_openai_messages(system, messages),
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
            message = _describe_api_error(self._sdk, err, where=self._where, timeout=self._timeout)
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


def _to_openai_messages(system: str, messages: list[dict[str, object]]) -> list[dict[str, object]]:
    wire: list[dict[str, object]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message.get("role")
        if role == "user":
            wire.append({"role": "user", "content": _text_of(message)})
        elif role == "assistant":
            wire.append(_to_openai_assistant(message))
        elif role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": message["tool_call_id"],
                    "content": _text_of(message),
                }
            )
        else:
            raise ValueError(f"unknown message role {role!r}; expected user, assistant or tool")
    return wire


def _neutral_tool_calls(message: dict[str, object]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TypeError(f"tool_calls must be a list, got {type(calls).__name__}")
    return calls


def _to_openai_assistant(message: dict[str, object]) -> dict[str, object]:
    calls = _neutral_tool_calls(message)
    if not calls:
        return {"role": "assistant", "content": _text_of(message)}
    return {
        "role": "assistant",
        # "" rather than null beside tool calls: OpenAI accepts both, while llama.cpp's server
        # rejects a null content with HTTP 500 (abetlen/llama-cpp-python#1805).
        "content": _text_of(message),
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


def _from_openai_choice(choice: Any, usage: Any) -> ProviderResponse:
    message = choice.message
    calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    return _openai_response(message.content or "", calls, choice.finish_reason, message, usage)


def _openai_response(
    text: str,
    calls: Sequence[tuple[str, str, object]],
    finish_reason: str | None,
    raw_content: object,
    usage: Any,
) -> ProviderResponse:
    """The neutral reply from its parts; ``calls`` holds (id, name, arguments as sent)."""
    tool_calls = []
    for call_id, name, wire_arguments in calls:
        # Some compatible servers (older Ollama) send arguments as an object, not a JSON string.
        arguments, raw = _parse_arguments(wire_arguments or "")
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
        usage=_usage(usage, input_tokens="prompt_tokens", output_tokens="completion_tokens"),
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
    catches; for those this is merely redundant.
    """
    try:
        httpx = importlib.import_module("httpx")
    except ImportError:
        return ()
    error: type[Exception] = httpx.TransportError
    return (error,)


def _usage(usage: Any, **names: str) -> dict[str, int]:
    """Neutral usage counts from an SDK usage object, keeping only the integers it reported."""
    counts = {neutral: getattr(usage, sdk_name, None) for neutral, sdk_name in names.items()}
    return {k: v for k, v in counts.items() if isinstance(v, int)}


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
        self._sdk = _import_sdk("anthropic")
        if api_key is None and base_url is not None and not _anthropic_env_credential():
            api_key = _LOCAL_PLACEHOLDER_KEY
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
            message = _describe_api_error(self._sdk, err, where=self._where, timeout=self._timeout)
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
                    "content": _text_of(message),
                }
            )
            continue
        results = None
        if role == "user":
            wire.append({"role": "user", "content": _text_of(message)})
        elif role == "assistant":
            wire.append({"role": "assistant", "content": _anthropic_assistant_blocks(message)})
        else:
            raise ValueError(f"unknown message role {role!r}; expected user, assistant or tool")
    return wire


def _anthropic_assistant_blocks(message: dict[str, object]) -> list[dict[str, object]]:
    text = _text_of(message)
    blocks: list[dict[str, object]] = [{"type": "text", "text": text}] if text else []
    for call in _neutral_tool_calls(message):
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
            arguments, raw = _parse_arguments(block.input)
            tool_calls.append(
                ToolCall(id=block.id, name=block.name, arguments=arguments, raw_arguments=raw)
            )
    return ProviderResponse(
        text="".join(texts),
        tool_calls=tool_calls,
        stop_reason=reply.stop_reason or "",
        raw_content=reply.content,
        usage=_usage(reply.usage, input_tokens="input_tokens", output_tokens="output_tokens"),
    )
