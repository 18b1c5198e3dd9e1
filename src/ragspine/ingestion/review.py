"""Review decisions: approve (optionally with a corrected value) or reject a queued item.

Approving a ``suspicious_instruction`` item writes no fact: it releases the held passage, which
retrieval admits from then on; rejecting it keeps the passage out for good.

Decisions are idempotent — approving an approved item again changes nothing — and every
applied decision is written to the audit log in the same transaction as its effect. When a
document is ingested again (or renamed), a decision outlives the old version for every item
that is unchanged: same locator, same reason, same proposed fact (:func:`carry_over`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragspine.errors import ReviewError
from ragspine.ingestion.tables import ReviewReason
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.facts import Fact, ReviewStatus, utc_timestamp
from ragspine.storage.protocol import WorkspaceStoreProtocol


def approve(
    store: WorkspaceStoreProtocol, item_id: int, *, correct: float | None = None
) -> tuple[ReviewItem, bool]:
    """Approve an item; returns the item and whether anything changed."""
    item = _get(store, item_id)
    if item.state == ReviewState.APPROVED and (correct is None or correct == item.corrected_value):
        return item, False
    if item.state == ReviewState.REJECTED:
        raise ReviewError(f"review item {item_id} was rejected; it cannot be approved now")
    if item.reason == ReviewReason.SUSPICIOUS_INSTRUCTION:
        return _release(store, item, correct)
    if item.proposed is None and item.reason == ReviewReason.UNMAPPED_LABEL:
        raise ReviewError(
            f"review item {item_id} ({item.reason}) has no fact to approve; map its label: "
            f"`ragspine review map {item_id} --metric CODE` (or --new-metric, --entity, "
            "--channel)"
        )
    if item.proposed is None:
        raise ReviewError(
            f"review item {item_id} ({item.reason}) has no fact to approve; fix the source or "
            "the profile and ingest the document again"
        )
    if correct is not None and not math.isfinite(correct):
        raise ReviewError(f"--correct must be a finite number, not {correct!r}")
    fact = fact_from_proposal(item.proposed, correct)
    # Only facts the item's level covers: one above it the reviewer was never shown, and
    # across clearances a disagreement stands until someone cleared for both decides it.
    covered = Sensitivity.parse(item.sensitivity)
    superseded = [
        other
        for other in store.approved_values(fact.natural_key, exclude_docs=[fact.source_doc_id])
        if not math.isclose(other.value, fact.value, rel_tol=1e-9, abs_tol=1e-9)
        and covered.allows(Sensitivity.parse(other.sensitivity))
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


def _release(
    store: WorkspaceStoreProtocol, item: ReviewItem, correct: float | None
) -> tuple[ReviewItem, bool]:
    """Approve a held passage: it proposes no fact, and approving makes it retrievable."""
    if correct is not None:
        raise ReviewError(
            f"review item {item.item_id} ({item.reason}) holds a passage, not a value; "
            "approve it without --correct"
        )
    store.resolve_review(item.item_id, ReviewState.APPROVED, note="passage released")
    return _get(store, item.item_id), True


def reject(
    store: WorkspaceStoreProtocol, item_id: int, *, note: str = ""
) -> tuple[ReviewItem, bool]:
    item = _get(store, item_id)
    if item.state == ReviewState.REJECTED:
        return item, False
    if item.state == ReviewState.APPROVED:
        raise ReviewError(f"review item {item_id} was approved; it cannot be rejected now")
    store.resolve_review(item_id, ReviewState.REJECTED, note=note or "rejected")
    return _get(store, item_id), True


# What identifies the document version rather than the statement: a renamed or edited file
# changes these without changing what the reviewer judged.
# The row label only describes the locator's line (and items proposed before it was kept
# have none), so it is not part of the statement either.
_VERSION_FIELDS = frozenset(
    {
        "source_doc_id",
        "source_file_hash",
        "extractor_version",
        "mapping_version",
        "sensitivity",
        "row_label",
    }
)


@dataclass(frozen=True)
class CarriedOver:
    """A new version's review items, unchanged ones continuing their earlier item."""

    items: list[ReviewItem]
    facts: list[Fact]  # what the carried approvals write
    decisions: int  # approvals and rejections carried


def visible_to(items: Sequence[ReviewItem], clearance: Sensitivity) -> list[ReviewItem]:
    """The items a reviewer with ``clearance`` may see (the others do not exist for them)."""
    return [item for item in items if clearance.allows(Sensitivity.parse(item.sensitivity))]


def carry_over(earlier: Sequence[ReviewItem], fresh: Sequence[ReviewItem]) -> CarriedOver:
    """Match ``fresh`` items to the ``earlier`` ones of the document they replace.

    A match keeps the earlier item's id, state and correction; an approved match also yields
    its fact again, built from the new proposal so it names the new version. Unmatched items
    start open.
    """
    pool: dict[tuple[str, str, str], list[ReviewItem]] = {}
    for item in earlier:
        pool.setdefault(_identity(item), []).append(item)
    items: list[ReviewItem] = []
    facts: list[Fact] = []
    decisions = 0
    for item in fresh:
        matches = pool.get(_identity(item))
        if not matches:
            items.append(item)
            continue
        old = matches.pop(0)
        items.append(
            replace(
                item,
                item_id=old.item_id,
                state=old.state,
                created_at=old.created_at,
                resolved_at=old.resolved_at,
                corrected_value=old.corrected_value,
            )
        )
        if old.state is not ReviewState.OPEN:
            decisions += 1
        if old.state is ReviewState.APPROVED and item.proposed is not None:
            facts.append(fact_from_proposal(item.proposed, old.corrected_value))
    return CarriedOver(items, facts, decisions)


def _identity(item: ReviewItem) -> tuple[str, str, str]:
    statement = (
        {k: v for k, v in item.proposed.items() if k not in _VERSION_FIELDS}
        if item.proposed is not None
        else None
    )
    return item.locator, item.reason, json.dumps(statement, sort_keys=True, default=str)


def fact_from_proposal(proposed: dict[str, object], correct: float | None) -> Fact:
    """The approved fact an item proposes, with ``correct`` as its value when given."""

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
        row_label=optional("row_label"),
    )


def _get(store: WorkspaceStoreProtocol, item_id: int) -> ReviewItem:
    item = store.get_review(item_id)
    if item is None:
        raise ReviewError(f"no review item {item_id}")
    return item
