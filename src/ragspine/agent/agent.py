"""The orchestrator: intent → gates → route → guarded answer with sources and one trace.

意图解析 → 安全门/澄清网关 → 三路分流 → tool-use 循环 → 防编造守卫 → 回答 + 来源

The early returns run in a fixed order and fire before any tool, retrieval or LLM call. On the
structured route the model never supplies the answer text: every number is rendered from a found
fact or computed by our code from found facts (``agent.compare``, and ``agent.analyst`` for
rankings, totals, exclusions, averages, CAGR and spans, which run our own lookups only). If
the model does not query exactly what the user asked, the agent runs the parsed query itself
(``agent.guard``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from itertools import product

from ragspine.agent.analysis_cues import with_ratios
from ragspine.agent.analyst import run_analysis
from ragspine.agent.clarify import clarify_scope
from ragspine.agent.compare import (
    change_bases,
    comparison,
    grouped_changes,
    growth_width,
    marked,
    yearly_changes,
)
from ragspine.agent.consistency import FactCheck, pending_values
from ragspine.agent.conversation import Context, FollowUp, context_of, follow_up
from ragspine.agent.guard import ToolContext, run_tool_loop
from ragspine.agent.latest_period import settled_latest, with_latest
from ragspine.agent.messages import Messages, for_language
from ragspine.agent.narrative import filters_for, run_narrative
from ragspine.agent.normalize import normalize_question
from ragspine.agent.parse import RuleIntentParser
from ragspine.agent.render import render_pending, render_result
from ragspine.agent.security_gate import SecurityGate
from ragspine.agent.types import (
    AgentResult,
    AnswerKind,
    ClarificationResult,
    ClarifyMode,
    FoundFact,
    GuardOverride,
    IntentParser,
    NarrativeSection,
    ParsedIntent,
    Route,
    Slots,
    Source,
    ToolResult,
    ToolStatus,
)
from ragspine.agent.unit_request import unit_request_lines
from ragspine.errors import ProviderError, UsageError
from ragspine.llm.protocol import LLMProvider
from ragspine.observability.trace import NullTraceSink, RequestTrace, TraceSink, new_request_id
from ragspine.profile.display import Names
from ragspine.profile.glossary import glossary_for
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever
from ragspine.storage.fact_store import FactStoreProtocol

__all__ = [
    "FIRST_REFERENCE_DATE",
    "LAST_REFERENCE_DATE",
    "MAX_QUESTION_CHARS",
    "AgentResult",
    "answer_question",
]

# A question names a few slots in a sentence or two; thousands of characters are a paste or an
# attack, and every step below reads the whole text, so they are refused before any of them.
MAX_QUESTION_CHARS = 2_000
# The first and last supported reference dates: outside them a fiscal-year label stops making
# sense (0001-01-01 would render "FY0 … FY-1"). The CLI and the HTTP service refuse the rest.
FIRST_REFERENCE_DATE = date(1900, 1, 1)
LAST_REFERENCE_DATE = date(2200, 12, 31)


@dataclass
class _Run:
    """Everything one request needs, so helpers take one argument instead of ten."""

    question: str
    provider: LLMProvider
    profile: DomainProfile
    tools: ToolContext
    msgs: Messages
    language: str
    trace: RequestTrace
    retriever: NarrativeRetriever | None


def answer_question(
    question: str,
    store: FactStoreProtocol,
    provider: LLMProvider,
    *,
    reference_date: date | None = None,
    narrative_retriever: NarrativeRetriever | None = None,
    intent_parser: IntentParser | None = None,
    profile: DomainProfile | None = None,
    clearance: Sensitivity = DEFAULT_CLEARANCE,
    trace_sink: TraceSink | None = None,
    request_id: str | None = None,
    previous: Sequence[str] = (),
) -> AgentResult:
    """Answer one question. ``profile`` defaults to the shipped example profile (the seeds'
    example relies on it); every layer below receives this one profile object.

    ``previous`` are the conversation's earlier user questions, oldest first: a follow-up
    inherits the slots it leaves out from them (``agent.conversation``), and says so.

    Raises ``UsageError`` for an empty question or one longer than ``MAX_QUESTION_CHARS``.
    """
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,}: ask one short question at a time"
        )
    # Every reader below (parser, tools, retrieval) sees the normalized text; whatever the
    # parser returns, the gate screens the question as the user typed it (and normalized).
    normalized = normalize_question(question)
    if not normalized.strip():
        raise UsageError("the question is empty: ask about a metric, an entity or a period")
    if profile is None:
        from ragspine.profile.loader import load_profile

        profile = load_profile()
    day = reference_date or date.today()
    trace = RequestTrace(request_id or new_request_id())
    parser = intent_parser or RuleIntentParser(profile)
    intent = parser.parse(normalized, day)
    if intent.raw_question != question:  # most questions need no normalizing: skip the copy
        intent = replace(intent, raw_question=question)
    follow: FollowUp | None = None
    tools = ToolContext(store, profile, day, clearance, trace)
    if previous:
        settled = partial(_settled_latest, tools)
        context = context_of(previous, profile, day, max_chars=MAX_QUESTION_CHARS, latest=settled)
        follow = follow_up(intent, context, profile=profile, day=day, latest=settled)
        if follow is not None:
            intent = follow.intent
            trace.inherited_slots = list(follow.inherited)
    intent = with_ratios(intent, profile)
    _record_intent(trace, intent)
    clarification = clarify_scope(intent, day, profile=profile, gate=SecurityGate.of(profile))
    if follow is not None:
        clarification = follow.gateway(clarification, profile)
    trace.clarification_mode = clarification.mode
    trace.clarification_reason = clarification.reason
    run = _Run(
        normalized,
        provider,
        profile,
        tools,
        for_language(intent.language),
        intent.language,
        trace,
        narrative_retriever,
    )

    if clarification.mode is ClarifyMode.OUT_OF_SCOPE_ENTITY:
        trace.security_refused = True
        result = AgentResult(
            clarification.question, intent.route, clarification, answer_kind=AnswerKind.REFUSED
        )
    elif clarification.mode is ClarifyMode.ASK_FIRST:
        result = AgentResult(
            clarification.question, intent.route, clarification, answer_kind=AnswerKind.CLARIFY
        )
    else:
        if clarification.mode is ClarifyMode.ANSWER_WITH_ASSUMPTIONS:
            intent = _apply_assumptions(intent, clarification)
            trace.assumed_slots = sorted(clarification.assumed_slots)
        latest = _latest(run, intent, follow.latest_of if follow is not None else ())
        if isinstance(latest, ClarificationResult):  # no one latest period to answer for
            trace.clarification_mode, trace.clarification_reason = latest.mode, latest.reason
            result = AgentResult(
                latest.question, intent.route, latest, answer_kind=AnswerKind.CLARIFY
            )
        else:
            intent, note = latest
            result = _route(run, intent, clarification)
            inherited = follow.note(profile, intent.periods) if follow is not None else ""
            for line in (note, inherited):
                if line:  # "" for an answer computing nothing that kept no cue of an earlier turn
                    result.answer = f"{line}\n{result.answer}"
            if clarification.assumption_note:
                result.answer = f"{clarification.assumption_note}\n{result.answer}"

    result.request_id = trace.request_id
    result.intent = intent
    trace.answer_kind = result.answer_kind
    trace.sources_count = len(result.sources)
    result.trace = trace.to_event()
    (trace_sink or NullTraceSink()).emit(result.trace)
    return result


def _latest(
    run: _Run, intent: ParsedIntent, previous: Sequence[tuple[str, str]]
) -> tuple[ParsedIntent, str] | ClarificationResult:
    """``intent`` with the latest period it asks for and the note saying so ("" when it asks
    for none), or the question to ask (``agent.latest_period``); ``previous`` are the earlier
    turn's (metric, unit) pairs when that period is inherited from it (``FollowUp.latest_of``)."""
    if intent.latest is None or intent.periods or intent.route is Route.NARRATIVE:
        return intent, ""
    return with_latest(intent, run.tools, run.msgs, previous)


