"""Traceability of every number in an answer: the fabrication check the eval and tests share.

A number may appear in an answer, of any kind, only when it is

- the value of a found fact for slots the question asked (its metrics × entities × periods
  after assumptions, plus a growth question's base year), or a difference or percentage change
  computed from two such facts;
- in the narrative part, written in a passage the sentence cites (any cited passage when the
  sentence cites none);
- a value pending review for a found fact's key (a restatement), which the answer discloses
  with its source;
- part of a period the question named, the gateway assumed or offered, or the answer reported
  as not found;
- a citation index ``[n]``, or inside a document name, a locator, a code (``USD_M``) or an echo
  of the user's own words (an unrecognised parameter, an unknown or competitor name).

Anything else is fabricated, and so is every amount of a narrative sentence that states a
value the fact table holds differently (``agent.consistency``), when the caller passes the
``facts`` check. The check reads the typed result (tool results, the intent, the
narrative section and its passages), never the answer's headings, so it needs no knowledge of
the wording.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

from ragspine.agent.consistency import FactCheck
from ragspine.agent.narrative import allowed_numbers, cited_sentences
from ragspine.agent.types import (
    AgentResult,
    ClarifyReason,
    FactNotFound,
    FoundFact,
    NarrativeSection,
    ParsedIntent,
    Slots,
    UnrecognizedParam,
)
from ragspine.profile.glossary import glossary_for
from ragspine.profile.periods import MAX_RANGE_YEARS, Period, find_periods
from ragspine.retrieval.passages import numbers_in_text
from ragspine.storage.facts import DEFAULT_CHANNEL

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CODE = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")
_CITATION = re.compile(r"\[(\d+)\]")
_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Fabrication:
    """One number that no allowed source accounts for, and the part of the answer it is in."""

    number: str
    where: str  # "structured" or "narrative"

    def __str__(self) -> str:
        return f"{self.number} ({self.where})"


def asked_slots(intent: ParsedIntent, default_channel: str = DEFAULT_CHANNEL) -> set[Slots]:
    """Every slot combination the question asks for, plus a growth question's base year."""
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    channels = intent.channels or (intent.channel or default_channel,)
    asked = {Slots(m, e, p, c) for m, e, p, c in product(metrics, entities, periods, channels)}
    if intent.growth:
        asked |= {Slots(s.metric, s.entity, s.period.previous_year(), s.channel) for s in asked}
    return asked


def fabricated_numbers(
    result: AgentResult,
    *,
    allowed_values: Iterable[float] | None = None,
    default_channel: str = DEFAULT_CHANNEL,
    facts: FactCheck | None = None,
) -> list[Fabrication]:
    """Every number in ``result.answer`` that no allowed source accounts for.

    ``allowed_values`` replaces the found facts for the asked slots when the caller knows the
    right values independently (a test's own facts): then the answer is judged against that
    oracle, not against what the system returned. ``facts`` also counts the amounts of every
    narrative sentence that contradicts a stored fact.
    """
    if allowed_values is None:
        allowed_values = _asked_fact_values(result, default_channel)
    values = _with_arithmetic(list(allowed_values)) + [p.value for p in result.pending]
    structured, narrative = _split(result)
    found = [
        Fabrication(n, "structured")
        for n in _numbers(_blank_known_text(structured, result))
        if not _is_value(n, values)
    ]
    if narrative is not None:
        found += [Fabrication(n, "narrative") for n in _ungrounded(narrative, result)]
        if facts is not None:
            found += [Fabrication(n, "narrative") for n in _contradicting(narrative, facts)]
    return found


def _contradicting(section: NarrativeSection, facts: FactCheck) -> list[str]:
    """The numbers of the narrative sentences that state a stored key's value differently
    (the period they name is not one of them)."""
    calendar = glossary_for(facts.profile).calendar
    found: list[str] = []
    for sentence in cited_sentences(section.body):
        if facts.contradicts(sentence):
            text = _CITATION.sub(" ", sentence)
            # Right to left, so the spans still to blank keep their offsets.
            for period in reversed(find_periods(text, facts.day, calendar)):
                text = f"{text[: period.start]} {text[period.end :]}"
            found += _numbers(text)
    return found


