"""Vetted FAQ answers served at the HTTP edge before the agent runs, with the exclusions of the
request flow (structured or slot-filled questions, competitors, real-time cues, expired,
disabled and RESTRICTED items never short-circuit).

The app relies on :class:`FaqHit` and :class:`FaqLookup`; :class:`FaqCache` implements them
over the FAQ file the profile names. A lookup first probes a dict with the question's
normalized key, so a question no item words costs one normalization and nothing else; only a
question that matches an item is parsed, with the agent's own parser and gateway, so the FAQ
can never answer a question the agent would have treated as a request for a figure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Protocol

from ragspine.agent import cues
from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.normalize import normalize_question
from ragspine.agent.security_gate import SecurityGate
from ragspine.agent.types import ClarifyMode, Route
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.items import FaqFileError, FaqItem, load_faq_items
from ragspine.service.faq.matching import faq_key


@dataclass(frozen=True)
class FaqHit:
    """A vetted answer with its own source."""

    faq_id: str
    version: str
    answer: str
    doc: str
    locator: str


class FaqLookup(Protocol):
    def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
        """The vetted answer for ``question``, or ``None`` (a miss or an exclusion); no side
        effects."""
        ...


class FaqMiss(StrEnum):
    """Why a lookup missed: a controlled code, safe for a trace (it holds no text)."""

    # No item words the question, or only one above the caller's clearance: to the caller
    # such an item does not exist, so its miss reads like any other.
    NO_MATCH = "no_match"
    # The question asks for a figure: the parser routes it to the structured or composite path.
    STRUCTURED = "structured"
    # A metric, entity or period slot is filled: the question is about specific data.
    SLOT_FILLED = "slot_filled"
    # A competitor, or a company or region the profile does not know.
    OUT_OF_SCOPE = "out_of_scope"
    # "today", "最新", "share price"...: a vetted answer cannot be today's.
    REAL_TIME = "real_time"
    # Today lies outside the item's valid_from..valid_until.
    EXPIRED = "expired"
    DISABLED = "disabled"
    # RESTRICTED material is never served from the FAQ, whoever asks.
    RESTRICTED = "restricted"


@dataclass(frozen=True)
class FaqDecision:
    """A lookup's outcome: the hit, or the reason for the miss."""

    hit: FaqHit | None
    miss: FaqMiss | None


_NO_MATCH = FaqDecision(None, FaqMiss.NO_MATCH)


class FaqCache:
    """The FAQ items of one profile, keyed by every normalized wording; holds no store."""

    def __init__(self, profile: DomainProfile, items: Iterable[FaqItem] = ()) -> None:
        self._profile = profile
        self._gate = SecurityGate.of(profile)
        self._items = tuple(items)
        self._by_key: dict[str, tuple[FaqItem, FaqHit]] = {}
        for item in self._items:
            hit = FaqHit(item.id, item.version, item.answer, item.source_doc, item.source_locator)
            for text in item.texts:
                owner, _ = self._by_key.setdefault(faq_key(text), (item, hit))
                if owner is not item:
                    raise ValueError(
                        f"faq {item.id!r}: {text!r} is already a wording of faq {owner.id!r}"
                    )

    @classmethod
    def from_profile(cls, profile: DomainProfile) -> FaqCache:
        """The items of the FAQ file ``profile`` names (``defaults.faq_file``, relative to the
        profile file); an empty cache when it names none. A named file that is missing or has
        problems is a ``FaqFileError``: a FAQ silently switched off would go unnoticed."""
        path = profile.faq_path
        if path is None:
            return cls(profile)
        if not path.is_file():
            named_by = profile.source_path or "the profile"
            raise FaqFileError(
                f"{path}: FAQ file not found (named by defaults.faq_file in {named_by})"
            )
        return cls(profile, load_faq_items(path))

    @property
    def items(self) -> tuple[FaqItem, ...]:
        return self._items

    def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
        """The vetted answer for ``question``, or ``None``; see :meth:`decide`."""
        return self.decide(question, clearance=clearance, today=today).hit

    def decide(self, question: str, *, clearance: Sensitivity, today: date) -> FaqDecision:
        """The hit for ``question`` asked by a caller cleared for ``clearance`` on ``today``, or
        why it misses. Reads only this object and the profile; changes nothing."""
        found = self._by_key.get(faq_key(question))
        if found is None:
            return _NO_MATCH
        item, hit = found
        if not clearance.allows(item.sensitivity):
            return _NO_MATCH
        miss = self.wording_miss(question, today) or _item_miss(item, today)
        return FaqDecision(None, miss) if miss else FaqDecision(hit, None)

    def wording_miss(self, question: str, today: date) -> FaqMiss | None:
        """The exclusion the words of ``question`` alone call for, in the request flow's order
        (a figure, then a competitor or unknown entity, then a real-time cue), or ``None``."""
        intent = parse_intent(question, today, profile=self._profile)
        if intent.route is not Route.NARRATIVE:
            return FaqMiss.STRUCTURED
        if intent.metrics or intent.entities or intent.periods:
            return FaqMiss.SLOT_FILLED
        verdict = clarify_scope(intent, today, profile=self._profile, gate=self._gate)
        if verdict.mode is ClarifyMode.OUT_OF_SCOPE_ENTITY or intent.unknown_entities:
            return FaqMiss.OUT_OF_SCOPE
        if any(True for _ in cues.REALTIME.finditer(normalize_question(question))):
            return FaqMiss.REAL_TIME
        return None


def _item_miss(item: FaqItem, today: date) -> FaqMiss | None:
    if not item.valid_on(today):
        return FaqMiss.EXPIRED
    if not item.enabled:
        return FaqMiss.DISABLED
    if item.sensitivity is Sensitivity.RESTRICTED:
        return FaqMiss.RESTRICTED
    return None
