"""Reciprocal rank fusion: one ranking out of several (lexical variants, dense, rewrites)."""

from __future__ import annotations

import math
from collections.abc import Sequence

# k = 60 and ranks starting at 1 are the constants of Cormack, Clarke and Büttcher (SIGIR 2009),
# which Elasticsearch, OpenSearch and Haystack also use. A large k flattens the head of each
# ranking (rank 1 scores 1/61, rank 2 1/62), so a chunk that several channels place fairly high
# beats one that a single channel happens to put first; no channel's raw scores, which are not
# comparable (BM25 vs cosine), take part. Starting at 0 would silently mean k = 59 and break
# parity with those implementations and with hand calculations.
RRF_K = 60


def rrf_fuse(
    rankings: Sequence[Sequence[str]],
    *,
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse rankings of ids, best first: ``score(d) = Σ w_i / (k + rank_i(d))``, ranks from 1.

    A ranking that lacks ``d`` adds nothing; a repeated id counts at its first position only.
    Equal scores are ordered by the best rank the id reached in any ranking, then by id, so
    the output does not depend on dict or set ordering.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    terms: dict[str, list[float]] = {}
    best_rank: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            terms.setdefault(doc, []).append(weight / (k + rank))
            best_rank[doc] = min(rank, best_rank.get(doc, rank))
    # fsum rounds the exact sum once, so equal sets of terms give bit-equal scores in any order.
    scores = {doc: math.fsum(parts) for doc, parts in terms.items()}
    return sorted(scores.items(), key=lambda item: (-item[1], best_rank[item[0]], item[0]))
