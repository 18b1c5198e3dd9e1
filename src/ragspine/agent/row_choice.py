"""Which row a question names: the longest label wins, and a near miss is asked about.

The alias automaton already prefers the longest alias written exactly. A question may write a
long row label with other punctuation ("cost of sales (excluding depreciation)") or shorten a
word of it ("cost of sales excl. depreciation"); the automaton then finds only the shorter
labels inside it — another row's "depreciation" — and that row's figure would answer for a row
the user did not ask about. So, for a metric hit whose alias lies inside a longer alias of a
different metric:

- the longer alias, read with only letters, digits and CJK characters kept, written around the
  hit: the longer row wins and replaces every shorter hit inside it;
- the longer alias's words, each written whole or shortened to a prefix of three letters or
  more, or a Chinese longer alias's characters in another order ("销售成本（不含折旧）" for
  "不含折旧的销售成本"): still ambiguous, so the phrase is reported as a metric to ask about.

A phrase that matched a metric by its code alone ("claims" for ``CLAIMS``, named "Claims
incurred") while the labels of two or more metrics hold it ("Claims incurred", "Net claims
incurred") names none of them more than another: it is asked about too, offering those
metrics (``LongerLabels.holding``). A phrase that is a metric's name or alias answers.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from ragspine.profile.glossary import METRIC
from ragspine.profile.matching import CJK, AliasHit, alias_key
from ragspine.profile.model import DomainProfile

_LOOSE_CHAR = re.compile(r"[0-9A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[0-9A-Za-z]+")
_SHORTEST_ABBREVIATION = 3


class _Longer(NamedTuple):
    loose: str  # the longer alias with only letters, digits and CJK, case-folded
    words: tuple[str, ...]  # its ASCII words, case-folded
    code: str
    chars: frozenset[str]  # the characters a reordered Chinese label needs ("的" aside)
    heads: tuple[str, ...]  # the first letters of each word, as far as an abbreviation may cut

    def possible(self, folded: str, present: set[str]) -> bool:
        """Whether the case-folded question could write this label at all: each ASCII word
        begun (three letters), each Chinese character there."""
        if self.chars:
            return self.chars <= present
        return all(head in folded for head in self.heads)


class RowChoice(NamedTuple):
    hits: list[AliasHit]
    unclear: list[tuple[int, int]]  # phrases that nearly write a longer label: ask


@dataclass(frozen=True)
class LongerLabels:
    """For each metric code, the longer aliases of other metrics that contain one of its own;
    each metric's labels (name and aliases); the codes that several metrics' labels hold."""

    by_code: dict[str, tuple[_Longer, ...]]
    labels: tuple[tuple[str, str], ...]  # (code, label) for every name and alias
    shared_codes: frozenset[str]  # a code key whose words two or more metrics' labels hold

    def holding(self, phrase: str) -> tuple[str, ...]:
        """The metrics whose name or alias holds ``phrase`` (whole words, or characters for
        Chinese) or whose code it is, in the profile's order."""
        key = alias_key(phrase)
        return tuple(
            dict.fromkeys(
                code
                for code, label in self.labels
                if key == alias_key(code) or _contains(label, phrase)
            )
        )

    def choose(self, text: str, hits: list[AliasHit]) -> RowChoice:
        shared = [h for h in hits if h.kind == METRIC and alias_key(h.text) in self.shared_codes]
        choice = self._longer(text, [h for h in hits if h not in shared] if shared else hits)
        return self._named(choice, shared) if shared else choice

    def _named(self, choice: RowChoice, shared: list[AliasHit]) -> RowChoice:
        """A shared code written beside the full name of one of the metrics holding it
        ("Premiums and Claims: Claims incurred", a sheet's heading before its row) is that
        metric; alone, it is asked about."""
        named = {h.code for h in choice.hits if h.kind == METRIC}
        hits, unclear = list(choice.hits), list(choice.unclear)
        for hit in shared:
            meant = [code for code in self.holding(hit.text) if code in named]
            if meant:
                hits.append(hit._replace(code=meant[0]))
            else:
                unclear.append((hit.start, hit.end))
        return RowChoice(sorted(hits, key=lambda h: h.start), sorted(unclear))

    def _longer(self, text: str, hits: list[AliasHit]) -> RowChoice:
        candidates: dict[str, list[_Longer]] = {}
        folded = ""
        present: set[str] = set()
        for hit in hits:  # most questions: no metric named has a longer label, or none begun
            longers = self.by_code.get(hit.code) if hit.kind == METRIC else None
            if not longers:
                continue
            if not present:
                folded = text.casefold()
                present = set(folded)
            able = [c for c in longers if c.possible(folded, present)]
            if able:
                candidates[hit.code] = able
        if not candidates:
            return RowChoice(hits, [])
        loose, where = _loose(text)
        others = [(h.start, h.end) for h in hits if h.kind != METRIC]
        chosen: list[tuple[int, int, str]] = []  # spans a longer label took, and its code
        unclear: list[tuple[int, int]] = []
        for hit in hits:
            if hit.kind != METRIC or _inside(hit, chosen) or _inside(hit, unclear):
                continue
            for longer in candidates.get(hit.code, ()):
                span = _exact(loose, where, longer.loose, hit)
                if span is not None:
                    chosen.append((*span, longer.code))
                    break
                span = _abbreviated(text, longer.words, hit)
                if span is None and longer.chars and longer.chars <= set(loose):
                    span = _reordered(text, (loose, where), longer.loose, hit, others)
                if span is not None:
                    unclear.append(span)
                    break
        if not chosen and not unclear:
            return RowChoice(hits, [])
        kept = [h for h in hits if not _inside(h, chosen) and not _inside(h, unclear)]
        kept += [AliasHit(METRIC, code, start, end, text[start:end]) for start, end, code in chosen]
        kept.sort(key=lambda h: h.start)
        return RowChoice(kept, unclear)


