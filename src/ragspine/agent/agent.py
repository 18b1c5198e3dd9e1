"""The orchestrator: intent → gates → route → guarded answer with sources and one trace.

意图解析 → 安全门/澄清网关 → 三路分流 → tool-use 循环 → 防编造守卫 → 回答 + 来源

The early returns run in a fixed order and fire before any tool, retrieval or LLM call. On the
structured route the model never supplies the answer text: every number is rendered from a found
fact or computed by our code from found facts. If the model does not query exactly what the user
asked (no tool call, other slots, endless calls), the agent runs the parsed query itself.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import product

from ragspine.agent.clarify import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    ClarificationResult,
    clarify_scope,
)
from ragspine.agent.intent import (
    ROUTE_COMPOSITE,
    ROUTE_NARRATIVE,
    IntentParser,
    ParsedIntent,
    RuleIntentParser,
)
from ragspine.agent.llm_provider import SLOT_HINT_PREFIX, LLMProvider
from ragspine.agent.messages import Messages, for_language
from ragspine.agent.narrative import NarrativeOutcome, filters_for, run_narrative
from ragspine.agent.query_tools import (
    QUERY_METRIC_TOOL_NAME,
    STATUS_FOUND,
    ToolResult,
    execute_query_metric,
    query_metric_spec,
)
from ragspine.agent.render import format_number, percent_change, render_result
from ragspine.errors import ProviderError
from ragspine.observability.trace import NullTraceSink, RequestTrace, TraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever
from ragspine.storage.fact_store import FactStoreProtocol

MAX_TOOL_ITERATIONS = 5

STRUCTURED_SYSTEM_PROMPT = (
    "You answer questions about reported figures. Call the query_metric tool with the parsed "
    "slots; never state a number the tool did not return; if it returns not_found, say the "
    "figure was not found."
)

KIND_FOUND = "found"
KIND_NOT_FOUND = "not_found"
KIND_PARTIAL = "partial"
KIND_UNRECOGNIZED = "unrecognized"
KIND_REFUSED = "refused"
KIND_CLARIFY = "clarify"
KIND_DEGRADED = "degraded"

OVERRIDE_NO_TOOL_CALL = "no_tool_call"
OVERRIDE_SLOT_MISMATCH = "slot_mismatch"
OVERRIDE_ITERATION_CAP = "iteration_cap"


@dataclass(frozen=True)
class SubTask:
    metric: str
    entity: str
    period: Period
    channel: str

    def matches(self, result: ToolResult) -> bool:
        """True when a tool result answers exactly this sub-task's slots."""
        codes = result.get("normalized", result)
        if not isinstance(codes, dict) or result.get("status") not in ("found", "not_found"):
            return False
        return (
            codes.get("metric_code") == self.metric
            and codes.get("entity") == self.entity
            and codes.get("period_type") == self.period.type
            and codes.get("period") == self.period.period
            and codes.get("channel") == self.channel
        )


@dataclass
class AgentResult:
    answer: str
    route: str
    clarification: ClarificationResult
    tool_results: list[ToolResult] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    answer_kind: str = KIND_FOUND
    request_id: str = ""
    intent: ParsedIntent | None = None
    trace: dict[str, object] = field(default_factory=dict)


@dataclass
class _Run:
    """Everything one request needs, so helpers take one argument instead of ten."""

    question: str
    store: FactStoreProtocol
    provider: LLMProvider
    profile: DomainProfile
    reference_date: date
    clearance: Sensitivity
    msgs: Messages
    language: str
    trace: RequestTrace


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
) -> AgentResult:
    profile = profile or load_profile()
    day = reference_date or date.today()
    trace = RequestTrace(request_id or uuid.uuid4().hex)
    parser = intent_parser or RuleIntentParser(profile)
    # Whatever the parser returns, the gate screens the question the user actually asked.
    intent = replace(parser.parse(question, day), raw_question=question)
    _record_intent(trace, intent)
    clarification = clarify_scope(intent, day, profile=profile)
    trace.clarification_mode = clarification.mode
    trace.clarification_reason = clarification.reason
    run = _Run(
        question,
        store,
        provider,
        profile,
        day,
        clearance,
        for_language(intent.language),
        intent.language,
        trace,
    )

    if clarification.mode == CLARIFY_OUT_OF_SCOPE_ENTITY:
        trace.security_refused = True
        result = AgentResult(
            clarification.question, intent.route, clarification, answer_kind=KIND_REFUSED
        )
    elif clarification.mode == CLARIFY_ASK_FIRST:
        result = AgentResult(
            clarification.question, intent.route, clarification, answer_kind=KIND_CLARIFY
        )
    else:
        if clarification.mode == CLARIFY_ANSWER_WITH_ASSUMPTIONS:
            intent = _apply_assumptions(intent, clarification, profile, day)
            trace.assumed_slots = sorted(clarification.assumed_slots)
        result = _route(run, intent, clarification, narrative_retriever)
        if clarification.assumption_note:
            result.answer = f"{clarification.assumption_note}\n{result.answer}"

    result.request_id = trace.request_id
    result.intent = intent
    trace.answer_kind = result.answer_kind
    trace.sources_count = len(result.sources)
    result.trace = trace.to_event()
    (trace_sink or NullTraceSink()).emit(result.trace)
    return result


