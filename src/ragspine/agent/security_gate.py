"""The security gate: deterministic competitor / out-of-scope screening. Never calls an LLM.

The competitor list and the home company's name come from the domain profile. Matching runs
on a whitespace-tolerant pattern (so "竞 安" is still caught), on the question as typed and as
normalized (so "竞\\u200b安" and full-width letters are caught too), and every hit is masked with
equal-length spaces, so no part of a competitor's name (say, a country name that is also a
home entity's alias) can leak into a home-entity match afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from ragspine.agent.normalize import normalize_question
from ragspine.agent.types import ClarifyMode
from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.matching import mask
from ragspine.profile.model import DomainProfile


class SecurityDecision(StrEnum):
    """Allow, or refuse as out of scope; the refusal deliberately equals the clarification
    mode's value so both layers speak one code."""

    ALLOW = "allow"
    REFUSE_OUT_OF_SCOPE = ClarifyMode.OUT_OF_SCOPE_ENTITY.value


SECURITY_ALLOW = SecurityDecision.ALLOW
SECURITY_REFUSE_OUT_OF_SCOPE = SecurityDecision.REFUSE_OUT_OF_SCOPE


class SecurityScreen(NamedTuple):
    """What ``detect`` found: the competitor names hit and the text with them blanked out.

    A tuple: two are made per question, and a frozen dataclass costs several times more."""

    masked_text: str
    hits: tuple[str, ...] = ()

    @property
    def hit(self) -> bool:
        return bool(self.hits)


@dataclass(frozen=True)
class SecurityVerdict:
    decision: SecurityDecision
    entity: str | None = None
    narrowing_options: tuple[str, ...] = field(default_factory=tuple)


class SecurityGate:
    def __init__(self, profile: DomainProfile) -> None:
        self._profile = profile
        self._glossary: Glossary = glossary_for(self._profile)
        # The parser screens a question and ``screen`` screens it again as typed, most often
        # the same text: the last text and its screen are kept, in one tuple so that a thread
        # never reads one's text with another's screen.
        self._last: tuple[str, SecurityScreen] = ("", SecurityScreen(""))

    @staticmethod
    def of(profile: DomainProfile) -> SecurityGate:
        """The gate of ``profile``, built on first use and kept with the profile (a gate holds
        nothing per request)."""
        return profile.compiled("security-gate", SecurityGate)

    @property
    def home_company_name(self) -> str:
        return self._profile.home_company_name

    def detect(self, text: str) -> SecurityScreen:
        last = self._last
        if text == last[0]:
            return last[1]
        hits = self._glossary.competitors.finditer(text)
        if not hits:
            screen = SecurityScreen(text)
        else:
            names = tuple(dict.fromkeys(h.code for h in hits))
            screen = SecurityScreen(mask(text, ((h.start, h.end) for h in hits)), names)
        self._last = (text, screen)
        return screen

    def screen(self, *, raw_question: str, metric: str | None = None) -> SecurityVerdict:
        """Decide from the question as typed and as normalized, whatever a parser made of it.

        Both texts are screened: a name hidden by zero-width or full-width characters shows
        only once normalized, and the typed text is screened as it stands in case folding
        ever merged a name away.
        """
        del metric  # the verdict must not depend on parser output
        hits = self.detect(raw_question).hits
        normalized = normalize_question(raw_question)
        if normalized != raw_question:
            hits += self.detect(normalized).hits
        if not hits:
            return _ALLOWED
        return SecurityVerdict(
            SECURITY_REFUSE_OUT_OF_SCOPE,
            entity=hits[0],
            narrowing_options=(self.home_company_name,),
        )


_ALLOWED = SecurityVerdict(SECURITY_ALLOW)  # immutable, so every allowed question shares it
