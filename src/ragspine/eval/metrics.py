"""Ranking metrics for retrieval: recall@k, reciprocal rank and nDCG@k with binary gains.

A hit is relevant to a judged passage when both name the same document and one locator covers
the other (``page=3,para=2-4`` and ``page=3,para=3`` match in either role), so judgements may
be written at block or chunk grain. Each judged passage counts once: a second hit covering a
passage already found earns nothing. A query with nothing relevant scores 1.0 on every metric
— there was nothing to find and nothing was missed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from ragspine.retrieval.chunking import locator_covers


class Located(Protocol):
    """Anything with lineage: a retrieved snippet or a judged relevant passage."""

    @property
    def doc(self) -> str: ...

    @property
    def locator(self) -> str: ...


def is_match(hit: Located, relevant: Located) -> bool:
    """Same document, and one locator covers the other — for the hit or for a copy folded
    into it (the same passage in another file: ``Snippet.copies``)."""
    copies: tuple[Located, ...] = getattr(hit, "copies", ())
    return _covers(hit, relevant) or any(_covers(copy, relevant) for copy in copies)


def _covers(hit: Located, relevant: Located) -> bool:
    return hit.doc == relevant.doc and (
        locator_covers(hit.locator, relevant.locator)
        or locator_covers(relevant.locator, hit.locator)
    )


def gains(hits: Sequence[Located], relevant: Sequence[Located]) -> list[int]:
    """Binary gain per hit: 1 when it matches a relevant passage no earlier hit matched."""
    found: set[int] = set()
    result: list[int] = []
    for hit in hits:
        new = {i for i, item in enumerate(relevant) if i not in found and is_match(hit, item)}
        found |= new
        result.append(1 if new else 0)
    return result


def recall_at_k(hits: Sequence[Located], relevant: Sequence[Located], k: int) -> float:
    """|relevant passages matched by some hit among the first k| / |relevant passages|."""
    if not relevant:
        return 1.0
    top = hits[:k]
    found = sum(1 for item in relevant if any(is_match(hit, item) for hit in top))
    return found / len(relevant)


def reciprocal_rank(hits: Sequence[Located], relevant: Sequence[Located]) -> float:
    """1 / rank of the first relevant hit (ranks start at 1); 0 when no hit is relevant.

    Averaged over queries this is MRR. The caller decides the cut-off by the hits it passes.
    """
    if not relevant:
        return 1.0
    for rank, hit in enumerate(hits, start=1):
        if any(is_match(hit, item) for item in relevant):
            return 1.0 / rank
    return 0.0


def ndcg_at_k(hits: Sequence[Located], relevant: Sequence[Located], k: int) -> float:
    """DCG@k / IDCG@k with DCG@k = sum over ranks r <= k of gain_r / log2(r + 1).

    Gains are binary (see ``gains``); the ideal ranking puts min(|relevant|, k) relevant
    passages at ranks 1, 2, …
    """
    if not relevant:
        return 1.0
    dcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(gains(hits[:k], relevant), 1))
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), k) + 1))
    return dcg / ideal
