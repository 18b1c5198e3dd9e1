"""The wire shape of an answer, shared by ``ragspine ask --json`` and the HTTP ``/v1/ask``.

Every code on the wire keeps its field (``metric_code``, ``entity``, ``unit``…); given the
profile, each tool result also carries what a person reads, in the question's language
(``profile.display``): ``value_display``, ``unit_display``, ``entity_display``,
``metric_display``, ``channel_display``, and for a found value the exact ``value`` with its
``unit_kind``, ``currency`` and ``scale`` (the power of ten one unit is worth: 6 for millions).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from ragspine.agent.types import AgentResult, FactNotFound, FoundFact, Slots, ToolResult
from ragspine.profile.display import Names
from ragspine.profile.memo import Memo
from ragspine.profile.model import DomainProfile
from ragspine.units import Unit


class SourceRef(BaseModel):
    model_config = ConfigDict(extra="allow")

    doc: str
    locator: str


class ClarificationOut(BaseModel):
    mode: str
    reason: str = ""
    question: str = ""
    assumption_note: str = ""
    assumed_slots: dict[str, str] = {}
    narrowing_options: list[str] = []


class AskResponse(BaseModel):
    answer: str
    route: str
    answer_kind: str
    clarification: ClarificationOut
    sources: list[SourceRef]
    request_id: str
    tool_results: list[dict[str, object]] = []
    # The question's language ("zh" or "en"): the language of every *_display field.
    language: str = ""


_Answer = TypeVar("_Answer", bound=AskResponse)


def unit_fields(unit: str) -> dict[str, object]:
    """The exact unit of a value: its kind, ISO currency (None for a percent or a count) and
    scale; empty for a code that is no unit."""
    try:
        parsed = Unit.parse(unit)
    except ValueError:
        return {}
    return {"unit_kind": parsed.kind.value, "currency": parsed.currency, "scale": parsed.scale}


def slot_names(slots: Slots, names: Names) -> dict[str, object]:
    return {
        "entity_display": names.entity(slots.entity),
        "metric_display": names.metric(slots.metric),
        "channel_display": names.channel(slots.channel),
    }


def displayed(result: ToolResult, names: Names) -> dict[str, object]:
    """A tool result's wire form with the display fields beside its codes."""
    if isinstance(result, FoundFact):
        return _found_wire(result, names)
    wire = result.to_dict()
    if isinstance(result, FactNotFound):
        wire["normalized"] = {**result.slots.to_dict(), **slot_names(result.slots, names)}
    return wire


def _found_wire(found: FoundFact, names: Names) -> dict[str, object]:
    """A found fact's wire form, remembered per profile object under everything it is written
    from: the same few facts are answered again and again, and writing one out is a dozen
    calls (a fifth of the service's answer layer). Each caller gets its own copy."""
    if not found.value:  # -0.0 equals 0.0 as a key, yet each is written with its own sign
        return _written(found, names)[0]
    slots, source = found.slots, found.source
    period = slots.period
    key = (
        slots.metric,
        slots.entity,
        period.year,
        period.type,
        slots.channel,
        found.value,
        found.unit,
        source.doc,
        source.locator,
        found.row_label,
        names.language,
    )
    memo: Memo[_Wire] = names.profile.compiled("found-wire", _wire_memo)
    wire, written_source = memo.get(key, lambda: _written(found, names))
    return {**wire, "source": {**written_source}}


# A found fact's wire form and, apart, its nested source (copied for each caller too).
_Wire = tuple[dict[str, object], dict[str, str]]
# Wire forms kept per profile: a dict of some twenty fields each, so fewer than the default.
WIRE_MEMO_LIMIT = 1024


def _wire_memo(_: DomainProfile) -> Memo[_Wire]:
    return Memo(WIRE_MEMO_LIMIT)


def _written(found: FoundFact, names: Names) -> _Wire:
    source = found.source.to_dict()
    wire = {
        **found.to_dict(),
        "source": source,
        **slot_names(found.slots, names),
        **unit_fields(found.unit),
        "value_display": names.value(found.value, found.unit),
        "unit_display": names.unit(found.unit),
    }
    return wire, source


def to_response(result: AgentResult, profile: DomainProfile | None = None) -> AskResponse:
    """The wire form; with ``profile``, tool results carry display fields in the question's
    language."""
    return as_model(AskResponse, result, profile)


def as_model(
    model: type[_Answer], result: AgentResult, profile: DomainProfile | None, **more: Any
) -> _Answer:
    """:func:`to_response` built as ``model`` (a subclass of ``AskResponse``) with ``more``
    fields, in one step (the service's answer is validated and serialised once: one
    validation of the whole, its nested models given as the dicts they are read from)."""
    clar = result.clarification
    language = result.intent.language if result.intent is not None else ""
    names = Names(profile, language or "en") if profile is not None else None
    return model.model_validate(
        {
            "answer": result.answer,
            "route": result.route,
            "answer_kind": result.answer_kind,
            "clarification": {
                "mode": clar.mode,
                "reason": clar.reason,
                "question": clar.question,
                "assumption_note": clar.assumption_note,
                "assumed_slots": clar.assumed_slots,
                "narrowing_options": list(clar.narrowing_options),
            },
            "sources": [s.to_dict() for s in result.sources],
            "request_id": result.request_id,
            "tool_results": [
                displayed(r, names) if names is not None else r.to_dict()
                for r in result.tool_results
            ],
            "language": language,
            **more,
        }
    )