def _settled_latest(tools: ToolContext, context: Context) -> tuple[Period, ...]:
    """The period an earlier turn asking for "the latest quarter / half" was answered for."""
    assert context.latest is not None  # follow_up asks only after such a turn
    channel = context.channels[0] if context.channels else tools.profile.defaults.channel
    pairs = tuple(product(context.metrics, context.entities))
    return settled_latest(context.latest, pairs, channel, tools)


def _record_intent(trace: RequestTrace, intent: ParsedIntent) -> None:
    trace.language = intent.language
    trace.route = intent.route
    trace.metric_codes = list(intent.metrics)
    trace.entity_codes = list(intent.entities)
    trace.period_labels = [p.label for p in intent.periods]
    trace.channel_codes = list(intent.channels) or ([intent.channel] if intent.channel else [])


def _apply_assumptions(intent: ParsedIntent, clarification: ClarificationResult) -> ParsedIntent:
    entity, period = clarification.assumed_entity, clarification.assumed_period
    if entity is not None:
        intent = replace(intent, entity=entity, entities=(entity,))
    if period is not None:
        intent = replace(intent, period=period, periods=(period,))
    return intent


def _route(run: _Run, intent: ParsedIntent, clarification: ClarificationResult) -> AgentResult:
    if intent.route is Route.NARRATIVE:
        section = _narrative(run, intent)
        return AgentResult(
            section.text,
            intent.route,
            clarification,
            sources=section.sources,
            answer_kind=section.kind,
            narrative=section,
        )
    result = _run_structured(run, intent, clarification)
    if intent.route is Route.COMPOSITE and result.answer_kind is not AnswerKind.DEGRADED:
        section = _narrative(run, intent)
        result.answer = f"{result.answer}\n\n{run.msgs.NARRATIVE_HEADING}\n{section.text}"
        result.sources = _dedupe(result.sources + section.sources)
        result.narrative = section
    return result


