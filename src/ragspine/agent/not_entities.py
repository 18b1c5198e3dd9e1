"""Words a finance reader knows are not companies, and what a leftover name really is.

The parser (``agent.parse``) keeps words next to a slot that the profile does not know as
candidate names. Financial reports are full of capitalised words that name no entity: months
("as at December 31"), accounting standards ("IFRS 17", "US GAAP"), measures ("EBITDA"), line
items ("Premiums", "Claims"), qualifiers ("Restated", "Note 5", "Segment"). This module sorts
each candidate:

- a standard is masked before aliases are read, so "US GAAP" never reads as a place "US";
- qualifiers, months, unit words and participles ("Paid") alone name nothing and are dropped;
- a name that is only measures, line items or words of the profile's own metric labels, or
  that ends in one of them as a noun phrase ends in its head ("Reinsurance Recoveries",
  "Ceded Commissions", "再保险赔款"; a participle may follow it: "Claims Paid"), is a metric
  the profile does not define (the gateway asks which metric, never which entity);
- a name followed by a unit word ("Healthcare division", "EMEA region", "医疗事业部") is a named
  unit; unless it is the short name of one of the profile's entities it stays unknown, so it
  is never answered with the home entity's figure;
- the leading words of exactly one entity's name or of the company's name ("Harbour" for
  "Harbour Line Holdings") are that entity's short name: the entity is resolved, not asked.

The vocabulary is data (``profile/data/finance_vocabulary.json``), read once on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

import rjieba

from ragspine.agent.filler_words import STOPWORDS_EN
from ragspine.profile.glossary import glossary_for
from ragspine.profile.matching import CJK, AliasEntry, AliasMatcher, alias_key
from ragspine.profile.model import DomainProfile

VOCABULARY_NAME = "finance_vocabulary.json"
_WORD = re.compile(r"[A-Za-z][A-Za-z&\-/.]*")


@dataclass(frozen=True)
class Vocabulary:
    """The shipped word lists, each as comparison keys (``alias_key``)."""

    standards: tuple[str, ...]
    measures: frozenset[str]
    line_items: frozenset[str]
    qualifiers: frozenset[str]  # months included
    unit_words: frozenset[str]
    unit_words_zh: tuple[str, ...]  # CJK unit words, longest first (matched as suffixes)
    org_words: frozenset[str]
    post_modifiers: frozenset[str]  # participles after a line item's head ("Claims Paid")


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    path = resources.files("ragspine.profile").joinpath("data", VOCABULARY_NAME)
    raw: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))

    def keys(*names: str) -> frozenset[str]:
        return frozenset(alias_key(w) for name in names for w in raw[name])

    units = raw["unit_words"]
    return Vocabulary(
        standards=tuple(raw["standards"]),
        measures=keys("measures"),
        line_items=keys("line_items"),
        qualifiers=keys("qualifiers", "months")
        | {alias_key(w) for w in _words_of(raw["standards"])},
        unit_words=frozenset(alias_key(w) for w in units if w.isascii()),
        unit_words_zh=tuple(sorted((w for w in units if not w.isascii()), key=len, reverse=True)),
        org_words=keys("org_words"),
        post_modifiers=keys("post_modifiers"),
    )


def finance_words_only(name: str) -> bool:
    """Whether every word of an English ``name`` is a word of financial reports (a measure, a
    line item, a qualifier or a participle such as "ceded"): no proper name is in it."""
    vocab = vocabulary()
    words = [alias_key(w) for w in _WORD.findall(name)]
    return bool(words) and all(
        w in vocab.measures
        or w in vocab.line_items
        or w in vocab.qualifiers
        or w in vocab.post_modifiers
        for w in words
    )


def join_unit_words(text: str) -> str:
    """``text`` with a unit word right after a capitalised word capitalised too ("Healthcare
    division" -> "Healthcare Division"), so the two read as one name; lengths are kept. A
    suffix of several unit words joins whole ("Outdoor Gear business line")."""
    pattern = _unit_pattern()
    joined = pattern.sub(lambda m: m.group(1) + m.group(2).capitalize(), text)
    while joined != text:  # each pass capitalises one more word of the suffix
        text, joined = joined, pattern.sub(lambda m: m.group(1) + m.group(2).capitalize(), joined)
    return joined


def ends_in_unit_word(name: str) -> bool:
    """Whether ``name``'s last word is a unit word ("Healthcare Business Unit")."""
    words = name.split()
    return len(words) > 1 and alias_key(words[-1]) in vocabulary().unit_words


# One-character words that close the name of a unit in Chinese ("医疗业务部", "户外市场组"):
# too short to read as a unit word alone, so they count only right after a filler word.
_UNIT_ENDINGS_ZH = ("部", "组", "处", "科", "室", "线", "团", "中心")


def inside_unit_name(text: str, start: int, end: int) -> bool:
    """Whether the filler word at ``text[start:end]`` ("业务", "市场") is part of a unit's name:
    a CJK character before it and a unit word or unit ending right after it ("医疗业务部",
    "华东业务线"). Blanking it would cut the name in two, and neither half reads as one."""
    if start == 0 or not CJK.match(text[start - 1]):
        return False
    rest = text[end : end + 3]
    return rest.startswith(vocabulary().unit_words_zh) or rest.startswith(_UNIT_ENDINGS_ZH)


@lru_cache(maxsize=1)
def _unit_pattern() -> re.Pattern[str]:
    words = sorted(vocabulary().unit_words, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"([A-Z][A-Za-z&\-]* )({alternatives})(?![A-Za-z])")


def _words_of(phrases: list[str]) -> list[str]:
    return [m.group() for phrase in phrases for m in _WORD.finditer(phrase)]


class Sorted(NamedTuple):
    """What the candidate names of one question turned out to be."""

    entities: tuple[str, ...]  # codes resolved from a short name
    unknown_entities: tuple[str, ...]
    unknown_metrics: tuple[str, ...]


@dataclass(frozen=True)
class NameRules:
    """The vocabulary of one profile: its standards matcher, metric words and short names."""

    standards: AliasMatcher  # standards the profile does not use as one of its own aliases
    metric_words: frozenset[str]  # measures, line items, qualifiers and the profile's words
    nothing: frozenset[str]  # words that name nothing: qualifiers, months, unit words
    short_names: dict[str, str]  # key of a short name -> the one entity code it names
    heads: frozenset[str]  # words a metric's name ends in: measures, line items, label heads
    labels_zh: tuple[str, ...]  # keys of the profile's Chinese metric labels
    # Verdicts already reached, by name: the same names come back question after question.
    _seen: dict[str, list[tuple[str, tuple[str, str]]]] = field(default_factory=dict)

    def sort(self, names: tuple[str, ...]) -> Sorted:
        entities: list[str] = []
        unknown: list[str] = []
        metrics: list[str] = []
        seen = self._seen
        for asked in names:
            parts = seen.get(asked)
            if parts is None:
                if len(seen) >= _SEEN_LIMIT:
                    seen.clear()
                parts = seen[asked] = self._parts(asked)
            for name, (verdict, code) in parts:
                if verdict == _ENTITY:
                    entities.append(code)
                elif verdict == _UNKNOWN:
                    unknown.append(name)
                elif verdict == _METRIC:
                    metrics.append(name)
        return Sorted(
            tuple(dict.fromkeys(entities)),
            tuple(dict.fromkeys(unknown)),
            tuple(dict.fromkeys(metrics)),
        )

    def _parts(self, name: str) -> list[tuple[str, tuple[str, str]]]:
        """The name's verdict; a name that opens with a short name and goes on ("Trailhead
        EBIT") is that entity and a verdict on the rest."""
        verdict = self._verdict(name, headed=False)
        if verdict[0] != _UNKNOWN or CJK.search(name):
            return [(name, verdict)]
        words = list(_WORD.finditer(name))
        for size in range(len(words) - 1, 0, -1):
            code = self.short_names.get("".join(alias_key(w.group()) for w in words[:size]))
            if code is not None:
                rest = name[words[size].start() :]
                return [(name[: words[size - 1].end()], (_ENTITY, code)), *self._parts(rest)]
        return [(name, self._verdict(name))]

    def _verdict(self, name: str, *, headed: bool = True) -> tuple[str, str]:
        """``headed``: whether a name ending in a metric's head word is that metric."""
        vocab = vocabulary()
        if CJK.search(name):
            return self._verdict_zh(name, vocab)
        words = [
            part
            for w in _WORD.findall(name)
            for part in self._split(alias_key(_bare(w)).strip("-./"))
        ]
        if not words:
            return _DROP, ""
        unit = vocab.unit_words
        if all(w in self.nothing for w in words):
            return _DROP, ""
        head = list(words)
        while len(head) > 1 and head[-1] in unit:
            head.pop()
        short = self.short_names.get("".join(head))
        if short is not None:
            return _ENTITY, short
        if any(w in vocab.org_words for w in words) or len(head) < len(words):
            return _UNKNOWN, ""  # "Healthcare division", "Prudential Holdings": a named unit
        # An English noun phrase ends in its head: "Reinsurance Recoveries" names a measure,
        # and so does one whose head a participle follows ("Claims Paid").
        core = list(words)
        while len(core) > 1 and core[-1] in vocab.post_modifiers:
            core.pop()
        if (headed and core[-1] in self.heads) or all(w in self.metric_words for w in words):
            return _METRIC, ""
        return _UNKNOWN, ""

    def _split(self, word: str) -> list[str]:
        """``word`` whole when it is a word of the vocabulary ("sg&a", "p/e"), else its parts
        between hyphens, slashes and dots ("dec-2024", "jan-dec")."""
        if word in self.metric_words or word in self.nothing or word in self.short_names:
            return [word]
        return [part for part in _JOINERS.split(word) if part]

    def _verdict_zh(self, name: str, vocab: Vocabulary) -> tuple[str, str]:
        key = alias_key(name)
        for suffix in vocab.unit_words_zh:
            if key.endswith(suffix) and len(key) > len(suffix):
                short = self.short_names.get(key[: -len(suffix)])
                return (_ENTITY, short) if short is not None else (_UNKNOWN, "")
        short = self.short_names.get(key)
        if short is not None:
            return _ENTITY, short
        # "赔款" inside "已发生赔款", "再保险赔款" ending in its head word: a metric's name.
        if any(key in label for label in self.labels_zh) or _head_zh(key) in self.heads:
            return _METRIC, ""
        return _UNKNOWN, ""


_ENTITY, _UNKNOWN, _METRIC, _DROP = "entity", "unknown", "metric", "drop"
_SEEN_LIMIT = 4096
_JOINERS = re.compile(r"[-/.]+")
_STOPWORDS = frozenset(alias_key(w) for w in STOPWORDS_EN)


def _bare(word: str) -> str:
    return word[:-2] if word.endswith(("'s", "’s")) else word


def rules_for(profile: DomainProfile) -> NameRules:
    """The profile's ``NameRules``, built once per profile object."""
    return profile.compiled("name-rules", _build)


def _build(profile: DomainProfile) -> NameRules:
    known = {alias_key(entry.alias) for entry in glossary_for(profile).terms.entries()}
    standards = AliasMatcher(
        AliasEntry(s, "standard", s) for s in vocabulary().standards if alias_key(s) not in known
    )
    own = frozenset(
        alias_key(word)
        for metric in profile.all_metrics
        for label in (metric.name_en, *metric.aliases)
        for word in _WORD.findall(label)
        if len(word) > 2
    )
    vocab = vocabulary()
    # a participle of the profile's own labels ("Written" of "Gross written premiums") names it
    nothing = vocab.qualifiers | vocab.unit_words | (vocab.post_modifiers - own) | _STOPWORDS
    metric_words = own | vocab.measures | vocab.line_items | vocab.qualifiers | _STOPWORDS
    labels = [
        label
        for metric in profile.all_metrics
        for label in (metric.name_en, metric.name_zh, *metric.aliases)
        if label
    ]
    labels_zh = tuple(alias_key(label) for label in labels if CJK.search(label))
    heads = vocab.measures | vocab.line_items | frozenset(_heads(labels))
    short_names = _short_names(profile, known)
    return NameRules(standards, metric_words, nothing, short_names, heads, labels_zh)


def _heads(labels: Iterable[str]) -> Iterable[str]:
    """The last word of each label ("ratio" of "Combined ratio", "赔款" of "已发生赔款"); a
    Chinese one of one character ("率" of "综合成本率") is too short to tell a name by."""
    for label in labels:
        if CJK.search(label):
            head = _head_zh(alias_key(label))
            if len(head) > 1:
                yield head
        elif words := _WORD.findall(label):
            yield alias_key(words[-1])


def _head_zh(key: str) -> str:
    words = rjieba.cut(key)
    return words[-1] if words else ""


def _short_names(profile: DomainProfile, known: set[str]) -> dict[str, str]:
    """Runs of words of an entity's name or alias that name exactly one entity ("Trailhead"
    or "Retail" for "Trailhead Retail", "Logistics" for "Northwind Logistics"), a Chinese name
    without its unit word ("渡轮" for "渡轮业务"), and runs of the company's name, which name
    the home entity even when a unit's name repeats them ("Northwind" of "Northwind
    Holdings" beside "Northwind Logistics").

    A run two entities share ("North" of "North America" and "North Asia") is asked about;
    one made only of words that name nothing, of measures or of line items ("The", "Group",
    "Sales") is left out.
    """
    vocab = vocabulary()
    skip = (
        vocab.qualifiers
        | vocab.unit_words
        | vocab.org_words
        | vocab.measures
        | vocab.line_items
        | _STOPWORDS
    )
    named: dict[str, set[str]] = {}
    for entity in profile.entities:
        for label in (entity.name_en, entity.name_zh, *entity.aliases):
            for run in _runs(label, vocab, skip) if label else ():
                named.setdefault(run, set()).add(entity.code)
    short = {key: next(iter(codes)) for key, codes in named.items() if len(codes) == 1}
    company = profile.company
    for name in (company.name, company.name_zh):
        for run in _runs(name, vocab, skip) if name else ():
            short[run] = company.home_entity
    return {key: code for key, code in short.items() if key not in known}


def _runs(label: str, vocab: Vocabulary, skip: frozenset[str]) -> list[str]:
    """The keys of the label's runs of words shorter than the whole label."""
    if CJK.search(label):
        key = alias_key(label)
        for suffix in vocab.unit_words_zh:  # "渡轮业务" -> "渡轮"
            if key.endswith(suffix) and len(key) - len(suffix) >= 2:
                return [key[: -len(suffix)]]
        return []
    words = [alias_key(w) for w in _WORD.findall(label)]
    found = []
    for size in range(1, len(words)):
        for first in range(len(words) - size + 1):
            run = words[first : first + size]
            if all(w in skip for w in run) or len("".join(run)) < 3:
                continue
            found.append("".join(run))
    return found
