"""The clarification gateway: refuse, ask first, or answer with surfaced assumptions.

Checked in this order, before any tool, retrieval or LLM call:
1. refuse — the security gate re-screens the *raw* question (never the parser's fields), so a
   custom or LLM parser cannot talk its way past it;
2. ask first — a word one typo away from a metric's or an entity's name ("did you mean …?",
   ``agent.spelling``), an entity the profile does not know, a period expression its fiscal calendar
   has no period for, no metric or one it does not define, or a range of more years than
   ``MAX_RANGE_YEARS``: guessing would answer a different question with a real-looking number;
3. assume and surface — a missing entity or period is filled with the home entity or the latest
   complete fiscal year, and the banner says so with one-click narrowing options; not for a
   question asking what nothing here computes (a median, a share, a per-head figure): its
   answer computes nothing, so it assumes nothing either;
4. none.
Narrative questions skip 2 and 3: they need no slots.
"""

from __future__ import annotations

from datetime import date

from ragspine.agent.messages import Messages, for_language
from ragspine.agent.row_choice import longer_labels
from ragspine.agent.security_gate import SecurityDecision, SecurityGate
from ragspine.agent.types import (
    AnalysisOp,
    ClarificationResult,
    ClarifyMode,
    ClarifyReason,
    NearMiss,
    ParsedIntent,
    Route,
)
from ragspine.profile.display import Names
from ragspine.profile.glossary import ENTITY, METRIC
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import MAX_RANGE_YEARS, FiscalCalendar, Period

# The seeds' names for the modes and reasons.
CLARIFY_OUT_OF_SCOPE_ENTITY = ClarifyMode.OUT_OF_SCOPE_ENTITY
CLARIFY_ASK_FIRST = ClarifyMode.ASK_FIRST
CLARIFY_ANSWER_WITH_ASSUMPTIONS = ClarifyMode.ANSWER_WITH_ASSUMPTIONS
CLARIFY_NONE = ClarifyMode.NONE

REASON_COMPETITOR = ClarifyReason.COMPETITOR
REASON_UNKNOWN_ENTITY = ClarifyReason.UNKNOWN_ENTITY
REASON_MISSING_METRIC = ClarifyReason.MISSING_METRIC
REASON_PERIOD_RANGE = ClarifyReason.PERIOD_RANGE
REASON_UNKNOWN_PERIOD = ClarifyReason.UNKNOWN_PERIOD

__all__ = [
    "CLARIFY_ANSWER_WITH_ASSUMPTIONS",
    "CLARIFY_ASK_FIRST",
    "CLARIFY_NONE",
    "CLARIFY_OUT_OF_SCOPE_ENTITY",
    "REASON_COMPETITOR",
    "REASON_MISSING_METRIC",
    "REASON_PERIOD_RANGE",
    "REASON_UNKNOWN_ENTITY",
    "REASON_UNKNOWN_PERIOD",
    "ClarificationResult",
    "clarify_scope",
]


def clarify_scope(
    intent: ParsedIntent,
    reference_date: date | None = None,
    *,
    profile: DomainProfile,
    gate: SecurityGate | None = None,
) -> ClarificationResult:
    msgs = for_language(intent.language)
    verdict = (gate or SecurityGate.of(profile)).screen(
        raw_question=intent.raw_question, metric=intent.metric
    )
    if verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE:
        return ClarificationResult(
            mode=ClarifyMode.OUT_OF_SCOPE_ENTITY,
            narrowing_options=verdict.narrowing_options,
            question=msgs.refusal(verdict.entity or "", profile.home_company_name),
            reason=ClarifyReason.COMPETITOR,
        )
    if intent.route is Route.NARRATIVE:
        return _NO_CLARIFICATION
    if intent.near_misses:
        return _did_you_mean(intent.near_misses, profile, msgs, intent.language)
    if intent.unknown_entities:
        options = [_entity_label(profile, e.code, intent.language) for e in profile.entities]
        return ClarificationResult(
            mode=ClarifyMode.ASK_FIRST,
            narrowing_options=tuple(options),
            question=msgs.ask_entity(list(intent.unknown_entities), options),
            reason=ClarifyReason.UNKNOWN_ENTITY,
        )
    if intent.unknown_periods:
        return _ask_period(intent, reference_date or date.today(), profile, msgs)
    if intent.metric is None or intent.unknown_metrics:
        unknown = list(intent.unknown_metrics)
        if len(unknown) == 1 and len(held := longer_labels(profile).holding(unknown[0])) > 1:
            return _ask_which_metric(unknown[0], held, profile, msgs, intent.language)
        options = [_metric_label(profile, m.code, intent.language) for m in profile.all_metrics]
        return ClarificationResult(
            mode=ClarifyMode.ASK_FIRST,
            narrowing_options=tuple(options),
            question=msgs.ask_unknown_metric(unknown, options)
            if unknown
            else msgs.ask_metric(options),
            reason=ClarifyReason.MISSING_METRIC,
        )
    if intent.long_range is not None:
        return _range_too_long(intent.long_range, msgs)
    return _assumptions(intent, reference_date or date.today(), profile)