def _narrative(run: _Run, intent: ParsedIntent) -> NarrativeSection:
    return run_narrative(
        run.question,
        run.retriever,
        run.provider,
        filters=filters_for(intent),
        clearance=run.tools.clearance,
        language=run.language,
        trace=run.trace,
        glossary=glossary_for(run.profile),
        contradicts=FactCheck(
            run.tools.store, run.profile, run.tools.reference_date, run.tools.clearance
        ).contradicts,
    )


def _subtasks(intent: ParsedIntent, profile: DomainProfile) -> list[Slots]:
    """Cartesian product over the axes the user listed; single-valued axes do not multiply.
    A change asked of one figure adds the figure(s) it is measured against (``change_bases``).

    Only called once the gateway has a metric and assumed any missing entity or period.
    """
    channels = intent.channels or (intent.channel or profile.defaults.channel,)
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    tasks = [Slots(m, e, p, c) for m, e, p, c in product(metrics, entities, periods, channels)]
    if intent.growth and len(periods) == 1:  # each figure followed by the ones it is against
        bases = change_bases(periods[0], intent.change_base)
        tasks = [s for task in tasks for s in (task, *(replace(task, period=p) for p in bases))]
    return tasks


def _run_structured(
    run: _Run, intent: ParsedIntent, clarification: ClarificationResult
) -> AgentResult:
    if intent.analysis is not None:  # a ranking, total, exclusion, average, CAGR, span, ratio
        return run_analysis(intent, clarification, run.tools, run.msgs)
    asked = _subtasks(intent, run.profile)
    run.trace.subtasks = len(asked)
    resolved = [run.tools.resolve(task) for task in asked]
    tasks = [r if isinstance(r, Slots) else a for r, a in zip(resolved, asked, strict=True)]
    override: GuardOverride | None = None
    if len(resolved) == 1 and isinstance(resolved[0], Slots):
        try:
            result, override = run_tool_loop(run.question, resolved[0], run.provider, run.tools)
        except ProviderError:
            run.trace.provider_error = True
            return AgentResult(
                run.msgs.PROVIDER_UNAVAILABLE,
                intent.route,
                clarification,
                answer_kind=AnswerKind.DEGRADED,
            )
        results = [result]
    else:
        # Explicitly listed values and growth questions never involve the model, nor does a
        # slot the glossary cannot read.
        results = [run.tools.run(r) if isinstance(r, Slots) else r for r in resolved]
    answer = _structured_answer(run, intent, clarification, tasks, results)
    answer.guard_override = override
    return answer


