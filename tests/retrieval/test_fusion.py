"""RRF against a hand calculation (k = 60, ranks from 1)."""

from __future__ import annotations

import pytest

from ragspine.retrieval.fusion import RRF_K, rrf_fuse

LEXICAL = ["a", "b", "c", "d"]
DENSE = ["c", "a", "e"]
REWRITE = ["c", "d", "b"]


def test_three_overlapping_rankings_match_the_hand_calculation() -> None:
    # 1/61 = 0.016393442623, 1/62 = 0.016129032258, 1/63 = 0.015873015873, 1/64 = 0.015625
    expected = [
        ("c", 0.048659901119),  # 1/63 + 1/61 + 1/61
        ("a", 0.032522474881),  # 1/61 + 1/62
        ("b", 0.032002048131),  # 1/62 + 1/63
        ("d", 0.031754032258),  # 1/64 + 1/62
        ("e", 0.015873015873),  # 1/63
    ]
    fused = rrf_fuse([LEXICAL, DENSE, REWRITE])
    assert [doc for doc, _ in fused] == [doc for doc, _ in expected]
    for (_, score), (_, want) in zip(fused, expected, strict=True):
        assert score == pytest.approx(want, abs=1e-12)


def test_weights_scale_each_ranking() -> None:
    expected = [
        ("c", 0.056336195680),  # 2/63 + 1/61 + 0.5/61
        ("a", 0.048915917504),  # 2/61 + 1/62
        ("b", 0.040194572453),  # 2/62 + 0.5/63
        ("d", 0.039314516129),  # 2/64 + 0.5/62
        ("e", 0.015873015873),  # 1/63
    ]
    fused = rrf_fuse([LEXICAL, DENSE, REWRITE], weights=[2.0, 1.0, 0.5])
    assert [doc for doc, _ in fused] == [doc for doc, _ in expected]
    for (_, score), (_, want) in zip(fused, expected, strict=True):
        assert score == pytest.approx(want, abs=1e-12)


def test_k_is_60_and_the_first_rank_is_1() -> None:
    assert RRF_K == 60
    assert rrf_fuse([["only"]]) == [("only", 1 / 61)]
    assert rrf_fuse([["only"]], k=0) == [("only", 1.0)]


def test_equal_scores_order_by_best_rank_then_id() -> None:
    # k = 0: z scores 1/1 from one ranking, y scores 1/2 + 1/2 from two — exactly equal.
    fused = rrf_fuse([["z"], ["x", "y"], ["w", "y"]], k=0)
    assert fused[0] == ("w", 1.0)
    assert [doc for doc, _ in fused] == ["w", "x", "z", "y"]
    # Mirror-image rankings tie on score and on best rank: the id decides, in any input order.
    assert [d for d, _ in rrf_fuse([["b", "a"], ["a", "b"]])] == ["a", "b"]
    assert [d for d, _ in rrf_fuse([["a", "b"], ["b", "a"]])] == ["a", "b"]


def test_a_repeated_id_counts_once_at_its_first_position() -> None:
    assert rrf_fuse([["a", "a", "b"]]) == [("a", 1 / 61), ("b", 1 / 63)]


def test_no_rankings_fuse_to_nothing() -> None:
    assert rrf_fuse([]) == []
    assert rrf_fuse([[], []]) == []


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="2 weights for 3 rankings"):
        rrf_fuse([LEXICAL, DENSE, REWRITE], weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="k must be"):
        rrf_fuse([LEXICAL], k=-1)
