"""Retrieval metrics against hand calculations on small ranked lists."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.eval.metrics import gains, is_match, ndcg_at_k, recall_at_k, reciprocal_rank
from ragspine.eval.retrieval_eval import Passage

A = Passage("decks/a.pptx", "slide=2,notes")
B = Passage("reports/b.pdf", "page=3,para=2")
C = Passage("memos/c.md", "section=2,para=1")
NOISE = Passage("decks/a.pptx", "slide=2,body")
B_RANGE = Passage("reports/b.pdf", "page=3,para=1-3")


def test_hand_computed_recall_rr_and_ndcg() -> None:
    hits = [NOISE, A, B_RANGE, A]
    relevant = [A, B, C]
    assert recall_at_k(hits, relevant, 4) == pytest.approx(2 / 3)
    assert recall_at_k(hits, relevant, 2) == pytest.approx(1 / 3)
    assert reciprocal_rank(hits, relevant) == pytest.approx(1 / 2)
    # Gains 0, 1, 1, 0 at ranks 1-4; the ideal puts three relevant passages at ranks 1-3.
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(hits, relevant, 4) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(hits, relevant, 4) == pytest.approx(0.53072, abs=1e-5)


def test_a_passage_found_twice_counts_once() -> None:
    hits = [A, A, A]
    relevant = [A, B]
    assert gains(hits, relevant) == [1, 0, 0]
    assert recall_at_k(hits, relevant, 3) == pytest.approx(0.5)
    assert ndcg_at_k(hits, relevant, 3) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_the_ideal_ranking_is_capped_at_k() -> None:
    relevant = [A, B, C, Passage("x", "slide=1,body"), Passage("y", "slide=1,body")]
    assert ndcg_at_k([A, B], relevant, 2) == pytest.approx(1.0)
    assert recall_at_k([A, B], relevant, 2) == pytest.approx(0.4)


def test_hits_beyond_k_earn_nothing() -> None:
    assert recall_at_k([NOISE, NOISE, A], [A], 2) == 0.0
    assert ndcg_at_k([NOISE, NOISE, A], [A], 2) == 0.0
    assert ndcg_at_k([NOISE, NOISE, A], [A], 3) == pytest.approx(1 / math.log2(4))


def test_reciprocal_rank_is_zero_when_nothing_relevant_was_returned() -> None:
    assert reciprocal_rank([NOISE, C], [A, B]) == 0.0
    assert reciprocal_rank([], [A]) == 0.0


def test_nothing_relevant_means_nothing_missed() -> None:
    assert recall_at_k([NOISE], [], 10) == 1.0
    assert reciprocal_rank([NOISE], []) == 1.0
    assert ndcg_at_k([NOISE], [], 10) == 1.0


@pytest.mark.parametrize(
    ("hit", "judged", "expected"),
    [
        (Passage("r.pdf", "page=3,para=2-4"), Passage("r.pdf", "page=3,para=3"), True),
        (Passage("r.pdf", "page=3,para=3"), Passage("r.pdf", "page=3,para=2-4"), True),
        (Passage("r.pdf", "page=3,para=2-4"), Passage("r.pdf", "page=3,para=5"), False),
        (Passage("r.pdf", "page=3,para=2-4"), Passage("r.pdf", "page=4,para=3"), False),
        (Passage("r.pdf", "page=3,para=3"), Passage("other.pdf", "page=3,para=3"), False),
        (Passage("d.pptx", "slide=2,notes"), Passage("d.pptx", "slide=2,body"), False),
        (Passage("d.pptx", "slide=2,notes"), Passage("d.pptx", "slide=2,notes"), True),
    ],
)
def test_a_hit_matches_when_either_locator_covers_the_other(
    hit: Passage, judged: Passage, expected: bool
) -> None:
    assert is_match(hit, judged) is expected


def test_one_range_hit_finds_every_judged_paragraph_it_covers() -> None:
    relevant = [Passage("r.pdf", "page=1,para=3"), Passage("r.pdf", "page=1,para=4")]
    assert recall_at_k([Passage("r.pdf", "page=1,para=2-4")], relevant, 10) == 1.0


_PASSAGES = st.sampled_from([A, B, C, NOISE, B_RANGE])


@given(
    hits=st.lists(_PASSAGES, max_size=8),
    relevant=st.lists(st.sampled_from([A, B, C]), min_size=1, max_size=3, unique=True),
    k=st.integers(min_value=1, max_value=10),
)
def test_metrics_stay_in_range_and_recall_grows_with_k(
    hits: list[Passage], relevant: list[Passage], k: int
) -> None:
    for value in (
        recall_at_k(hits, relevant, k),
        reciprocal_rank(hits[:k], relevant),
        ndcg_at_k(hits, relevant, k),
    ):
        assert 0.0 <= value <= 1.0 + 1e-12
    assert recall_at_k(hits, relevant, k) <= recall_at_k(hits, relevant, k + 1)