def _structured_answer(
    run: _Run,
    intent: ParsedIntent,
    clarification: ClarificationResult,
    tasks: list[Slots],
    results: list[ToolResult],
) -> AgentResult:
    """Render every line from tool results; add our own arithmetic for two facts or a run of years.

    A found fact with a different value pending review is followed by that value and its
    source, and a comparison built on it is marked provisional.
    """
    default_channel = run.profile.defaults.channel
    names = Names(run.profile, run.language)
    lines: list[str] = []
    disclosed = []
    held: set[Slots] = set()  # the found facts with a different value pending review
    for r in results:
        lines.append(render_result(r, run.msgs, default_channel, names))
        if isinstance(r, FoundFact):
            waiting = pending_values(run.tools.store, r.slots, run.tools.clearance)
            if waiting:
                disclosed += waiting
                held.add(r.slots)
                lines += [render_pending(r, p, run.msgs, default_channel, names) for p in waiting]
    found = [r for r in results if isinstance(r, FoundFact)]
    lines += unit_request_lines(intent, found, run.msgs, default_channel, names)
    changes: list[str] = []
    width = growth_width(intent, tasks)
    based = width > 0
    if based:  # each figure's change over the figures it is against
        changes = grouped_changes(tasks, results, width, held, run.profile, run.msgs, run.language)
    elif len(found) == len(results) == 2:
        line = comparison(found[0], found[1], run.profile, run.msgs, run.language)
        changes = [marked(line, found, held, run.msgs)] if line else []
    elif len(results) > 2 and len(found) > 1:
        changes = yearly_changes(found, run.profile, run.msgs, run.language, held)
    if changes:
        lines += changes
    elif intent.growth and len(tasks) == 2 and isinstance(results[0], FoundFact) and not based:
        lines.append(run.msgs.growth_missing(tasks[1].period.label))
    if not found:
        run.trace.fabrication_guard_triggered = True
    return AgentResult(
        "\n".join(lines),
        intent.route,
        clarification,
        tool_results=results,
        sources=_dedupe([r.source for r in found]),
        answer_kind=_kind(results),
        pending=disclosed,
    )


def _kind(results: list[ToolResult]) -> AnswerKind:
    if len(results) == 1:  # most questions: one result, whose status names the kind
        return _KIND_OF_ONE[results[0].status]
    return _kind_of({r.status for r in results})


def _kind_of(statuses: set[ToolStatus]) -> AnswerKind:
    if statuses == {ToolStatus.FOUND}:
        return AnswerKind.FOUND
    if ToolStatus.FOUND in statuses:
        return AnswerKind.PARTIAL
    if statuses == {ToolStatus.UNRECOGNIZED}:
        return AnswerKind.UNRECOGNIZED
    return AnswerKind.NOT_FOUND


_KIND_OF_ONE = {status: _kind_of({status}) for status in ToolStatus}


def _dedupe(sources: list[Source]) -> list[Source]:
    if len(sources) < 2:
        return sources
    seen: dict[tuple[str, str], Source] = {}
    for source in sources:
        seen.setdefault((source.doc, source.locator), source)
    return list(seen.values())
