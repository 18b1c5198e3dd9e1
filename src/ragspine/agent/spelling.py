"""Near misses: words of a question one typo away from a metric's or an entity's name in the
profile ("revnue", "operting profit", "hong kng", "营运利闰"), for the clarification gateway to
ask "did you mean …?" about. Never answered with: a wrong guess would show another question's
figure as this one's.

Kept conservative, so that an ordinary word is not taken for a typo:

- English: a run of words against a name of as many words, by Damerau-Levenshtein distance
  (optimal string alignment: two neighbours swapped are one edit) — at most 1 for a name of 5
  to 8 letters, 2 for a longer one, none for a shorter one ("EPS", "UK"). In a name of several
  words at least one word is written exactly, and every word written otherwise has three
  letters or more on both sides ("of sales" is no typo of "op sales"). A stopword or a cue
  word ("net", "value", "how") is never the word written otherwise, and a one-word name is not
  corrected from its singular or plural ("per head" is no typo of "heads").
- Chinese: a run of characters as long as a name of three or more that differs from it in one
  character, where neither the run nor that character with a neighbour is a dictionary word
  (rjieba's): "毛利闰" is a slip for "毛利润", while "毛利率" is another measure and "成本价格"
  holds the word "价格".

Names are the profile's names and aliases, never its codes. difflib (the standard library's) was
not used: its ratio scores matching blocks relative to length, which has no threshold meaning
"one typo" for both a five-letter word and a three-word name; the distance below is a few lines
and counts exactly the edits the rule speaks of.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import rjieba

from ragspine.agent.filler_words import STOPWORDS_EN
from ragspine.agent.types import NearMiss
from ragspine.profile.glossary import ENTITY, METRIC, glossary_for
from ragspine.profile.matching import mask
from ragspine.profile.model import DomainProfile

__all__ = ["near_misses", "unnamed_slot_misses"]

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’&\-]*")
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z'’&\- ]*[A-Za-z]")
_HANZI_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{3,}")
_SHORTEST = 5  # letters: a shorter English name is never corrected ("EPS", "UK", "ROA")
_LONG = 9  # letters from which two edits are allowed
_MOST_EDITS = 2
_SHORTEST_WORD = 3  # letters of a word written otherwise inside a name of several words

_WILDCARD = "\x00"
# Words and marks that join the items of a list, in English and Chinese.
_JOINERS = r"(?:and|or|plus|as well as|vs\.?|versus|&|,|，|、|;|；|/|和|及|与|以及|或|跟|同)"
_JOINED_BEFORE = re.compile(rf"(?i)(?:^|\W|(?<=[^\x00-\x7f])){_JOINERS}\s*\Z")
_JOINED_AFTER = re.compile(rf"(?i)\s*{_JOINERS}(?:\W|$|(?=[^\x00-\x7f]))")
_JOINER = re.compile(rf"(?i){_JOINERS}")


@dataclass(frozen=True)
class _Latin:
    words: tuple[str, ...]
    budget: int  # edits allowed
    kind: str
    code: str


@dataclass(frozen=True)
class _Index:
    # English names by (kind, number of words, number of letters)
    latin: dict[tuple[str, int, int], list[_Latin]]
    # Chinese names by kind, each under every spelling with one character left open
    hanzi: dict[str, dict[str, list[tuple[str, str]]]]
    hanzi_lengths: dict[str, tuple[int, ...]]
    order: dict[str, int]  # each code's place in the profile
    most_words: int  # of an English name


def unnamed_slot_misses(
    residual: str,
    profile: DomainProfile,
    *,
    metrics: tuple[str, ...],
    entities: tuple[str, ...],
    blanked: list[tuple[int, int]],
    cues: list[tuple[int, int]],
) -> list[NearMiss]:
    """The near misses of a question that names no metric (or no entity, when the profile has
    several): ``residual`` is its text with the slots found blanked, ``blanked`` spans to blank
    too (names of places the profile lacks), ``cues`` the spans of its cue words (see
    ``near_misses``). A question naming its metric is not searched for another one: its
    leftover words are ordinary ones ("cost per head" is no typo of "heads") — except a word
    listed beside it ("X and Y", Y one typo from a name): the question asks for two measures,
    and answering the one it spelt right would drop the other without a word."""
    kinds = frozenset(
        kind
        for kind, missing in (
            (METRIC, not metrics),
            (ENTITY, not entities and len(profile.entities) > 1),
        )
        if missing
    )
    if not kinds and not metrics:
        return []
    text = mask(residual, blanked) if blanked else residual
    found = near_misses(text, profile, kinds, cues) if kinds else []
    # Most questions naming a metric list nothing: one search spares them the near-miss scan.
    if metrics and _JOINER.search(text) is not None:
        listed = [
            m for m in near_misses(text, profile, frozenset({METRIC}), cues) if _listed(text, m)
        ]
        found = sorted([*found, *listed], key=lambda miss: miss.span)
    return found


def _listed(text: str, miss: NearMiss) -> bool:
    """Whether a near miss is joined to a neighbouring item of a list: a joining word or mark
    ("and", "&", a comma, 和, 及, 、) right before or right after it."""
    start, end = miss.span
    return (
        _JOINED_BEFORE.search(text, 0, start) is not None
        or _JOINED_AFTER.match(text, end) is not None
    )


def near_misses(
    text: str,
    profile: DomainProfile,
    kinds: frozenset[str],
    cues: Sequence[tuple[int, int]] = (),
) -> list[NearMiss]:
    """The near misses of ``kinds`` (``METRIC``, ``ENTITY``) in ``text``: a question with its
    slots blanked, whose runs of spaces are spans no name may match across. A word inside one
    of the ``cues`` spans is read as the cue it is: it may be written exactly inside a name
    ("value" of "embeded value"), never be the word written otherwise."""
    index = profile.compiled("near-miss-names", _build_index)
    fixed = bytearray(len(text))
    for start, end in cues:
        fixed[start:end] = b"\x01" * (end - start)
    hits: list[tuple[int, int, str, str]] = []
    for kind in kinds:
        hits += _latin_hits(text, fixed, index, kind)
        if not text.isascii():
            hits += _hanzi_hits(text, fixed, index, kind)
    return _longest(text, hits, index.order)


def _build_index(profile: DomainProfile) -> _Index:
    latin: dict[tuple[str, int, int], list[_Latin]] = defaultdict(list)
    hanzi: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    lengths: dict[str, set[int]] = defaultdict(set)
    seen: set[tuple[str, str]] = set()
    order: dict[str, int] = {}
    for entry in glossary_for(profile).terms.entries():
        order.setdefault(entry.code, len(order))
        name = " ".join(entry.alias.split())
        key = (name.casefold(), entry.code)
        if entry.kind not in (METRIC, ENTITY) or name == entry.code or key in seen:
            continue
        seen.add(key)
        if _LATIN_NAME.fullmatch(name) is not None:
            words = tuple(name.casefold().split())
            letters = sum(len(w) for w in words)
            if letters >= _SHORTEST:
                budget = _edits_allowed(letters)
                latin[(entry.kind, len(words), letters)].append(
                    _Latin(words, budget, entry.kind, entry.code)
                )
        elif _HANZI_RUN.fullmatch(name) is not None:
            lengths[entry.kind].add(len(name))
            for i in range(len(name)):
                hanzi[entry.kind][f"{name[:i]}{_WILDCARD}{name[i + 1 :]}"].append(
                    (name, entry.code)
                )
    return _Index(
        dict(latin),
        {kind: dict(keys) for kind, keys in hanzi.items()},
        {kind: tuple(sorted(n)) for kind, n in lengths.items()},
        order,
        max((words for _, words, _ in latin), default=0),
    )


def _latin_hits(
    text: str, fixed: bytearray, index: _Index, kind: str
) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, code) of every run of English words close to a name of ``kind``."""
    hits = []
    for run in _word_runs(text):
        words = [m.group().casefold() for m in run]
        # a cue or a stopword is never the word written otherwise
        open_ = [
            not fixed[m.start()] and w not in STOPWORDS_EN for m, w in zip(run, words, strict=True)
        ]
        for size in range(1, min(len(run), index.most_words) + 1):
            for first in range(len(run) - size + 1):
                if not any(open_[first : first + size]):
                    continue
                typed = tuple(words[first : first + size])
                letters = sum(map(len, typed))
                # A name of more letters or fewer than the edits allowed is no typo of it.
                for near in range(letters - _MOST_EDITS, letters + _MOST_EDITS + 1):
                    for name in index.latin.get((kind, size, near), ()):
                        if abs(near - letters) <= name.budget and _close_words(
                            typed, open_[first : first + size], name
                        ):
                            hits.append(
                                (run[first].start(), run[first + size - 1].end(), kind, name.code)
                            )
    return hits


