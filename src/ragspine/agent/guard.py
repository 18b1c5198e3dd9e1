"""The guarded tool loop: the model may call ``query_metric``; only our parsed query counts.

Whatever the model says is discarded. Its tool calls are normalised and run for real (their
results go back to it as JSON, the only place a tool result becomes text), but the answer keeps
only a result for exactly the slots the user asked. If the model never produced one — no tool
call, other slots, or calls until the iteration cap — the agent runs that query itself and the
trace records why.

The loop ends as soon as one of the model's queries answers exactly the slots asked: the model
is not asked to word the result, since its words would be discarded, so a structured question
costs one model call instead of two.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from json.encoder import encode_basestring_ascii

from ragspine.agent.query_tools import (
    QUERY_METRIC_TOOL_NAME,
    lookup,
    normalize,
    query_metric_spec,
    resolve,
)
from ragspine.agent.types import GuardOverride, Slots, ToolError, ToolResult
from ragspine.llm.protocol import SLOT_HINT_PREFIX, LLMProvider, ToolCall
from ragspine.observability.trace import RequestTrace
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_store import FactStoreProtocol

MAX_TOOL_ITERATIONS = 5

# Built once: ``json.dumps`` given any option builds a new encoder on every call.
_TOOL_JSON = json.JSONEncoder(ensure_ascii=False)

STRUCTURED_SYSTEM_PROMPT = (
    "You answer questions about reported figures. Call the query_metric tool with the parsed "
    "slots; never state a number the tool did not return; if it returns not_found, say the "
    "figure was not found."
)


@dataclass(slots=True)  # one per question: slotted, and not frozen (frozen costs per field)
class ToolContext:
    """What every query of one request shares: the store, the profile, the day, the clearance."""

    store: FactStoreProtocol
    profile: DomainProfile
    reference_date: date
    clearance: Sensitivity
    trace: RequestTrace

    def run(self, slots: Slots) -> ToolResult:
        """Our own query for typed slots (no model, no re-parsing)."""
        return self._counted(lookup(self.store, slots, clearance=self.clearance))

    def resolve(self, slots: Slots) -> Slots | ToolResult:
        """The parser's slots as profile codes, or the counted result naming an unreadable one."""
        resolved = resolve(slots, profile=self.profile)
        return resolved if isinstance(resolved, Slots) else self._counted(resolved)

    def run_model_call(self, call: ToolCall, hinted: Slots | None = None) -> ToolResult:
        """A query the model asked for: its raw arguments go through the glossary first, unless
        they are exactly the slots ``hinted`` to it, written back as the hint wrote them: those
        are our own typed slots, and the glossary would read them back unchanged (a test holds
        this for every code of the profile and every period the scanner reads)."""
        if call.name != QUERY_METRIC_TOOL_NAME:
            return ToolError(f"unknown tool {call.name!r}")
        if hinted is not None and call.arguments == hint_arguments(hinted):
            return self._counted(lookup(self.store, hinted, clearance=self.clearance))
        args = {k: v if isinstance(v, str) else None for k, v in call.arguments.items()}
        slots = normalize(
            args.get("metric"),
            args.get("entity"),
            args.get("period"),
            args.get("channel") or self.profile.defaults.channel,
            profile=self.profile,
            reference_date=self.reference_date,
        )
        if isinstance(slots, Slots):
            return self._counted(lookup(self.store, slots, clearance=self.clearance))
        return self._counted(slots)

    def _counted(self, result: ToolResult) -> ToolResult:
        self.trace.tool_calls += 1
        self.trace.count_status(result.status)
        return result


def hint_arguments(task: Slots) -> dict[str, str]:
    """The tool arguments naming exactly ``task``: what the slot hint shows the model."""
    return {
        "metric": task.metric,
        "entity": task.entity,
        "period": task.period.label,
        "channel": task.channel,
    }


def slot_hint(task: Slots) -> str:
    """The slots as the JSON object ``json.dumps`` writes for them, formatted directly:
    ``json.dumps`` goes through an encoder object and its iterator on every call, 2% of a
    structured answer's time."""
    return _HINT % tuple(map(encode_basestring_ascii, hint_arguments(task).values()))


_HINT = '{"metric": %s, "entity": %s, "period": %s, "channel": %s}'


def run_tool_loop(
    question: str, task: Slots, provider: LLMProvider, tools: ToolContext
) -> tuple[ToolResult, GuardOverride | None]:
    """Let the model call query_metric (≤ MAX_TOOL_ITERATIONS); return the parsed query's result
    and, when the agent had to run it itself, why."""
    messages: list[dict[str, object]] = [
        {"role": "user", "content": f"{question}\n{SLOT_HINT_PREFIX}{slot_hint(task)}"}
    ]
    # Built once per profile and shared by every request: providers only read tool specs.
    specs = [tools.profile.compiled("query-metric-spec", query_metric_spec)]
    answer: ToolResult | None = None
    calls = 0
    trace = tools.trace
    for _ in range(MAX_TOOL_ITERATIONS):
        trace.llm_calls += 1
        reply = provider.create_message(
            system=STRUCTURED_SYSTEM_PROMPT, messages=messages, tools=specs
        )
        if reply.text.strip():
            trace.model_text_discarded = True
        if not reply.tool_calls:
            break
        results = []
        for call in reply.tool_calls:
            calls += 1
            result = tools.run_model_call(call, task)
            if result.answers(task):
                answer = result
            results.append((call, result))
        if answer is not None:  # asking the model to word it would only produce discarded text
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
        messages += [
            {
                "role": "tool",
                "tool_call_id": call.id,
                "name": call.name,
                "content": _TOOL_JSON.encode(result.to_dict()),
            }
            for call, result in results
        ]
    else:
        return _override(tools, task, GuardOverride.ITERATION_CAP)
    if answer is not None:
        return answer, None
    reason = GuardOverride.SLOT_MISMATCH if calls else GuardOverride.NO_TOOL_CALL
    return _override(tools, task, reason)


def _override(
    tools: ToolContext, task: Slots, reason: GuardOverride
) -> tuple[ToolResult, GuardOverride]:
    tools.trace.guard_override = True
    tools.trace.guard_override_reason = reason
    return tools.run(task), reason
