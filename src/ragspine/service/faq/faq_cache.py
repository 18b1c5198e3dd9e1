"""Vetted FAQ answers served at the HTTP edge before the agent runs, with the exclusions of the
request flow (structured or slot-filled questions, competitors, real-time cues, expired,
disabled and RESTRICTED items never short-circuit).

The app relies on :class:`FaqHit` and :class:`FaqLookup`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

from ragspine.profile.sensitivity import Sensitivity


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
