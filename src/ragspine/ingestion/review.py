"""Review decisions: approve (optionally with a corrected value) or reject a queued item.

Decisions are idempotent — approving an approved item again changes nothing — and every
applied decision is written to the audit log in the same transaction as its effect.
"""

from __future__ import annotations

import math

from ragspine.errors import ReviewError
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.facts import Fact, ReviewStatus, utc_timestamp
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


def approve(
    store: SQLiteWorkspaceStore, item_id: int, *, correct: float | None = None
) -> tuple[ReviewItem, bool]:
    """Approve an item; returns the item and whether anything changed."""
    item = _get(store, item_id)
    if item.state == ReviewState.APPROVED and (correct is None or correct == item.corrected_value):
        return item, False
    if item.state == ReviewState.REJECTED:
        raise ReviewError(f"review item {item_id} was rejected; it cannot be approved now")
    if item.proposed is None:
        raise ReviewError(
            f"review item {item_id} ({item.reason}) has no fact to approve; fix the source or "
            "the profile (e.g. add the missing alias) and ingest the document again"
        )
    if correct is not None and not math.isfinite(correct):
        raise ReviewError(f"--correct must be a finite number, not {correct!r}")
    fact = _fact(item.proposed, correct)
    superseded = [
        other
        for other in store.approved_values(fact.natural_key, exclude_doc=fact.source_doc_id)
        if not math.isclose(other.value, fact.value, rel_tol=1e-9, abs_tol=1e-9)
    ]
    note = f"value {fact.value:g} {fact.unit}"
    if correct is not None:
        note += f" (corrected from {item.proposed['value']})"
    if superseded:
        note += "; superseded " + ", ".join(f"{o.source_doc_id} {o.value:g}" for o in superseded)
    store.resolve_review(
        item_id,
        ReviewState.APPROVED,
        fact=fact,
        superseded=superseded,
        corrected_value=correct,
        note=note,
    )
    return _get(store, item_id), True


def reject(store: SQLiteWorkspaceStore, item_id: int, *, note: str = "") -> tuple[ReviewItem, bool]:
    item = _get(store, item_id)
    if item.state == ReviewState.REJECTED:
        return item, False
    if item.state == ReviewState.APPROVED:
        raise ReviewError(f"review item {item_id} was approved; it cannot be rejected now")
    store.resolve_review(item_id, ReviewState.REJECTED, note=note or "rejected")
    return _get(store, item_id), True


def _fact(proposed: dict[str, object], correct: float | None) -> Fact:
    def text(key: str) -> str:
        return str(proposed[key])

    def optional(key: str) -> str | None:
        value = proposed.get(key)
        return None if value is None else str(value)

    value = correct if correct is not None else float(text("value"))
    return Fact(
        text("metric_code"),
        text("entity"),
        text("geography"),
        text("channel"),
        text("period_type"),
        text("period"),
        value,
        text("unit"),
        text("source_doc_id"),
        text("source_locator"),
        sensitivity=text("sensitivity"),
        review_status=ReviewStatus.APPROVED.value,
        source_file_hash=optional("source_file_hash"),
        extractor_version=optional("extractor_version"),
        mapping_version=optional("mapping_version"),
        ingested_at=utc_timestamp(),
    )


def _get(store: SQLiteWorkspaceStore, item_id: int) -> ReviewItem:
    item = store.get_review(item_id)
    if item is None:
        raise ReviewError(f"no review item {item_id}")
    return item