def _word_runs(text: str) -> list[list[re.Match[str]]]:
    """Runs of English words one space apart (a blanked span or any other character ends a
    run)."""
    runs: list[list[re.Match[str]]] = []
    previous_end = -2
    for match in _LATIN_WORD.finditer(text):
        if runs and match.start() == previous_end + 1 and text[previous_end] == " ":
            runs[-1].append(match)
        else:
            runs.append([match])
        previous_end = match.end()
    return runs


def _close_words(typed: tuple[str, ...], open_: list[bool], name: _Latin) -> bool:
    """Whether ``typed`` is a typo of ``name`` (as many words; see the module's rule); a word
    not ``open_`` (a cue, or a stopword such as "net", "total", "the") is never the typo."""
    if typed == name.words:
        return False
    budget = name.budget
    exact = 0
    for mine, theirs, may_differ in zip(typed, name.words, open_, strict=True):
        if mine == theirs:
            exact += 1
            continue
        if not may_differ:
            return False
        if len(name.words) > 1 and min(len(mine), len(theirs)) < _SHORTEST_WORD:
            return False
        if len(name.words) == 1 and _plural_of(mine, theirs):
            return False
        # each word on its own terms too: "volume" is no typo of "value"
        allowed = min(budget, _edits_allowed(len(theirs)))
        edits = _distance(mine, theirs, allowed)
        if edits > allowed:
            return False
        budget -= edits
    return exact > 0 or len(name.words) == 1