def _ask_which_metric(
    asked: str, codes: tuple[str, ...], profile: DomainProfile, msgs: Messages, language: str
) -> ClarificationResult:
    """Ask which of the metrics whose names hold the phrase ("Claims": "Claims incurred",
    "Net claims incurred") is meant, offering those alone."""
    options = [_metric_label(profile, code, language) for code in codes]
    return ClarificationResult(
        mode=ClarifyMode.ASK_FIRST,
        narrowing_options=tuple(options),
        question=msgs.ask_which_metric(asked, options),
        reason=ClarifyReason.MISSING_METRIC,
    )


def _did_you_mean(
    misses: tuple[NearMiss, ...], profile: DomainProfile, msgs: Messages, language: str
) -> ClarificationResult:
    """Ask whether the names a word is one typo away from were meant, offering those alone:
    a corrected guess answered outright would show another question's figure when wrong."""
    label = {METRIC: _metric_label, ENTITY: _entity_label}
    guesses = [
        (miss.typed, [label[miss.kind](profile, code, language) for code in miss.codes])
        for miss in misses
    ]
    return ClarificationResult(
        mode=ClarifyMode.ASK_FIRST,
        narrowing_options=tuple(dict.fromkeys(name for _, names in guesses for name in names)),
        question=msgs.did_you_mean(guesses),
        reason=ClarifyReason.MISSING_METRIC
        if any(miss.kind == METRIC for miss in misses)
        else ClarifyReason.UNKNOWN_ENTITY,
    )


def _ask_period(
    intent: ParsedIntent, day: date, profile: DomainProfile, msgs: Messages
) -> ClarificationResult:
    """Ask which period an expression the calendar cannot name means, offering the latest
    complete fiscal years."""
    calendar = FiscalCalendar(profile.fiscal.year_end_month)
    latest = calendar.latest_complete_year(day)
    options = (latest.label, latest.previous_year().label)
    return ClarificationResult(
        mode=ClarifyMode.ASK_FIRST,
        narrowing_options=options,
        question=msgs.ask_period(list(intent.unknown_periods), calendar.year_end_month, [*options]),
        reason=ClarifyReason.UNKNOWN_PERIOD,
    )


def _range_too_long(asked: tuple[Period, Period], msgs: Messages) -> ClarificationResult:
    """Ask for a shorter range, offering its latest ``MAX_RANGE_YEARS`` years."""
    first, last = asked
    option = f"{last.years_later(1 - MAX_RANGE_YEARS).label}-{last.label}"
    return ClarificationResult(
        mode=ClarifyMode.ASK_FIRST,
        narrowing_options=(option,),
        question=msgs.range_too_long(first.label, last.label, MAX_RANGE_YEARS, option),
        reason=ClarifyReason.PERIOD_RANGE,
    )


def _assumptions(intent: ParsedIntent, day: date, profile: DomainProfile) -> ClarificationResult:
    if intent.analysis is not None and intent.analysis.op is AnalysisOp.UNSUPPORTED:
        return _NO_CLARIFICATION  # "not computed" uses no slot: none is assumed
    entity: str | None = None
    period: Period | None = None
    options: list[str] = []
    if intent.entity is None:
        entity = profile.company.home_entity
        options += [
            _entity_label(profile, e.code, intent.language)
            for e in profile.entities
            if e.code != profile.company.home_entity
        ]
    if intent.period is None and intent.latest is None:  # "the latest quarter": looked up
        period = FiscalCalendar(profile.fiscal.year_end_month).latest_complete_year(day)
        options += [Period(period.year - 1, "FY").label, Period(period.year + 1, "H1").label]
    if entity is None and period is None:
        return _NO_CLARIFICATION
    note = for_language(intent.language).assumption(
        _entity_label(profile, entity, intent.language) if entity else None,
        period.label if period else None,
        options,
    )
    return ClarificationResult(
        mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS,
        assumed_entity=entity,
        assumed_period=period,
        assumption_note=note,
        narrowing_options=tuple(options),
    )


def _entity_label(profile: DomainProfile, code: str, language: str) -> str:
    return _label(Names(profile, language).entity(code), code, language)


def _metric_label(profile: DomainProfile, code: str, language: str) -> str:
    return _label(Names(profile, language).metric(code), code, language)


def _label(name: str, code: str, language: str) -> str:
    """``名称（CODE）`` for Chinese questions, ``Name (CODE)`` for English ones; the name in
    the other language where the profile gives none in this one."""
    if name == code:
        return code
    if language == "zh":
        return f"{name}（{code}）"
    return f"{name} ({code})"


# Immutable, so every question that needs no clarification shares one.
_NO_CLARIFICATION = ClarificationResult(mode=ClarifyMode.NONE)
