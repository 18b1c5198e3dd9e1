"""Passage text, compared: the numbers a passage states, and when two passages are copies.

The retriever folds copies (the same paragraph in two files, or in two versions of one) into
the best-ranked one in every ranking before fusing them, so copies neither take a place of
their own nor push distinct passages down; the narrative channel folds again for any other
retriever, and cites every copy's source once.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from ragspine.retrieval.protocol import Snippet
from ragspine.retrieval.tokenizer import tokenize

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Two passages are copies when their bigram sets overlap this much and they state the same
# numbers: a re-saved file or a new version with a reflowed line, not a revised figure.
NEAR_DUPLICATE = 0.9


def numbers_in_text(text: str) -> set[str]:
    """Every number written in ``text``, canonical (``1,234.5`` → ``1234.5``)."""
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def same_passage(a: str, b: str) -> bool:
    """Equal up to case, width, spacing and punctuation, or nearly equal with equal numbers."""
    return _shape(a).same_as(_shape(b))


def copy_groups(texts: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each ``(id, text)``'s id → the id of the first text it is a copy of (itself if none)."""
    exact: dict[str, str] = {}
    # Near copies state the same numbers: only texts with equal numbers are compared.
    near: dict[frozenset[str], list[tuple[_Shape, str]]] = {}
    group: dict[str, str] = {}
    for key, text in texts:
        shape = _shape(text)
        first = exact.get(shape.letters)
        if first is None:
            candidates = near.setdefault(shape.numbers, [])
            first = next((k for seen, k in candidates if seen.near(shape)), None)
        if first is None:
            exact[shape.letters] = key
            candidates.append((shape, key))
            first = key
        group[key] = first
    return group


def fold_copies(snippets: Sequence[Snippet]) -> list[Snippet]:
    """``snippets`` in rank order, each later copy of an earlier one's text folded into that
    one's ``copies`` (with the copies it already carried)."""
    kept: list[tuple[_Shape, Snippet]] = []
    for snippet in snippets:
        shape = _shape(snippet.text)
        for index, (seen, first) in enumerate(kept):
            if seen.same_as(shape):
                folded = (*first.copies, replace(snippet, copies=()), *snippet.copies)
                kept[index] = (seen, replace(first, copies=folded))
                break
        else:
            kept.append((shape, snippet))
    return [snippet for _, snippet in kept]


@lru_cache(maxsize=8192)
def _shape(text: str) -> _Shape:
    """One shape per text, kept: a retriever compares the same candidates question after
    question."""
    return _Shape(text)


class _Shape:
    """What copy detection compares, computed once per passage (tokens only when needed)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.letters = "".join(
            c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum()
        )
        self.numbers = frozenset(numbers_in_text(text))
        self._tokens: frozenset[str] | None = None

    @property
    def tokens(self) -> frozenset[str]:
        if self._tokens is None:
            self._tokens = frozenset(tokenize(self.text))
        return self._tokens

    def same_as(self, other: _Shape) -> bool:
        return self.letters == other.letters or (self.numbers == other.numbers and self.near(other))

    def near(self, other: _Shape) -> bool:
        """Bigram sets overlapping by NEAR_DUPLICATE (Jaccard); sets whose sizes differ by
        more than that cannot."""
        ours, theirs = self.tokens, other.tokens
        small, large = sorted((len(ours), len(theirs)))
        if not large or small < NEAR_DUPLICATE * large:
            return False
        return len(ours & theirs) / len(ours | theirs) >= NEAR_DUPLICATE