def _asked_fact_values(result: AgentResult, default_channel: str) -> list[float]:
    if result.intent is None:
        return []
    asked = asked_slots(result.intent, default_channel)
    return [r.value for r in result.tool_results if isinstance(r, FoundFact) and r.slots in asked]


def _with_arithmetic(values: list[float]) -> list[float]:
    """The values, their pairwise differences and percentage changes (as rendered: 1 decimal)."""
    allowed = [abs(v) for v in values]
    for a in values:
        for b in values:
            allowed.append(abs(a - b))
            if b:
                allowed.append(round(abs((a - b) / b * 100), 1))
    return allowed


def _split(result: AgentResult) -> tuple[str, NarrativeSection | None]:
    """The answer without its narrative section (text before and after it), and the section."""
    section = result.narrative
    if section is None:
        return result.answer, None
    at = result.answer.rfind(section.text)
    if at < 0:
        return result.answer, None
    rest = result.answer[at + len(section.text) :]
    return f"{result.answer[:at]}\n{rest}", section


def _blank_known_text(text: str, result: AgentResult) -> str:
    """Blank everything that may hold digits without stating a value (see the module doc)."""
    echoes: list[str] = []
    for source in result.sources:
        echoes += [source.doc, source.locator]
    for pending in result.pending:
        echoes += [pending.doc_id, pending.locator]
    for r in result.tool_results:
        if isinstance(r, FoundFact):
            echoes += [r.source.doc, r.source.locator]
        elif isinstance(r, UnrecognizedParam):
            echoes.append(r.raw)
    clar = result.clarification
    echoes += clar.narrowing_options
    if clar.reason is ClarifyReason.PERIOD_RANGE:  # the gateway states its own limit
        echoes.append(str(MAX_RANGE_YEARS))
    echoes += [p.label for p in _allowed_periods(result)]
    if result.intent is not None:
        echoes += result.intent.unknown_entities
        if result.intent.external_entity:
            echoes.append(result.intent.external_entity)
    for echo in sorted((e for e in echoes if e), key=len, reverse=True):
        text = text.replace(echo, " ")
    return _CODE.sub(" ", text)


def _allowed_periods(result: AgentResult) -> list[Period]:
    periods: list[Period] = []
    if result.intent is not None:
        periods += result.intent.periods
        if result.intent.period is not None:
            periods.append(result.intent.period)
        if result.intent.growth:
            periods += [p.previous_year() for p in periods]
        if result.intent.long_range is not None:
            periods += result.intent.long_range
    if result.clarification.assumed_period is not None:
        periods.append(result.clarification.assumed_period)
    for r in result.tool_results:
        if isinstance(r, FactNotFound | FoundFact):
            periods.append(r.slots.period)
    return periods


def _ungrounded(section: NarrativeSection, result: AgentResult) -> list[str]:
    """Numbers of the narrative that the passages their sentence may draw on do not hold.

    The citations are the passages listed as sources, so a sentence citing none may use any
    of them (the guard's own rule, ``agent.narrative.allowed_numbers``).
    """
    numbers_in = {c.number: numbers_in_text(c.passage) for c in section.citations}
    pool = set().union(*numbers_in.values())
    bad: list[str] = []
    for sentence in cited_sentences(section.body):
        allowed = allowed_numbers(sentence, numbers_in, pool)
        text = _blank_known_text(_CITATION.sub(" ", sentence), result)
        bad += [n for n in _numbers(text) if _canonical(n) not in allowed]
    return bad


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _canonical(number: str) -> str:
    return number.replace(",", "")


def _is_value(number: str, values: list[float]) -> bool:
    try:
        stated = float(_canonical(number))
    except ValueError:
        return False
    return any(math.isclose(stated, v, rel_tol=0, abs_tol=_TOLERANCE) for v in values) or any(
        math.isclose(stated, round(v, 1), abs_tol=_TOLERANCE) for v in values
    )
