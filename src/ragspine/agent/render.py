"""Render answers from tool results: numbers come only from facts or our own arithmetic."""

from __future__ import annotations

import math

from ragspine.agent.messages import Messages
from ragspine.agent.query_tools import STATUS_FOUND, STATUS_NOT_FOUND, ToolResult


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


def subject(result: ToolResult, default_channel: str, language: str) -> str:
    period = str(result.get("period_label") or result.get("period"))
    head = f"{result['entity']} {period} {result['metric_code']}"
    channel = str(result.get("channel"))
    if channel and channel != default_channel:
        head += f"（{channel}）" if language == "zh" else f" ({channel})"
    return head


def render_result(result: ToolResult, msgs: Messages, default_channel: str, language: str) -> str:
    """One answer line for one tool result; the value text comes from the fact itself."""
    if result["status"] == STATUS_FOUND:
        source = result["source"]
        assert isinstance(source, dict)
        value = result["value"]
        assert isinstance(value, int | float)
        return msgs.found(
            subject(result, default_channel, language),
            format_number(float(value)),
            str(result["unit"]),
            str(source["doc"]),
            str(source["locator"]),
        )
    if result["status"] == STATUS_NOT_FOUND:
        normalized = result["normalized"]
        assert isinstance(normalized, dict)
        return msgs.not_found(
            str(normalized["metric_code"]),
            str(normalized["entity"]),
            str(normalized.get("period_label") or normalized["period"]),
            str(normalized["channel"]),
        )
    return msgs.unrecognized(str(result.get("param")), str(result.get("raw")))


def percent_change(later: float, earlier: float) -> str | None:
    """Relative change as "+13.6%", or None when the base is zero (no meaningful ratio)."""
    if earlier == 0:
        return None
    return f"{(later - earlier) / abs(earlier) * 100:+.1f}%"
