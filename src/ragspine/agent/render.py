"""Render answers from tool results: numbers come only from facts or our own arithmetic.

Values, units and names are shown as a person reads them in the question's language
(``profile.display``): ``<entity> FY2025 <metric>: US$ 2,850 m (source: …)``, never unit or
profile codes. A found figure's line also names the row it was read from, as the document
labels it, beside the metric's name (``Cost of sales (row "Cost of sales excluding
depreciation")``), unless that label is the metric's name itself.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from ragspine.agent.messages import Messages
from ragspine.agent.types import FactNotFound, FoundFact, Slots, ToolResult, UnrecognizedParam
from ragspine.profile.display import Names
from ragspine.profile.memo import Memo, memo_for
from ragspine.storage.documents import PendingValue


def subject(slots: Slots, default_channel: str, names: Names) -> str:
    """``ENTITY PERIOD METRIC`` by name, plus the channel when it is not the default one
    (remembered per profile object: a found figure's line and its pending values' name the
    same few subjects in every answer, and naming one is a dozen calls)."""
    period = slots.period
    key = (
        slots.metric,
        slots.entity,
        period.year,
        period.type,
        slots.channel,
        default_channel,
        names.language,
    )
    memo: Memo[str] = memo_for(names.profile, "subject")
    return memo.get(key, lambda: _subject(slots, default_channel, names))


def _subject(slots: Slots, default_channel: str, names: Names) -> str:
    head = f"{names.entity(slots.entity)} {slots.period.label} {names.metric(slots.metric)}"
    if slots.channel and slots.channel != default_channel:
        channel = names.channel(slots.channel)
        head += f"（{channel}）" if names.language == "zh" else f" ({channel})"
    return head


def series_name(slots: Slots, default_channel: str, names: Names) -> str:
    """``ENTITY METRIC`` by name (and the channel when it is not the default one): the series a
    change over periods belongs to."""
    head = f"{names.entity(slots.entity)} {names.metric(slots.metric)}"
    if slots.channel and slots.channel != default_channel:
        channel = names.channel(slots.channel)
        head += f"（{channel}）" if names.language == "zh" else f" ({channel})"
    return head


def found_subject(found: FoundFact, msgs: Messages, default_channel: str, names: Names) -> str:
    """The subject of a found figure's line, with the document's label of its row when that
    label says more than the metric's name."""
    head = subject(found.slots, default_channel, names)
    label = found.row_label
    if label is None or _same_words(label, names.metric(found.slots.metric)):
        return head
    return msgs.row_labelled(head, label)


def _same_words(first: str, second: str) -> bool:
    return _words(first) == _words(second)


@lru_cache(maxsize=4096)  # row labels and metric names: a few per document, read per answer
def _words(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def render_result(result: ToolResult, msgs: Messages, default_channel: str, names: Names) -> str:
    """One answer line for one tool result; the value text comes from the fact itself."""
    if isinstance(result, FoundFact):
        return msgs.found(
            found_subject(result, msgs, default_channel, names),
            names.value(result.value, result.unit),
            result.source.doc,
            result.source.locator,
        )
    if isinstance(result, FactNotFound):
        slots = result.slots
        return msgs.not_found(
            names.metric(slots.metric),
            names.entity(slots.entity),
            slots.period.label,
            names.channel(slots.channel),
        )
    if isinstance(result, UnrecognizedParam):
        return msgs.unrecognized(result.param, result.raw)
    return msgs.unrecognized("tool", result.message)


def render_pending(
    found: FoundFact, pending: PendingValue, msgs: Messages, default_channel: str, names: Names
) -> str:
    """The disclosure under a found fact: another value for its key waits in review."""
    return msgs.pending_value(
        subject(found.slots, default_channel, names),
        names.value(pending.value, pending.unit),
        pending.doc_id,
        pending.locator,
    )
