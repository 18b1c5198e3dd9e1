"""Cross-channel consistency: prose may not restate a stored fact with another value.

A narrative sentence that names one metric, one entity and one period (read by the same rule
parser as a question) and states an amount is checked against the fact table: when the table
holds that key and no amount in the sentence equals its value — within the sentence's own
rounding and a unit scale (百万/亿/billion/thousand) — the sentence contradicts the structured
channel and is dropped; the fact wins. An amount equal to a *pending* value of the key (an open
``conflict`` review item, e.g. a restatement) is a disclosed restatement, not a contradiction.

The narrative guard and the eval's fabrication count share :class:`FactCheck`, so what the
answer drops and what the eval counts follow one rule.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property

from ragspine.agent.parse import RuleIntentParser
from ragspine.agent.types import Slots
from ragspine.profile.glossary import glossary_for
from ragspine.profile.memo import Memo, memo_for
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.normalize import normalize_question
from ragspine.profile.periods import find_periods
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import PendingValue
from ragspine.storage.fact_store import FactStoreProtocol

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CITATION = re.compile(r"\[\d+\]")
_PERCENT = re.compile(r"\s*(?:%|％|个百分点|百分点|percentage points?|pp\b|bps\b)", re.IGNORECASE)
# How a report may scale an amount against the stored unit: as is, in 亿 (x100 of millions),
# in billions (x1000), thousands, 万, or in units against a millions column.
_SCALES = (1.0, 100.0, 1000.0, 0.001, 0.01, 1e6, 1e-6)


@dataclass(frozen=True)
class Stated:
    """An amount written in a sentence and the half-unit of its last written digit."""

    value: float
    tolerance: float


@dataclass(frozen=True)
class FactCheck:
    """Checks sentences against the facts ``clearance`` may see, as of ``day``."""

    store: FactStoreProtocol
    profile: DomainProfile
    day: date
    clearance: Sensitivity

    @cached_property
    def _parser(self) -> RuleIntentParser:
        return RuleIntentParser(self.profile)

    def contradicts(self, sentence: str) -> bool:
        """Whether ``sentence`` states a value for one stored key that differs from the fact
        and from every pending value of that key."""
        text = normalize_question(_CITATION.sub(" ", sentence))
        slots = self._slots(text)
        if slots is None:
            return False
        fact = self.store.get_fact(
            slots.metric,
            slots.entity,
            slots.period.type,
            slots.period.period,
            slots.channel,
            clearance=self.clearance,
        )
        if fact is None:
            return False
        metric = self.profile.metric(slots.metric)
        ratio = metric is not None and metric.kind == MetricKind.RATIO
        stated = stated_amounts(text, self.profile, percentages=ratio)
        if not stated:
            return False
        known = [fact.value, *(p.value for p in self.pending(slots))]
        return not any(agrees(s, v) for s in stated for v in known)

    def pending(self, slots: Slots) -> list[PendingValue]:
        return pending_values(self.store, slots, self.clearance)

    def _slots(self, text: str) -> Slots | None:
        """The one key ``text`` names, if it names one (kept per profile and day: a passage's
        sentences are checked again by every question that cites it)."""
        memo: Memo[Slots | None] = memo_for(self.profile, "sentence_slots")
        return memo.get((text, self.day), lambda: self._parse_slots(text))

    def _parse_slots(self, text: str) -> Slots | None:
        intent = self._parser.parse(text, self.day)
        metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
        entities = intent.entities or ((intent.entity,) if intent.entity else ())
        periods = intent.periods or ((intent.period,) if intent.period else ())
        if len(metrics) != 1 or len(entities) != 1 or len(periods) != 1:
            return None
        channel = intent.channel or self.profile.defaults.channel
        return Slots(metrics[0], entities[0], periods[0], channel)


def pending_values(
    store: FactStoreProtocol, slots: Slots, clearance: Sensitivity
) -> list[PendingValue]:
    """The pending values of a key that ``clearance`` may see, when the store keeps a review
    queue (a plain fact store has none)."""
    # Duck-typed on purpose: isinstance() against a runtime-checkable Protocol inspects every
    # member on each call, ~10 µs per found fact on the structured path.
    lookup = getattr(store, "pending_values", None)
    if not callable(lookup):
        return []
    key = (slots.metric, slots.entity, slots.period.type, slots.period.period, slots.channel)
    values: list[PendingValue] = lookup(key, clearance=clearance)
    return values


def stated_amounts(text: str, profile: DomainProfile, *, percentages: bool) -> list[Stated]:
    """The numbers of ``text`` that state an amount: not part of a period, not glued to a
    letter (a code), and percentages only when ``percentages`` (a ratio metric)."""
    calendar = glossary_for(profile).calendar
    # A date or split year the calendar names no period for is no amount either.
    unnamed: list[tuple[int, int]] = []
    named = [(p.start, p.end) for p in find_periods(text, calendar=calendar, unnamed=unnamed)]
    spans = named + unnamed
    found: list[Stated] = []
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in spans):
            continue
        if start and text[start - 1].isascii() and text[start - 1].isalpha():
            continue
        if bool(_PERCENT.match(text, end)) != percentages:
            continue
        found.append(_stated(match.group()))
    return found


def _stated(number: str) -> Stated:
    plain = number.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return Stated(float(plain), 0.5 * 10.0**-decimals)


def agrees(stated: Stated, value: float) -> bool:
    """Whether ``stated`` writes ``value`` at some unit scale, within its rounding."""
    return any(
        math.isclose(stated.value * k, value, rel_tol=1e-9, abs_tol=stated.tolerance * k + 1e-9)
        for k in _SCALES
    )
