"""The metadata filters of a lexical search, in two equivalent forms: clauses of a tantivy query,
and a check of a hit's tags after an unfiltered search.

* sensitivity: levels above the caller's clearance are excluded (always applied);
* entities / periods: a chunk matches when it lists any requested value *or lists none* — an
  untagged chunk (a general policy text) is neutral, not excluded; a period counts as
  requested when it lies inside a requested one (``FY2024`` admits ``2024Q4``), by expanding
  the request into every label within it;
* languages: exact match on any requested language;
* topics: not applied yet — chunks carry no topic field.

Filter clauses stop tantivy's block-max WAND from skipping the postings that cannot reach the
top k, so at a million chunks a filtered search scored every matching chunk (p50 ≈ 12 ms
against ≈ 5 ms unfiltered). ``LexicalIndex.search`` therefore searches unfiltered, deeper than
``top_k``, and checks each hit here: its sensitivity and its tags key are fast fields, and a
key's tags (entities, periods, language) are read from the document store once per key and
kept — a corpus has few distinct combinations.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

import tantivy

from ragspine.profile.period_spans import labels_within
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.protocol import RetrievalFilters

# Marks a chunk that names no entity (or period), so "any of these or none" is one term set.
# A control character: no real entity code or period label contains one.
UNTAGGED = "\x00"

ENTITY = "entity"
PERIOD = "period"
LANGUAGE = "language"
SENSITIVITY = "sensitivity"
TAGS = "tags"


@dataclass(frozen=True)
class Tags:
    """What the filters read of a chunk besides its sensitivity."""

    entities: frozenset[str]
    periods: frozenset[str]
    language: str

    @classmethod
    def of(cls, entities: Iterable[str], periods: Iterable[str], language: str) -> Tags:
        return cls(
            frozenset(e for e in entities if e != UNTAGGED),
            frozenset(p for p in periods if p != UNTAGGED),
            language,
        )

    @property
    def key(self) -> int:
        """A signed 64-bit digest of the tags: the value of the ``tags`` fast field."""
        return _key(tuple(sorted(self.entities)), tuple(sorted(self.periods)), self.language)


@functools.lru_cache(maxsize=4096)  # a corpus has few combinations; indexing asks per chunk
def _key(entities: tuple[str, ...], periods: tuple[str, ...], language: str) -> int:
    canonical = json.dumps([entities, periods, language])
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def tags_key(entities: Iterable[str], periods: Iterable[str], language: str) -> int:
    """``Tags.of(entities, periods, language).key``, without building the tags."""
    return _key(tuple(sorted(entities)), tuple(sorted(periods)), language)


@dataclass(frozen=True)
class Admission:
    """The filters and clearance of one search, as a check of a hit."""

    ranks: frozenset[int]
    entities: frozenset[str] | None
    periods: frozenset[str] | None
    languages: frozenset[str] | None

    @classmethod
    def of(cls, filters: RetrievalFilters, clearance: Sensitivity) -> Admission:
        return cls(
            ranks=frozenset(level.rank for level in Sensitivity if clearance.allows(level)),
            entities=frozenset(filters.entities) if filters.entities else None,
            periods=frozenset(period_terms(filters)) if filters.period_spans else None,
            languages=frozenset(filters.languages) if filters.languages else None,
        )

    def admits(self, rank: int, tags: Tags) -> bool:
        return (
            rank in self.ranks
            and _any_or_none(self.entities, tags.entities)
            and _any_or_none(self.periods, tags.periods)
            and (self.languages is None or tags.language in self.languages)
        )


def _any_or_none(wanted: frozenset[str] | None, present: frozenset[str]) -> bool:
    return wanted is None or not present or not wanted.isdisjoint(present)


def clauses(
    schema: tantivy.Schema, filters: RetrievalFilters, clearance: Sensitivity
) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """The filters as clauses to join to a text query with ``Occur.Must``."""
    occur, query = tantivy.Occur, tantivy.Query
    # Levels above the clearance are excluded rather than the allowed ones required: an
    # exclusion costs about half as much as a required clause at a million chunks.
    hidden = [
        (occur.MustNot, query.term_query(schema, SENSITIVITY, level.rank))
        for level in Sensitivity
        if not clearance.allows(level)
    ]
    # A constant score of 0: filters choose which chunks are scored, never how high.
    required = [
        (occur.Must, query.const_score_query(prune, 0.0)) for prune in _required(schema, filters)
    ]
    return [*required, *hidden]


def _required(schema: tantivy.Schema, filters: RetrievalFilters) -> list[tantivy.Query]:
    """Entity and period: any requested value or untagged; language: any requested value."""
    wanted = [
        (ENTITY, [*filters.entities, UNTAGGED] if filters.entities else []),
        (PERIOD, [*period_terms(filters), UNTAGGED] if filters.period_spans else []),
        (LANGUAGE, list(filters.languages)),
    ]
    return [_any_of(schema, field, values) for field, values in wanted if values]


def period_terms(filters: RetrievalFilters) -> list[str]:
    """Every period label inside a requested period: the index holds the chunks' own labels,
    so containment becomes "any of these terms" with nothing re-indexed."""
    return list(dict.fromkeys(t for s in filters.period_spans for t in labels_within(s)))


def _any_of(schema: tantivy.Schema, field: str, values: list[str]) -> tantivy.Query:
    if len(values) == 1:  # a term query skips the term set's bitset: ~15% faster at 1M chunks
        return tantivy.Query.term_query(schema, field, values[0])
    return tantivy.Query.term_set_query(schema, field, values)
