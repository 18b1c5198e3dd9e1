"""Render answers from tool results: numbers come only from facts or our own arithmetic."""

from __future__ import annotations

import math

from ragspine.agent.messages import Messages
from ragspine.agent.types import FactNotFound, FoundFact, Slots, ToolResult, UnrecognizedParam
from ragspine.storage.documents import PendingValue


def format_number(value: float, *, signed: bool = False) -> str:
    """1320.0 → "1320", 12.50 → "12.5"; ``signed`` adds "+" to non-negative values."""
    if not math.isfinite(value):
        raise ValueError(f"cannot render non-finite value {value!r}")
    rounded = round(value, 6)
    if rounded == int(rounded):
        text = str(int(rounded))
    else:
        text = f"{rounded:.6f}".rstrip("0").rstrip(".")
    if text == "-0":
        text = "0"
    return f"+{text}" if signed and not text.startswith("-") else text


def subject(slots: Slots, default_channel: str, language: str) -> str:
    """``ENTITY PERIOD METRIC``, plus the channel when it is not the default one."""
    head = f"{slots.entity} {slots.period.label} {slots.metric}"
    if slots.channel and slots.channel != default_channel:
        head += f"（{slots.channel}）" if language == "zh" else f" ({slots.channel})"
    return head


def render_result(result: ToolResult, msgs: Messages, default_channel: str, language: str) -> str:
    """One answer line for one tool result; the value text comes from the fact itself."""
    if isinstance(result, FoundFact):
        return msgs.found(
            subject(result.slots, default_channel, language),
            format_number(result.value),
            result.unit,
            result.source.doc,
            result.source.locator,
        )
    if isinstance(result, FactNotFound):
        slots = result.slots
        return msgs.not_found(slots.metric, slots.entity, slots.period.label, slots.channel)
    if isinstance(result, UnrecognizedParam):
        return msgs.unrecognized(result.param, result.raw)
    return msgs.unrecognized("tool", result.message)


def render_pending(
    found: FoundFact, pending: PendingValue, msgs: Messages, default_channel: str, language: str
) -> str:
    """The disclosure under a found fact: another value for its key waits in review."""
    return msgs.pending_value(
        subject(found.slots, default_channel, language),
        format_number(pending.value),
        pending.unit,
        pending.doc_id,
        pending.locator,
    )


def percent_change(later: float, earlier: float) -> str | None:
    """Relative change as "+13.6%", or None when the base is zero (no meaningful ratio)."""
    if earlier == 0:
        return None
    return f"{(later - earlier) / abs(earlier) * 100:+.1f}%"
