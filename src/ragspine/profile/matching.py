"""Alias matching: one Aho-Corasick automaton per vocabulary, longest alias first.

Every alias is searched in two spellings — case-folded with its words one space apart, and
case-folded with no spaces at all — so "New York", "new  york", "NewYork" and "NEWYORK" all
find an alias written either way. ASCII aliases match only on ASCII word edges (an alias "NIC"
never matches inside "picnic"), CJK aliases as substrings. With ``flexible_spaces`` whitespace
is ignored everywhere in the text, so "甲 乙" cannot slip past an alias "甲乙" (the competitor
screen wants this; ordinary terms do not, or "a pe" would read as an alias "APE").
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from ahocorasick_rs import AhoCorasick, MatchKind

# What ASCII word edges are made of: an ASCII alias needs none of these right before or after.
ASCII_WORD_CHARS = frozenset(string.ascii_letters + string.digits)
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Text that needs its whitespace rewritten before the automaton reads it: a run of two or
# more spaces, or any whitespace other than a plain space.
_UNUSUAL_SPACE = re.compile(r"\s{2,}|[^\S ]")
_WHITESPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S+")


def detect_language(text: str) -> str:
    """ "zh" when the text contains any CJK character, else "en"."""
    return "zh" if not text.isascii() and CJK.search(text) else "en"


class AliasEntry(NamedTuple):
    alias: str
    kind: str
    code: str


# Tuples, not frozen dataclasses: a question makes a dozen hits, and a tuple is built several
# times faster than a frozen dataclass instance.
class AliasHit(NamedTuple):
    kind: str
    code: str
    start: int
    end: int
    text: str


def alias_key(alias: str) -> str:
    """The comparison key of an alias: case-folded with all whitespace removed."""
    return "".join(alias.split()).casefold()


# Full-width brackets read as ASCII ones, one character for one: a label mapped from a
# document ("客房净额（经调整）", whose alias is stored folded as "客房净额(经调整)") must match a
# question typed either way. The question's normalization keeps full-width punctuation (a
# "，" beside a digit must not read as a thousands separator), so the fold is done here.
_BRACKETS = str.maketrans("（）［］【】", "()[][]")


def fold(text: str) -> str:
    """Lower case, full-width brackets as ASCII ones, without changing the length, so offsets
    in the folded text stay valid.

    ``str.lower`` lengthens a few characters (the dotted capital I); those keep their case.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(low if len(low := c.lower()) == 1 else c for c in text)
    return lowered if lowered.isascii() else lowered.translate(_BRACKETS)


class _Pattern(NamedTuple):
    # A tuple: ``_candidates`` reads one per automaton match of every question.
    entry: AliasEntry
    length: int  # of the alias key: longer aliases win, as in the profile's promise
    ascii_head: bool  # the alias starts with an ASCII letter or digit: needs a word edge before
    ascii_tail: bool


class AliasMatcher:
    def __init__(
        self,
        entries: Iterable[AliasEntry],
        *,
        flexible_spaces: bool = False,
        plural_kinds: frozenset[str] = frozenset(),
    ) -> None:
        """``plural_kinds``: the entry kinds whose English aliases also match with a plural
        ``s`` after their last word ("net profits", "premiums"), the ``s`` inside the hit."""
        self._flexible = flexible_spaces
        self._plural_kinds = plural_kinds
        self._entries = list(entries)
        self._by_key: dict[str, AliasEntry] = {}
        patterns: dict[str, _Pattern] = {}
        for entry in self._entries:
            key = alias_key(entry.alias)
            if not key:
                continue
            self._by_key.setdefault(key, entry)
            chars = key
            pattern = _Pattern(
                entry,
                len(key),
                chars[0] in ASCII_WORD_CHARS,
                chars[-1] in ASCII_WORD_CHARS,
            )
            for spelling in _spellings(entry.alias, flexible_spaces):
                patterns.setdefault(spelling, pattern)
        # Exact spellings (codes above all: what parsers and models pass back) skip the key.
        self._by_spelling = {
            e.alias: self._by_key[k] for e in self._entries if (k := alias_key(e.alias))
        }
        self._spellings = list(patterns)
        self._patterns = list(patterns.values())
        self._automaton = (
            AhoCorasick(self._spellings, matchkind=MatchKind.Standard) if patterns else None
        )

    def finditer(self, text: str, *, respace: bool = True) -> list[AliasHit]:
        """Leftmost-longest hits that respect word edges, left to right, never overlapping
        (a list, not a generator: a question is read by several matchers in a row).

        ``respace=False`` reads ``text`` as it stands, for text whose whitespace is already one
        space between words (``normalize_question``'s) and where a longer run of spaces is a
        span the caller blanked: no alias may match across it, and no respacing is paid for.
        """
        if self._automaton is None:
            return []
        searched, respaced = _searched(text, self._flexible, respace)
        found = self._automaton.find_matches_as_indexes(searched, overlapping=True)
        if not found:
            return []
        offsets = _offsets(text, self._flexible) if respaced else None
        return _select(_candidates(text, found, self._patterns, offsets, self._plural_kinds), text)

    def entries(self) -> list[AliasEntry]:
        """Every entry the matcher was built from, each spelling kept."""
        return list(self._entries)

    def lookup(self, term: str) -> AliasEntry | None:
        """The entry whose alias equals ``term`` exactly (modulo case and whitespace)."""
        entry = self._by_spelling.get(term)
        return entry if entry is not None else self._by_key.get(alias_key(term))