def longer_labels(profile: DomainProfile) -> LongerLabels:
    """The profile's ``LongerLabels``, built once per profile object."""
    return profile.compiled("longer-labels", _build)


def _build(profile: DomainProfile) -> LongerLabels:
    aliases = [
        (metric.code, alias)
        for metric in profile.all_metrics
        for alias in (metric.name_zh, metric.name_en, *metric.aliases)
        if alias
    ]
    by_code: dict[str, list[_Longer]] = {}
    for code, alias in aliases:
        short = _loose_key(alias)
        if not short:
            continue
        for other, long_alias in aliases:
            long = _loose_key(long_alias)
            if other != code and len(long) > len(short) and _contains(long_alias, alias):
                chars = frozenset(long) - {"的"} if CJK.search(long) else frozenset()
                words = tuple(_TOKEN.findall(long_alias.casefold()))
                heads = tuple(w[:_SHORTEST_ABBREVIATION] for w in words)
                by_code.setdefault(code, []).append(_Longer(long, words, other, chars, heads))
    labels = tuple(aliases)
    named = {alias_key(alias) for _, alias in aliases}
    return LongerLabels(
        {
            code: tuple(sorted(set(found), key=lambda x: len(x.loose), reverse=True))
            for code, found in by_code.items()
        },
        labels,
        frozenset(
            alias_key(metric.code)
            for metric in profile.all_metrics
            if alias_key(metric.code) not in named
            and len({metric.code, *(c for c, label in labels if _contains(label, metric.code))}) > 1
        ),
    )


def _contains(longer: str, shorter: str) -> bool:
    """Whether ``shorter`` is written inside ``longer``: as a substring when it holds CJK, as
    whole words when it is ASCII ("art" is not inside "party")."""
    if CJK.search(shorter):
        return _loose_key(shorter) in _loose_key(longer)
    short = _TOKEN.findall(shorter.casefold())
    long = _TOKEN.findall(longer.casefold())
    return bool(short) and any(
        long[i : i + len(short)] == short for i in range(len(long) - len(short) + 1)
    )


def _loose_key(alias: str) -> str:
    return "".join(_LOOSE_CHAR.findall(alias_key(alias)))


def _loose(text: str) -> tuple[str, list[int]]:
    """``text`` case-folded with only letters, digits and CJK kept, and each kept character's
    position in ``text``."""
    where = [m.start() for m in _LOOSE_CHAR.finditer(text)]
    return "".join(text[i] for i in where).casefold(), where


def _exact(loose: str, where: list[int], longer: str, hit: AliasHit) -> tuple[int, int] | None:
    """The span of ``text`` where the longer label is written around ``hit``, if it is."""
    start = loose.find(longer)
    while start != -1:
        begin, end = where[start], where[start + len(longer) - 1] + 1
        if begin <= hit.start and hit.end <= end:
            return begin, end
        start = loose.find(longer, start + 1)
    return None


def _abbreviated(text: str, words: tuple[str, ...], hit: AliasHit) -> tuple[int, int] | None:
    """The span of the words around ``hit`` that write ``words`` with some of them shortened
    ("excl." for "excluding"), or None."""
    folded = text.casefold()
    if not words or not all(w[:_SHORTEST_ABBREVIATION] in folded for w in words):
        return None  # most questions: some word of the longer label is not even begun
    tokens = list(_TOKEN.finditer(text))
    inside = [i for i, t in enumerate(tokens) if hit.start <= t.start() and t.end() <= hit.end]
    if not inside:
        return None
    hit_words = tuple(tokens[i].group().casefold() for i in inside)
    for offset in range(len(words) - len(hit_words) + 1):
        if words[offset : offset + len(hit_words)] != hit_words:
            continue
        first = inside[0] - offset
        last = first + len(words)
        if first < 0 or last > len(tokens):
            continue
        asked = [t.group().casefold() for t in tokens[first:last]]
        if all(_shortens(a, w) for a, w in zip(asked, words, strict=True)):
            return tokens[first].start(), tokens[last - 1].end()
    return None


def _reordered(
    text: str,
    folded: tuple[str, list[int]],
    longer: str,
    hit: AliasHit,
    others: list[tuple[int, int]],
) -> tuple[int, int] | None:
    """The span around ``hit`` holding every character of a Chinese ``longer`` label in
    another order ("销售成本（不含折旧）" for "不含折旧的销售成本"), at most one character
    longer than the label, or None. The linking "的" may be left out; the span crosses no
    other entity or channel and no blanked period (a run of spaces)."""
    loose, where = folded
    need = Counter(longer)
    need.pop("的", None)
    inside = [i for i, at in enumerate(where) if hit.start <= at < hit.end]
    if not inside:
        return None
    first, last = inside[0], inside[-1] + 1
    width = len(longer) + 1
    for begin in range(max(0, last - width), first + 1):
        for end in range(last, min(len(loose), begin + width) + 1):
            if need - Counter(loose[begin:end]):
                continue
            start, stop = where[begin], where[end - 1] + 1
            if "  " not in text[start:stop] and not any(a < stop and start < b for a, b in others):
                return start, stop
    return None


def _shortens(asked: str, word: str) -> bool:
    return asked == word or (len(asked) >= _SHORTEST_ABBREVIATION and word.startswith(asked))


def _inside(hit: AliasHit, spans: list[tuple[int, int]] | list[tuple[int, int, str]]) -> bool:
    return any(span[0] <= hit.start and hit.end <= span[1] for span in spans)