def _record_intent(trace: RequestTrace, intent: ParsedIntent) -> None:
    trace.language = intent.language
    trace.route = intent.route
    trace.metric_codes = list(intent.metrics)
    trace.entity_codes = list(intent.entities)
    trace.period_labels = [p.label for p in intent.periods]
    trace.channel_codes = [intent.channel] if intent.channel else []


def _apply_assumptions(
    intent: ParsedIntent, clarification: ClarificationResult, profile: DomainProfile, day: date
) -> ParsedIntent:
    assumed = clarification.assumed_slots
    if "entity" in assumed:
        intent = replace(intent, entity=assumed["entity"], entities=(assumed["entity"],))
    if "period" in assumed:
        latest = Period(int(assumed["period"].removeprefix("FY")), "FY")
        intent = replace(intent, period=latest, periods=(latest,))
    return intent


def _route(
    run: _Run,
    intent: ParsedIntent,
    clarification: ClarificationResult,
    retriever: NarrativeRetriever | None,
) -> AgentResult:
    if intent.route == ROUTE_NARRATIVE:
        outcome = _narrative(run, intent, retriever)
        return AgentResult(
            outcome.text,
            intent.route,
            clarification,
            sources=outcome.sources,
            answer_kind=outcome.kind,
        )
    result = _run_structured(run, intent, clarification)
    if intent.route == ROUTE_COMPOSITE and result.answer_kind != KIND_DEGRADED:
        outcome = _narrative(run, intent, retriever)
        result.answer = f"{result.answer}\n\n{run.msgs.NARRATIVE_HEADING}\n{outcome.text}"
        result.sources = _dedupe(result.sources + outcome.sources)
    return result


def _narrative(
    run: _Run, intent: ParsedIntent, retriever: NarrativeRetriever | None
) -> NarrativeOutcome:
    return run_narrative(
        run.question,
        retriever,
        run.provider,
        filters=filters_for(intent),
        clearance=run.clearance,
        language=run.language,
        trace=run.trace,
    )


def _subtasks(intent: ParsedIntent, profile: DomainProfile) -> list[SubTask]:
    """Cartesian product over the axes the user listed; single-valued axes do not multiply."""
    assert intent.metric and intent.entity and intent.period
    channel = intent.channel or profile.defaults.channel
    metrics = intent.metrics or (intent.metric,)
    entities = intent.entities or (intent.entity,)
    periods = intent.periods or (intent.period,)
    tasks = [SubTask(m, e, p, channel) for m, e, p in product(metrics, entities, periods)]
    if intent.growth and len(tasks) == 1:
        only = tasks[0]
        tasks.append(replace(only, period=only.period.previous_year()))
    return tasks


def _run_structured(
    run: _Run, intent: ParsedIntent, clarification: ClarificationResult
) -> AgentResult:
    tasks = _subtasks(intent, run.profile)
    run.trace.subtasks = len(tasks)
    if len(tasks) == 1:
        try:
            results = [_run_tool_loop(run, tasks[0])]
        except ProviderError:
            run.trace.provider_error = True
            return AgentResult(
                run.msgs.PROVIDER_UNAVAILABLE,
                intent.route,
                clarification,
                answer_kind=KIND_DEGRADED,
            )
    else:
        # Explicitly listed values and growth questions never involve the model.
        results = [_execute(run, task) for task in tasks]
    return _structured_answer(run, intent, clarification, tasks, results)


def _execute(run: _Run, task: SubTask) -> ToolResult:
    result = execute_query_metric(
        run.store,
        task.metric,
        task.entity,
        task.period.label,
        task.channel,
        reference_date=run.reference_date,
        clearance=run.clearance,
        profile=run.profile,
    )
    run.trace.tool_calls += 1
    run.trace.count_status(str(result["status"]))
    return result