class MatcherSet:
    """Several vocabularies read in one pass: ``finditer(text)[i]`` is exactly
    ``matchers[i].finditer(text)``, for the cost of one automaton search instead of one each.

    Each vocabulary keeps its own leftmost-longest choice, so a word of one never hides a word
    of another. The matchers must agree on ``flexible_spaces``.
    """

    def __init__(self, matchers: Sequence[AliasMatcher]) -> None:
        modes = {m._flexible for m in matchers}
        if len(modes) > 1:
            raise ValueError(
                "a MatcherSet reads text one way: the matchers' flexible_spaces differ"
            )
        self._flexible = modes.pop() if modes else False
        self._count = len(matchers)
        spellings: list[str] = []
        self._owners: list[int] = []
        self._patterns: list[_Pattern] = []
        for owner, matcher in enumerate(matchers):
            spellings += matcher._spellings
            self._patterns += matcher._patterns
            self._owners += [owner] * len(matcher._patterns)
        self._automaton = (
            AhoCorasick(spellings, matchkind=MatchKind.Standard) if spellings else None
        )

    def finditer(self, text: str, *, respace: bool = True) -> list[list[AliasHit]]:
        """The hits of each matcher, in the order the matchers were given (``respace`` as for
        ``AliasMatcher.finditer``)."""
        if self._automaton is None:
            return [[] for _ in range(self._count)]
        searched, respaced = _searched(text, self._flexible, respace)
        found = self._automaton.find_matches_as_indexes(searched, overlapping=True)
        if not found:
            return [[] for _ in range(self._count)]
        offsets = _offsets(text, self._flexible) if respaced else None
        owners = self._owners
        by_owner: list[list[tuple[int, int, int]]] = [[] for _ in range(self._count)]
        for match in found:
            by_owner[owners[match[0]]].append(match)
        patterns = self._patterns
        return [
            _select(_candidates(text, mine, patterns, offsets), text) if mine else []
            for mine in by_owner
        ]


_Candidate = tuple[int, int, int, AliasEntry]  # (start, -alias length, end, entry)


