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
    return _Shape(a).same_as(_Shape(b))


def copy_groups(texts: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each ``(id, text)``'s id → the id of the first text it is a copy of (itself if none)."""
    firsts: list[tuple[_Shape, str]] = []
    group: dict[str, str] = {}
    for key, text in texts:
        shape = _Shape(text)
        group[key] = next((first for seen, first in firsts if seen.same_as(shape)), key)
        if group[key] == key:
            firsts.append((shape, key))
    return group


def fold_copies(snippets: Sequence[Snippet]) -> list[Snippet]:
    """``snippets`` in rank order, each later copy of an earlier one's text folded into that
    one's ``copies`` (with the copies it already carried)."""
    kept: list[tuple[_Shape, Snippet]] = []
    for snippet in snippets:
        shape = _Shape(snippet.text)
        for index, (seen, first) in enumerate(kept):
            if seen.same_as(shape):
                folded = (*first.copies, replace(snippet, copies=()), *snippet.copies)
                kept[index] = (seen, replace(first, copies=folded))
                break
        else:
            kept.append((shape, snippet))
    return [snippet for _, snippet in kept]


class _Shape:
    """What copy detection compares, computed once per passage (tokens only when needed)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.letters = "".join(
            c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum()
        )
        self.numbers = numbers_in_text(text)
        self._tokens: set[str] | None = None

    @property
    def tokens(self) -> set[str]:
        if self._tokens is None:
            self._tokens = set(tokenize(self.text))
        return self._tokens

    def same_as(self, other: _Shape) -> bool:
        if self.letters == other.letters:
            return True
        if self.numbers != other.numbers:
            return False
        union = self.tokens | other.tokens
        return bool(union) and len(self.tokens & other.tokens) / len(union) >= NEAR_DUPLICATE
