"""Reading a follow-up again over the slots it inherits (``agent.conversation``): whether
"and excluding <a unit>?" or "哪个地区最高？" asks for a computation over the previous turn's
metric, entity and period, and whether "and quarterly?" asks for nothing finer than the
period already answered."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from ragspine.agent.parse import Given, parse_intent
from ragspine.agent.period_breakdown import BREAKDOWN_PREFIX
from ragspine.agent.types import AnalysisOp, ParsedIntent
from ragspine.profile.model import DomainProfile

if TYPE_CHECKING:
    from ragspine.agent.conversation import Context

__all__ = ["breakdown_no_finer", "computation_asked", "left_out"]


def computation_asked(
    intent: ParsedIntent, context: Context, profile: DomainProfile | None, day: date | None
) -> ParsedIntent | None:
    """The question read again with the previous turn's metric (and the entity and period it
    names none of), when it names no metric and that reading asks for a computation: a
    ranking, total, exclusion, average, … or a cue nothing computes beside one ("excluding
    a unit and its share"). ``None`` for any other question, or without a profile."""
    if profile is None or intent.metrics or intent.unknown_metrics or not context.metrics:
        return None
    if intent.analysis is not None:  # a cue nothing computes was read already
        return None
    given = Given(
        context.metrics,
        context.entities if left_out(intent, "entity", context) else (),
        context.periods if left_out(intent, "period", context) else intent.periods,
    )
    again = parse_intent(intent.raw_question, day, profile=profile, given=given)
    return again if again.analysis is not None else None


def breakdown_no_finer(
    intent: ParsedIntent, context: Context, profile: DomainProfile | None, day: date | None
) -> bool:
    """Whether the question names no metric nor period and asks only for a breakdown ("and
    quarterly?") that the previous turn's period is no longer than: read over that period,
    it asks for no computation."""
    analysis = intent.analysis
    if (
        profile is None
        or analysis is None
        or analysis.op is not AnalysisOp.UNSUPPORTED
        or not all(word.startswith(BREAKDOWN_PREFIX) for word in analysis.unsupported)
        or intent.metrics
        or not context.metrics
        or not left_out(intent, "period", context)
    ):
        return False
    given = Given(context.metrics, (), context.periods)
    return parse_intent(intent.raw_question, day, profile=profile, given=given).analysis is None


def left_out(intent: ParsedIntent, slot: str, context: Context) -> bool:
    """Whether the question names no ``slot`` ("entity" or "period") and the context does."""
    if slot == "entity":
        named = intent.entities or intent.unknown_entities or intent.external_entity
        return not named and bool(context.entities)
    named_period = intent.periods or intent.unknown_periods or intent.long_range or intent.latest
    return not named_period and bool(context.periods)
