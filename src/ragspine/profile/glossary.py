"""The glossary: map raw terms to controlled codes, or to None — never to a guess.

A ``Glossary`` is compiled once per profile object (``glossary_for`` keeps it on the profile) and
owns the matchers the intent parser and the query tool share, so both agree on what a term means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from ragspine.profile.matching import AliasEntry, AliasHit, AliasMatcher
from ragspine.profile.model import ChannelDef, DomainProfile, EntityDef, MetricDef
from ragspine.profile.periods import FiscalCalendar, Period, normalize_period
from ragspine.profile.regex_starts import compile_guarded

METRIC = "metric"
ENTITY = "entity"
CHANNEL = "channel"

# A metric alias glued to one of these names a different metric that the profile does not
# know (alias + "率", alias + " margin"): answering with the alias's figure would be wrong.
METRIC_SUFFIX = re.compile(r"率|\s+(?:margin|ratio|rate)(?![A-Za-z])", re.IGNORECASE)
# "其他" / "other" before a metric alias names a different line item ("other income"). It ends
# where the alias begins and holds at most this many characters besides whitespace, so it is
# searched for only in a window that short before the alias's leading whitespace: searching
# from the start of the text on every hit made a long paragraph quadratic.
# "other X", "其他X", "non-X", "非X": not the metric whose alias X is.
METRIC_PREFIX = compile_guarded(
    r"(?:其他|其它|(?<![除是])非|(?<![A-Za-z])other\s+|(?<![A-Za-z])non(?:\s+|\s*[-‑–]\s*))$",
    re.IGNORECASE,
)
_PREFIX_WINDOW = len("other")


class TermMatches(NamedTuple):  # a tuple: one is made per question and per table label
    """Metric/entity/channel hits in a text, plus spans that name metrics nobody defined."""

    hits: list[AliasHit]
    other_metrics: list[tuple[int, int]]


@dataclass(frozen=True)
class Glossary:
    profile: DomainProfile
    terms: AliasMatcher  # metrics, entities and channels in one longest-match automaton
    competitors: AliasMatcher
    calendar: FiscalCalendar
    # Each code of the profile and what it names (metric, entity or channel): a parser's slots
    # are most often codes already, and this reads them without the matcher.
    kinds: dict[str, str]

    def normalize_metric(self, raw: str | None) -> str | None:
        return self._normalize(raw, METRIC)

    def normalize_entity(self, raw: str | None) -> str | None:
        return self._normalize(raw, ENTITY)

    def normalize_channel(self, raw: str | None) -> str | None:
        return self._normalize(raw, CHANNEL)

    def normalize_period(
        self, raw: str | None, reference_date: date | None = None
    ) -> Period | None:
        return normalize_period(raw, reference_date, self.calendar)

    def are_codes(self, metric: str, entity: str, channel: str) -> bool:
        """True when the three are the profile's own codes of a metric, entity and channel."""
        kinds = self.kinds
        found = (kinds.get(metric), kinds.get(entity), kinds.get(channel))
        return found == (METRIC, ENTITY, CHANNEL)

    def match_terms(self, text: str, *, respace: bool = True) -> TermMatches:
        """Longest-first alias hits, with two corrections every reader of text needs.

        A metric alias preceded by "other" or followed by a ratio suffix is not that metric
        (its span is reported in ``other_metrics``), and a home-company alias right before
        another entity qualifies it ("<home company> <region>", "<home company>'s <region>",
        "<home company>的<region>" are the region) instead of adding a second entity.
        ``respace`` is ``AliasMatcher.finditer``'s.
        """
        hits: list[AliasHit] = []
        other: list[tuple[int, int]] = []
        home = self.profile.company.home_entity
        for hit in self.terms.finditer(text, respace=respace):
            suffix = METRIC_SUFFIX.match(text, hit.end) if hit.kind == METRIC else None
            prefix = _metric_prefix(text, hit.start) if hit.kind == METRIC else None
            if suffix is not None or prefix is not None:
                other.append(
                    (prefix.start() if prefix else hit.start, suffix.end() if suffix else hit.end)
                )
                continue
            previous = hits[-1] if hits else None
            if (
                previous is not None
                and previous.kind == hit.kind == ENTITY
                and previous.code == home != hit.code
                and _OWNER_GAP.fullmatch(text, previous.end, hit.start) is not None
            ):
                hits[-1] = AliasHit(ENTITY, hit.code, previous.start, hit.end, hit.text)
            else:
                hits.append(hit)
        return TermMatches(hits, other)

    def _normalize(self, raw: str | None, kind: str) -> str | None:
        if raw is None or not raw.strip():
            return None
        entry = self.terms.lookup(raw)
        return entry.code if entry is not None and entry.kind == kind else None


# What may stand between the home company's name and the entity it qualifies: spaces, and a
# possessive ("<company>'s <unit>", "<company>的<unit>").
_OWNER_GAP = re.compile(r"\s*(?:['’]s|的)?\s*")


def _metric_prefix(text: str, end: int) -> re.Match[str] | None:
    """``METRIC_PREFIX`` ending at ``end``, read from a bounded window before it.

    Only the whitespace run right before ``end`` is walked, and runs before distinct
    (non-overlapping) hits are disjoint, so all the hits of a text cost one pass over it.
    """
    stop = end
    while stop > 0 and text[stop - 1].isspace():
        stop -= 1
    return METRIC_PREFIX.search(text, max(0, stop - _PREFIX_WINDOW), end)


def build_glossary(profile: DomainProfile) -> Glossary:
    # Aliases are unique across codes: DomainProfile rejects a clash when it is loaded.
    entries = _term_entries(profile)
    competitors = [
        AliasEntry(alias, "competitor", comp.name)
        for comp in profile.competitors
        for alias in (comp.name, *comp.aliases)
    ]
    return Glossary(
        profile=profile,
        # "net profits", "premiums": an English metric name in the plural is the metric.
        terms=AliasMatcher(entries, plural_kinds=frozenset({METRIC})),
        competitors=AliasMatcher(competitors, flexible_spaces=True),
        calendar=FiscalCalendar(profile.fiscal.year_end_month),
        kinds={item.code: kind for kind, items in _terms_by_kind(profile) for item in items},
    )


def _terms_by_kind(
    profile: DomainProfile,
) -> tuple[tuple[str, Sequence[EntityDef | MetricDef | ChannelDef]], ...]:
    return ((METRIC, profile.all_metrics), (ENTITY, profile.entities), (CHANNEL, profile.channels))


def _term_entries(profile: DomainProfile) -> list[AliasEntry]:
    entries: list[AliasEntry] = []
    for kind, items in _terms_by_kind(profile):
        for item in items:
            for alias in (item.code, item.name_zh, item.name_en, *item.aliases):
                if alias:
                    entries.append(AliasEntry(alias, kind, item.code))
    return entries


def glossary_for(profile: DomainProfile) -> Glossary:
    """The glossary of ``profile``, compiled on first use and kept with the profile."""
    return profile.compiled("glossary", build_glossary)
