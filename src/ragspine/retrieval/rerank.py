"""Optional rerank: an LLM judges the fused candidates' order; any failure keeps fused order.

RESTRICTED candidates never reach the judge, whatever the caller's clearance: they keep their
fused positions and only the other candidates are reordered around them.
"""

from __future__ import annotations

import re
from typing import Protocol

from ragspine.errors import ProviderError
from ragspine.llm.protocol import LLMProvider
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.protocol import Snippet

RERANK_SYSTEM_PROMPT = (
    "Rank the numbered passages by how well they answer the question. Reply with the passage "
    "numbers only, best first, separated by '>', e.g. 3 > 1 > 2."
)
_NUMBER = re.compile(r"\d+")


class Reranker(Protocol):
    def rerank(self, query: str, snippets: list[Snippet]) -> list[Snippet]: ...


class LLMListwiseReranker:
    def __init__(self, provider: LLMProvider, *, max_candidates: int = 10) -> None:
        self.provider = provider
        self.max_candidates = max_candidates

    def rerank(self, query: str, snippets: list[Snippet]) -> list[Snippet]:
        head, tail = snippets[: self.max_candidates], snippets[self.max_candidates :]
        slots = [i for i, s in enumerate(head) if not _restricted(s)]
        judged = [head[i] for i in slots]
        if len(judged) < 2:
            return snippets
        order = self._judge(query, judged)
        if order is None:
            return snippets
        reordered = list(head)
        for slot, index in zip(slots, order, strict=True):
            reordered[slot] = judged[index]
        return reordered + tail

    def _judge(self, query: str, candidates: list[Snippet]) -> list[int] | None:
        lines = [f"Question: {query}"] + [
            f"[{n}] {s.text}" for n, s in enumerate(candidates, start=1)
        ]
        try:
            reply = self.provider.create_message(
                system=RERANK_SYSTEM_PROMPT,
                messages=[{"role": "user", "content": "\n".join(lines)}],
                tools=[],
            )
        except ProviderError:
            return None
        return _parse_order(reply.text, len(candidates))


def _restricted(snippet: Snippet) -> bool:
    return Sensitivity.parse(snippet.sensitivity) == Sensitivity.RESTRICTED


def _parse_order(text: str, count: int) -> list[int] | None:
    """A permutation of 0..count-1 from "3 > 1 > 2"; missing ones keep their order at the end.

    Anything malformed — an unknown number, a repeat, no numbers at all — returns None.
    """
    numbers = [int(n) for n in _NUMBER.findall(text)]
    if not numbers or any(n < 1 or n > count for n in numbers) or len(set(numbers)) != len(numbers):
        return None
    ranked = [n - 1 for n in numbers]
    return ranked + [i for i in range(count) if i not in ranked]
