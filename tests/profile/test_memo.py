"""Results remembered per profile (``profile.memo``): the same value as computed afresh, one
memo per profile object, and a bound on what is kept."""

from __future__ import annotations

from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.memo import Memo, memo_for
from ragspine.retrieval import relevance

TEXT = "Hong Kong revenue rose 8% in FY2025 on agency sales and bancassurance growth."


def test_a_remembered_value_is_the_value_computed_afresh() -> None:
    profile = load_profile(example_profile_path())
    glossary = glossary_for(profile)
    first = relevance.topic_terms(TEXT, glossary)
    assert relevance.topic_terms(TEXT, glossary) is first  # remembered
    other = load_profile(example_profile_path())  # another profile object: its own memo
    again = relevance.topic_terms(TEXT, glossary_for(other))
    assert again == first and again is not first
    assert "agency" in {t[:6] for t in first} and "hong" not in first


def test_each_profile_object_has_its_own_memo() -> None:
    one, two = (load_profile(example_profile_path()) for _ in range(2))
    assert memo_for(one, "x") is memo_for(one, "x")
    assert memo_for(one, "x") is not memo_for(two, "x")
    assert memo_for(one, "x") is not memo_for(one, "y")


def test_a_full_memo_starts_again_and_never_serves_another_keys_value() -> None:
    memo: Memo[int] = Memo(limit=3)
    calls: list[int] = []

    def compute(n: int) -> int:
        calls.append(n)
        return n * n

    for n in (1, 2, 3, 1, 4, 4, 1):
        assert memo.get(n, lambda n=n: compute(n)) == n * n
    assert calls == [1, 2, 3, 4, 1]  # 4 arrived with 3 kept: the memo started again