def _edits_allowed(letters: int) -> int:
    return 1 if letters < _LONG else 2


def _plural_of(a: str, b: str) -> bool:
    """Whether one word is the other with an "s": alone, the singular of a name ("agent" of
    "agents") is an ordinary word ("per agent", "agent force"), not a slip."""
    return a == f"{b}s" or b == f"{a}s"


def _distance(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b``, or ``limit + 1`` once it is
    known to exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(current[j - 1] + 1, row[j] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return row[-1]


def _hanzi_hits(
    text: str, fixed: bytearray, index: _Index, kind: str
) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, code) of every run of characters one character away from a Chinese
    name of ``kind`` (see the module's rule)."""
    keys = index.hanzi.get(kind)
    if not keys:
        return []
    hits = []
    for run in _HANZI_RUN.finditer(text):
        chars = run.group()
        for size in index.hanzi_lengths[kind]:
            for start in range(len(chars) - size + 1):
                window = chars[start : start + size]
                for i in range(size):
                    key = f"{window[:i]}{_WILDCARD}{window[i + 1 :]}"
                    at = run.start() + start
                    for name, code in keys.get(key, ()):
                        if name != window and not fixed[at + i] and _slip(chars, start, size, i):
                            hits.append((at, at + size, kind, code))
    return hits


def _slip(chars: str, start: int, size: int, i: int) -> bool:
    """Whether the character at ``start + i`` of the run ``chars`` reads as a slip rather than
    another word: neither the window ``chars[start:start + size]`` nor that character with a
    neighbour in the run ("队伍" of "代理人队伍") is a dictionary word."""
    if rjieba.has_word(chars[start : start + size]):
        return False
    at = start + i
    pairs = (chars[max(0, at - 1) : at + 1], chars[at : at + 2])
    return not any(len(pair) == 2 and rjieba.has_word(pair) for pair in pairs)


def _longest(
    text: str, hits: list[tuple[int, int, str, str]], order: dict[str, int]
) -> list[NearMiss]:
    """One near miss per span, longest spans first, a span overlapping a longer one dropped;
    the codes close to one span listed together (each once, in the profile's order)."""
    by_span: dict[tuple[int, int, str], dict[str, None]] = {}
    for start, end, kind, code in hits:
        by_span.setdefault((start, end, kind), {})[code] = None
    kept: list[tuple[int, int, str]] = []
    for span in sorted(by_span, key=lambda s: (s[0] - s[1], s[0])):
        start, end, _ = span
        if all(end <= s or start >= e or (start, end) == (s, e) for s, e, _ in kept):
            kept.append(span)
    kept.sort()
    return [
        NearMiss(
            text[s:e], kind, tuple(sorted(by_span[(s, e, kind)], key=order.__getitem__)), (s, e)
        )
        for s, e, kind in kept
    ]
