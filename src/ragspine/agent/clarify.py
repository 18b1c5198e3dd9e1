"""The clarification gateway: refuse, ask first, or answer with surfaced assumptions.

Checked in this order, before any tool, retrieval or LLM call:
1. refuse — the security gate re-screens the *raw* question (never the parser's fields), so a
   custom or LLM parser cannot talk its way past it;
2. ask first — an entity the profile does not know, or no metric: guessing either would
   answer a different question with a real-looking number;
3. assume and surface — a missing entity or period is filled with the home entity or the latest
   complete fiscal year, and the banner says so with one-click narrowing options;
4. none.
Narrative questions skip 2 and 3: they need no slots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from ragspine.agent.messages import for_language
from ragspine.agent.security_gate import SECURITY_REFUSE_OUT_OF_SCOPE, SecurityGate
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile, EntityDef, MetricDef
from ragspine.profile.periods import FiscalCalendar, Period

if TYPE_CHECKING:
    from ragspine.agent.intent import ParsedIntent

CLARIFY_OUT_OF_SCOPE_ENTITY = "out_of_scope_entity"
CLARIFY_ASK_FIRST = "ask_first"
CLARIFY_ANSWER_WITH_ASSUMPTIONS = "answer_with_assumptions"
CLARIFY_NONE = "none"

REASON_COMPETITOR = "competitor"
REASON_UNKNOWN_ENTITY = "unknown_entity"
REASON_MISSING_METRIC = "missing_metric"


@dataclass(frozen=True)
class ClarificationResult:
    mode: str
    assumed_slots: dict[str, str] = field(default_factory=dict)
    assumption_note: str = ""
    narrowing_options: tuple[str, ...] = ()
    question: str = ""  # the clarifying question, or the refusal, shown to the user
    reason: str = ""


_GATES: dict[int, SecurityGate] = {}


def _gate(profile: DomainProfile) -> SecurityGate:
    gate = _GATES.get(id(profile))
    if gate is None:
        gate = _GATES[id(profile)] = SecurityGate(profile)
    return gate


def clarify_scope(
    intent: ParsedIntent,
    reference_date: date | None = None,
    *,
    profile: DomainProfile | None = None,
    gate: SecurityGate | None = None,
) -> ClarificationResult:
    profile = profile or load_profile()
    msgs = for_language(intent.language)
    verdict = (gate or _gate(profile)).screen(
        raw_question=intent.raw_question, metric=intent.metric
    )
    if verdict.decision == SECURITY_REFUSE_OUT_OF_SCOPE:
        return ClarificationResult(
            mode=CLARIFY_OUT_OF_SCOPE_ENTITY,
            narrowing_options=verdict.narrowing_options,
            question=msgs.refusal(verdict.entity or "", profile.home_company_name),
            reason=REASON_COMPETITOR,
        )
    from ragspine.agent.intent import ROUTE_NARRATIVE

    if intent.route == ROUTE_NARRATIVE:
        return ClarificationResult(mode=CLARIFY_NONE)
    if intent.unknown_entities:
        options = [_entity_label(profile, e.code, intent.language) for e in profile.entities]
        return ClarificationResult(
            mode=CLARIFY_ASK_FIRST,
            narrowing_options=tuple(options),
            question=msgs.ask_entity(list(intent.unknown_entities), options),
            reason=REASON_UNKNOWN_ENTITY,
        )
    if intent.metric is None:
        options = [_metric_label(profile, m.code, intent.language) for m in profile.metrics]
        return ClarificationResult(
            mode=CLARIFY_ASK_FIRST,
            narrowing_options=tuple(options),
            question=msgs.ask_metric(options),
            reason=REASON_MISSING_METRIC,
        )
    return _assumptions(intent, reference_date or date.today(), profile)


def _assumptions(intent: ParsedIntent, day: date, profile: DomainProfile) -> ClarificationResult:
    assumed: dict[str, str] = {}
    options: list[str] = []
    if intent.entity is None:
        assumed["entity"] = profile.company.home_entity
        options += [
            _entity_label(profile, e.code, intent.language)
            for e in profile.entities
            if e.code != profile.company.home_entity
        ]
    if intent.period is None:
        latest = FiscalCalendar(profile.fiscal.year_end_month).latest_complete_year(day)
        assumed["period"] = latest.label
        options += [Period(latest.year - 1, "FY").label, Period(latest.year + 1, "H1").label]
    if not assumed:
        return ClarificationResult(mode=CLARIFY_NONE)
    msgs = for_language(intent.language)
    entity = assumed.get("entity")
    note = msgs.assumption(
        _entity_label(profile, entity, intent.language) if entity else None,
        assumed.get("period"),
        options,
    )
    return ClarificationResult(
        mode=CLARIFY_ANSWER_WITH_ASSUMPTIONS,
        assumed_slots=assumed,
        assumption_note=note,
        narrowing_options=tuple(options),
    )


def _entity_label(profile: DomainProfile, code: str, language: str) -> str:
    return _label(profile.entity(code), code, language)


def _metric_label(profile: DomainProfile, code: str, language: str) -> str:
    return _label(profile.metric(code), code, language)


def _label(item: EntityDef | MetricDef | None, code: str, language: str) -> str:
    """``名称（CODE）`` for Chinese questions, ``Name (CODE)`` for English ones."""
    if item is None:
        return code
    if language == "zh":
        return f"{item.name_zh}（{code}）"
    return f"{item.name_en} ({code})"
