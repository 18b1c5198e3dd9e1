"""``query_metric``: the structured channel's only fact-producing primitive.

Every parameter goes through the glossary; the result is one of exactly three payloads —
``found`` (value, unit, codes and lineage), ``not_found`` (all parameters normalised, no row)
or ``unrecognized_param`` (the glossary returned None for one parameter). It never guesses.
"""

from __future__ import annotations

from datetime import date

from ragspine.agent.llm_provider import to_anthropic_tool, to_openai_tool
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_store import FactStoreProtocol

QUERY_METRIC_TOOL_NAME = "query_metric"

STATUS_FOUND = "found"
STATUS_NOT_FOUND = "not_found"
STATUS_UNRECOGNIZED = "unrecognized_param"

ToolResult = dict[str, object]


def execute_query_metric(
    store: FactStoreProtocol,
    metric: str | None,
    entity: str | None,
    period: str | None,
    channel: str | None = "TOTAL",
    *,
    reference_date: date | None = None,
    clearance: Sensitivity = DEFAULT_CLEARANCE,
    profile: DomainProfile | None = None,
) -> ToolResult:
    glossary = glossary_for(profile or load_profile())
    metric_code = glossary.normalize_metric(metric)
    if metric_code is None:
        return _unrecognized("metric", metric)
    entity_code = glossary.normalize_entity(entity)
    if entity_code is None:
        return _unrecognized("entity", entity)
    parsed_period = glossary.normalize_period(period, reference_date)
    if parsed_period is None:
        return _unrecognized("period", period)
    channel_code = glossary.normalize_channel(channel or glossary.profile.defaults.channel)
    if channel_code is None:
        return _unrecognized("channel", channel)

    fact = store.get_fact(
        metric_code,
        entity_code,
        parsed_period.type,
        parsed_period.period,
        channel_code,
        clearance=clearance,
    )
    if fact is None:
        return {
            "status": STATUS_NOT_FOUND,
            "normalized": {
                "metric_code": metric_code,
                "entity": entity_code,
                "period_type": parsed_period.type,
                "period": parsed_period.period,
                "period_label": parsed_period.label,
                "channel": channel_code,
            },
        }
    return {
        "status": STATUS_FOUND,
        "value": fact.value,
        "unit": fact.unit,
        "metric_code": fact.metric_code,
        "entity": fact.entity,
        "period_type": fact.period_type,
        "period": fact.period,
        "period_label": parsed_period.label,
        "channel": fact.channel,
        "source": {"doc": fact.source_doc_id, "locator": fact.source_locator},
    }


def _unrecognized(param: str, raw: str | None) -> ToolResult:
    return {"status": STATUS_UNRECOGNIZED, "param": param, "raw": raw or ""}


def query_metric_spec(profile: DomainProfile | None = None) -> dict[str, object]:
    """The provider-neutral tool spec; its examples come from the active profile."""
    profile = profile or load_profile()
    metrics = ", ".join(m.code for m in profile.metrics)
    entities = ", ".join(e.code for e in profile.entities)
    channels = ", ".join(c.code for c in profile.channels)
    return {
        "name": QUERY_METRIC_TOOL_NAME,
        "description": (
            f"Look up one reported figure of {profile.home_company_name} in the fact table. "
            "Returns status found (value, unit, source), not_found, or unrecognized_param. "
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


def build_query_metric_tool_anthropic(profile: DomainProfile | None = None) -> dict[str, object]:
    return to_anthropic_tool(query_metric_spec(profile))


def build_query_metric_tool_openai(profile: DomainProfile | None = None) -> dict[str, object]:
    return to_openai_tool(query_metric_spec(profile))


QUERY_METRIC_TOOL_ANTHROPIC = build_query_metric_tool_anthropic()
QUERY_METRIC_TOOL_OPENAI = build_query_metric_tool_openai()
