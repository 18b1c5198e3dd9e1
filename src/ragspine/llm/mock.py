"""``MockProvider``: the deterministic, offline provider and the extractive rules it answers by."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from ragspine.llm.protocol import (
    SLOT_HINT_PREFIX,
    ProviderResponse,
    ToolCall,
    parse_arguments,
    text_of,
)

__all__ = ["MockProvider"]

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
            return _text_response(_summarise_tool_result(text_of(tool_results[-1])))
        slots = _last_slot_hint(messages)
        if slots is None:
            return _text_response("I could not determine which figure the question asks for.")
        call = ToolCall("mock-call-1", str(tools[0]["name"]), slots)
        return ProviderResponse("", [call], "tool_use")


def _text_response(text: str) -> ProviderResponse:
    return ProviderResponse(text=text, tool_calls=[], stop_reason="end_turn")


def _last_slot_hint(messages: list[dict[str, object]]) -> dict[str, object] | None:
    """Slots from the last hint line in user messages, nulls dropped; None if absent or broken."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        text = text_of(message)
        # The agent writes the hint as the message's last line: read that line alone when it
        # is one (nothing after it splits lines), else every line from the end.
        last = text[text.rfind("\n") + 1 :].strip()
        if last.startswith(SLOT_HINT_PREFIX) and len(last.splitlines()) == 1:
            return _hint_slots(last)
        for line in reversed(text.splitlines()):
            line = line.strip()
            if line.startswith(SLOT_HINT_PREFIX):
                return _hint_slots(line)
    return None


def _hint_slots(line: str) -> dict[str, object] | None:
    slots = _read_hint(line)
    return None if slots is None else dict(slots)


@lru_cache(maxsize=1024)
def _read_hint(line: str) -> Mapping[str, object] | None:
    """The slots a hint line holds, read once per line: the agent writes the same few hints
    again and again (each caller gets its own copy: a tool call's arguments are its own)."""
    arguments, raw = parse_arguments(line[len(SLOT_HINT_PREFIX) :])
    if raw:
        return None
    return MappingProxyType({k: v for k, v in arguments.items() if v is not None})


def _summarise_tool_result(content: str) -> str:
    result, raw = parse_arguments(content)
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
    user_texts = [text_of(m) for m in messages if m.get("role") == "user"]
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