def _candidates(
    text: str,
    found: Iterable[tuple[int, int, int]],
    patterns: Sequence[_Pattern],
    offsets: tuple[int, ...] | None,
    plural_kinds: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """The automaton's matches that respect word edges, as positions in ``text`` (a hit of
    a ``plural_kinds`` entry ending in a letter other than ``s`` may take one ``s`` after it as
    its own)."""
    size = len(text)
    word = ASCII_WORD_CHARS
    candidates = []
    for index, start, end in found:
        entry, length, ascii_head, ascii_tail = patterns[index]
        begin, stop = (offsets[start], offsets[end - 1] + 1) if offsets else (start, end)
        if ascii_head and begin > 0 and text[begin - 1] in word:
            continue
        if ascii_tail and stop < size and text[stop] in word:
            if not (
                entry.kind in plural_kinds
                and text[stop] in "sS"
                and text[stop - 1].isalpha()
                and text[stop - 1] not in "sS"
                and (stop + 1 == size or text[stop + 1] not in word)
            ):
                continue
            stop += 1
        candidates.append((begin, -length, stop, entry))
    return candidates


def _select(candidates: list[_Candidate], text: str) -> list[AliasHit]:
    """Leftmost first, then longest, never overlapping."""
    if len(candidates) == 1:  # the common case
        begin, _, stop, entry = candidates[0]
        return [_new(AliasHit, (entry.kind, entry.code, begin, stop, text[begin:stop]))]
    candidates.sort(key=_POSITION_THEN_LENGTH)
    hits = []
    last_end = 0
    for begin, _, stop, entry in candidates:
        if begin < last_end:
            continue
        last_end = stop
        hits.append(_new(AliasHit, (entry.kind, entry.code, begin, stop, text[begin:stop])))
    return hits


# ``AliasHit(...)`` goes through the named tuple's Python-level ``__new__``; building the tuple
# directly costs a third of that, and hits are made for every question.
_new = tuple.__new__


# Leftmost first, then longest; a stable sort keeps the automaton's order for exact ties.
_POSITION_THEN_LENGTH = itemgetter(0, 1)


def _spellings(alias: str, flexible_spaces: bool) -> tuple[str, ...]:
    """The strings the automaton looks for: spaced (one space between words) and spaceless."""
    spaceless = fold("".join(alias.split()))
    if flexible_spaces:
        return (spaceless,)
    spaced = fold(" ".join(alias.split()))
    return (spaced, spaceless) if spaced != spaceless else (spaceless,)


def _searched(text: str, flexible_spaces: bool, respace: bool = True) -> tuple[str, bool]:
    """The folded text the automaton reads — whitespace dropped (``flexible_spaces``) or runs
    of it written as one space (unless not ``respace``) — and whether its whitespace was
    rewritten (then positions in it are not positions in ``text``)."""
    if not (flexible_spaces or respace):  # text read as it stands: folding is all there is
        return fold(text), False
    return _respaced(text, flexible_spaces)


# The competitor screen reads each question twice (as typed and as normalized, most often the
# same text), and ingestion reads a label with several matchers: fold and respace it once.
@lru_cache(maxsize=64)
def _respaced(text: str, flexible_spaces: bool) -> tuple[str, bool]:
    folded = fold(text)
    if not _rewrites_space(folded, flexible_spaces):
        return folded, False
    if flexible_spaces and folded.isprintable():  # only plain spaces to drop
        return folded.replace(" ", ""), True
    return ("" if flexible_spaces else " ").join(_NON_SPACE.findall(folded)), True


def _rewrites_space(text: str, flexible_spaces: bool) -> bool:
    if flexible_spaces:
        return _WHITESPACE.search(text) is not None
    # The common case first: single plain spaces only (``isprintable`` is False for any
    # other whitespace, and for control characters, which the regex then looks at).
    if "  " not in text and text.isprintable():
        return False
    return _UNUSUAL_SPACE.search(text) is not None


@lru_cache(maxsize=64)
def _offsets(text: str, flexible_spaces: bool) -> tuple[int, ...]:
    """For each character of a respaced ``_searched(text)``, its position in ``text``; only
    computed once the automaton has found something."""
    offsets: list[int] = []
    for word in _NON_SPACE.finditer(text):
        if offsets and not flexible_spaces:
            offsets.append(word.start() - 1)
        offsets.extend(range(word.start(), word.end()))
    return tuple(offsets)


def mask(text: str, spans: Iterable[tuple[int, int]], fill: str = " ") -> str:
    """Blank out ``spans`` with equal-length filler so offsets stay valid and nothing leaks.

    Spans may overlap and come in any order. The text is cut once at the (merged) span edges
    instead of being exploded into a list of characters: a question masks a few spans several
    times on its way through the parser.
    """
    ordered = sorted(spans)
    if not ordered:
        return text
    if len(ordered) == 1:  # the common case
        start, end = ordered[0]
        return text[:start] + fill * (end - start) + text[end:] if end > start else text
    parts: list[str] = []
    append = parts.append
    position = 0
    for start, end in ordered:
        if start < position:  # overlaps the span before
            start = position
        if end <= start:
            continue
        append(text[position:start])
        append(fill * (end - start))
        position = end
    append(text[position:])
    return "".join(parts)
