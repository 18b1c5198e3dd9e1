"""``query_metric``: the structured channel's only fact-producing primitive.

Two steps, kept apart so the agent never round-trips its own typed slots through text:
``normalize`` reads the raw arguments a model sent (every parameter through the glossary, or
``unrecognized_param`` naming the one it could not read) and ``lookup`` fetches the fact for
typed slots (``found`` with value, unit and lineage, or ``not_found``). It never guesses.
``execute_query_metric`` is both steps, the tool as the model and the seeds see it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ragspine.agent.types import (
    FactNotFound,
    FoundFact,
    Slots,
    Source,
    SourceKind,
    ToolResult,
    ToolStatus,
    UnrecognizedParam,
)
from ragspine.llm.protocol import to_anthropic_tool, to_openai_tool
from ragspine.profile.glossary import glossary_for
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_store import FactStoreProtocol

QUERY_METRIC_TOOL_NAME = "query_metric"

# The seeds' names for the tri-state.
STATUS_FOUND = ToolStatus.FOUND
STATUS_NOT_FOUND = ToolStatus.NOT_FOUND
STATUS_UNRECOGNIZED = ToolStatus.UNRECOGNIZED

__all__ = [
    "QUERY_METRIC_TOOL_NAME",
    "STATUS_FOUND",
    "STATUS_NOT_FOUND",
    "STATUS_UNRECOGNIZED",
    "ToolResult",
    "build_query_metric_tool_anthropic",
    "build_query_metric_tool_openai",
    "execute_query_metric",
    "lookup",
    "normalize",
    "query_metric_spec",
    "resolve",
]


def normalize(
    metric: str | None,
    entity: str | None,
    period: str | None,
    channel: str | None,
    *,
    profile: DomainProfile,
    reference_date: date | None = None,
) -> Slots | UnrecognizedParam:
    """Raw tool arguments as typed slots, or the first parameter the glossary cannot read.

    Only for calls a model makes; the agent's own queries are typed from the start.
    """
    glossary = glossary_for(profile)
    metric_code = glossary.normalize_metric(metric)
    if metric_code is None:
        return UnrecognizedParam("metric", metric or "")
    entity_code = glossary.normalize_entity(entity)
    if entity_code is None:
        return UnrecognizedParam("entity", entity or "")
    parsed_period = glossary.normalize_period(period, reference_date)
    if parsed_period is None:
        return UnrecognizedParam("period", period or "")
    channel_code = glossary.normalize_channel(channel or profile.defaults.channel)
    if channel_code is None:
        return UnrecognizedParam("channel", channel or "")
    return Slots(metric_code, entity_code, parsed_period, channel_code)


def resolve(slots: Slots, *, profile: DomainProfile) -> Slots | UnrecognizedParam:
    """Slots a parser named — codes or aliases — as the profile's codes; the period is typed.

    The rule parser already returns codes (they map to themselves); a custom parser may name a
    slot by any alias, and a name the glossary cannot read is reported, never guessed.
    """
    glossary = glossary_for(profile)
    if glossary.are_codes(slots.metric, slots.entity, slots.channel):
        return slots  # the rule parser's slots always are
    metric = glossary.normalize_metric(slots.metric)
    if metric is None:
        return UnrecognizedParam("metric", slots.metric)
    entity = glossary.normalize_entity(slots.entity)
    if entity is None:
        return UnrecognizedParam("entity", slots.entity)
    channel = glossary.normalize_channel(slots.channel)
    if channel is None:
        return UnrecognizedParam("channel", slots.channel)
    return Slots(metric, entity, slots.period, channel)


def lookup(
    store: FactStoreProtocol, slots: Slots, *, clearance: Sensitivity = DEFAULT_CLEARANCE
) -> FoundFact | FactNotFound:
    """The visible fact for exactly ``slots`` (found, with lineage) or not_found."""
    fact = store.get_fact(
        slots.metric,
        slots.entity,
        slots.period.type,
        slots.period.period,
        slots.channel,
        clearance=clearance,
    )
    if fact is None:
        return FactNotFound(slots)
    source = Source(
        fact.source_doc_id,
        fact.source_locator,
        Sensitivity.parse(fact.sensitivity),
        SourceKind.FACT,
    )
    return FoundFact(slots, fact.value, fact.unit, source, fact.row_label)


def execute_query_metric(
    store: FactStoreProtocol,
    metric: str | None,
    entity: str | None,
    period: str | None,
    channel: str | None = "TOTAL",
    *,
    profile: DomainProfile,
    reference_date: date | None = None,
    clearance: Sensitivity = DEFAULT_CLEARANCE,
) -> ToolResult:
    """The tool as a model calls it: normalise the raw arguments, then look the fact up."""
    slots = normalize(
        metric, entity, period, channel, profile=profile, reference_date=reference_date
    )
    if isinstance(slots, UnrecognizedParam):
        return slots
    return lookup(store, slots, clearance=clearance)


def query_metric_spec(profile: DomainProfile) -> dict[str, object]:
    """The provider-neutral tool spec; its examples come from the active profile."""
    metrics = ", ".join(m.code for m in profile.metrics)
    entities = ", ".join(e.code for e in profile.entities)
    channels = ", ".join(c.code for c in profile.channels)
    return {
        "name": QUERY_METRIC_TOOL_NAME,
        "description": (
            f"Look up one reported figure of {profile.home_company_name} in the fact table. "
            "Returns status found (value, unit, source, the document's row label), not_found, "
            "or unrecognized_param. "
            "Never estimate a figure the tool did not return."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "metric": {"type": "string", "description": f"Metric code, one of: {metrics}"},
                "entity": {"type": "string", "description": f"Entity code, one of: {entities}"},
                "period": {
                    "type": "string",
                    "description": "Period such as FY2024, 2025H1 or 2025Q3",
                },
                "channel": {
                    "type": "string",
                    "description": f"Channel code, one of: {channels}",
                    "default": profile.defaults.channel,
                },
            },
            "required": ["metric", "entity", "period"],
        },
    }


def build_query_metric_tool_anthropic(profile: DomainProfile) -> dict[str, object]:
    return to_anthropic_tool(query_metric_spec(profile))


def build_query_metric_tool_openai(profile: DomainProfile) -> dict[str, object]:
    return to_openai_tool(query_metric_spec(profile))


def __getattr__(name: str) -> Any:
    """The seeds' pre-built schemas, for the shipped example profile, built on first access.

    Nothing is loaded at import time; code with its own profile calls the builders.
    """
    builders = {
        "QUERY_METRIC_TOOL_ANTHROPIC": build_query_metric_tool_anthropic,
        "QUERY_METRIC_TOOL_OPENAI": build_query_metric_tool_openai,
    }
    if name not in builders:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ragspine.profile.loader import load_profile

    return builders[name](load_profile())