def _run_tool_loop(run: _Run, task: SubTask) -> ToolResult:
    """Let the model call query_metric (≤ MAX_TOOL_ITERATIONS); keep only the parsed query's result.

    Whatever the model says is discarded. If it never produced a result for exactly the parsed
    slots, the agent runs that query itself and the trace records why.
    """
    hint = {
        "metric": task.metric,
        "entity": task.entity,
        "period": task.period.label,
        "channel": task.channel,
    }
    messages: list[dict[str, object]] = [
        {"role": "user", "content": f"{run.question}\n{SLOT_HINT_PREFIX}{json.dumps(hint)}"}
    ]
    tools = [query_metric_spec(run.profile)]
    answer: ToolResult | None = None
    calls = mismatched = 0
    for _ in range(MAX_TOOL_ITERATIONS):
        run.trace.llm_calls += 1
        reply = run.provider.create_message(
            system=STRUCTURED_SYSTEM_PROMPT, messages=messages, tools=tools
        )
        if reply.text.strip():
            run.trace.model_text_discarded = True
        if not reply.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": [
                    {"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            calls += 1
            result = _model_call(run, call.name, call.arguments)
            if task.matches(result):
                answer = result
            else:
                mismatched += 1
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "name": call.name,
                    "content": json.dumps(result, ensure_ascii=False),
                }
            )
    else:
        return _override(run, task, OVERRIDE_ITERATION_CAP)
    if answer is not None:
        return answer
    return _override(run, task, OVERRIDE_SLOT_MISMATCH if calls else OVERRIDE_NO_TOOL_CALL)


def _model_call(run: _Run, name: str, arguments: dict[str, object]) -> ToolResult:
    if name != QUERY_METRIC_TOOL_NAME:
        return {"status": "error", "message": f"unknown tool {name!r}"}
    args = {k: v if isinstance(v, str) else None for k, v in arguments.items()}
    result = execute_query_metric(
        run.store,
        args.get("metric"),
        args.get("entity"),
        args.get("period"),
        args.get("channel") or run.profile.defaults.channel,
        reference_date=run.reference_date,
        clearance=run.clearance,
        profile=run.profile,
    )
    run.trace.tool_calls += 1
    run.trace.count_status(str(result["status"]))
    return result


def _override(run: _Run, task: SubTask, reason: str) -> ToolResult:
    run.trace.guard_override = True
    run.trace.guard_override_reason = reason
    return _execute(run, task)


def _structured_answer(
    run: _Run,
    intent: ParsedIntent,
    clarification: ClarificationResult,
    tasks: list[SubTask],
    results: list[ToolResult],
) -> AgentResult:
    """Render every line from tool results; add our own arithmetic for exactly two facts."""
    default_channel = run.profile.defaults.channel
    lines = [render_result(r, run.msgs, default_channel, run.language) for r in results]
    found = [r for r in results if r["status"] == STATUS_FOUND]
    comparison = _comparison(run, tasks, results) if len(found) == len(results) == 2 else None
    if comparison:
        lines.append(comparison)
    elif intent.growth and len(tasks) == 2 and results[0]["status"] == STATUS_FOUND:
        lines.append(run.msgs.growth_missing(tasks[1].period.label))
    if not found:
        run.trace.fabrication_guard_triggered = True
    sources = _dedupe([_source(r) for r in found])
    return AgentResult(
        "\n".join(lines),
        intent.route,
        clarification,
        tool_results=results,
        sources=sources,
        answer_kind=_kind(results),
    )


def _kind(results: list[ToolResult]) -> str:
    statuses = {r["status"] for r in results}
    if statuses == {STATUS_FOUND}:
        return KIND_FOUND
    if STATUS_FOUND in statuses:
        return KIND_PARTIAL
    if statuses == {"unrecognized_param"}:
        return KIND_UNRECOGNIZED
    return KIND_NOT_FOUND


def _comparison(run: _Run, tasks: list[SubTask], results: list[ToolResult]) -> str | None:
    """Difference (and % change, or pp for ratios) between two found facts of one unit."""
    first, second = results
    if first["unit"] != second["unit"]:
        return None
    a, b = tasks
    va, vb = float(first["value"]), float(second["value"])  # type: ignore[arg-type]
    metric = run.profile.metric(a.metric)
    ratio = metric is not None and metric.kind == MetricKind.RATIO and a.metric == b.metric
    unit = str(first["unit"])
    if a.period != b.period and (a.metric, a.entity) == (b.metric, b.entity):
        (later, lv), (earlier, ev) = sorted(
            [(a.period, va), (b.period, vb)], key=lambda x: x[0], reverse=True
        )
        diff = format_number(lv - ev, signed=True)
        if ratio:
            return run.msgs.change_pp(later.label, earlier.label, diff)
        return run.msgs.change(later.label, earlier.label, diff, percent_change(lv, ev), unit)
    if a.period == b.period:
        names = (a.entity, b.entity) if a.entity != b.entity else (a.metric, b.metric)
        diff = format_number(va - vb, signed=True)
        if ratio:
            return run.msgs.difference_pp(names[0], names[1], diff)
        return run.msgs.difference(names[0], names[1], diff, percent_change(va, vb), unit)
    return None


def _source(result: ToolResult) -> dict[str, str]:
    source = result["source"]
    assert isinstance(source, dict)
    return {"doc": str(source["doc"]), "locator": str(source["locator"])}


def _dedupe(sources: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for source in sources:
        seen.setdefault((source["doc"], source["locator"]), source)
    return list(seen.values())
