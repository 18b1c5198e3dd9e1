"""What ingestion stores besides facts: the manifest, text blocks and the review queue."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from ragspine.errors import ReviewError
from ragspine.profile.sensitivity import Sensitivity


@dataclass(frozen=True)
class DocumentRecord:
    """One manifest row: which bytes, metadata and code versions produced a document's rows.

    A file is skipped when its content hash, metadata hash and both versions are unchanged.
    """

    doc_id: str
    source_path: str
    content_hash: str
    metadata_hash: str
    size_bytes: int
    kind: str
    sensitivity: str
    extractor_version: str
    mapping_version: str
    ingested_at: str = ""
    n_facts: int = 0
    n_blocks: int = 0
    n_review: int = 0
    # The level the file's name and content call for, before its sidecar: what a metadata-only
    # update combines the new sidecar with. '' for documents ingested before it was stored.
    content_sensitivity: str = ""
    # Hidden cells, slides or text runs the reader skipped (0 for documents read before it
    # counted them).
    n_hidden: int = 0


@dataclass(frozen=True)
class DocumentSummary:
    """What ``ragspine documents list`` shows of one document: its counts as stored now."""

    doc_id: str
    kind: str
    facts: int
    chunks: int
    open_review: int
    ingested_at: str
    sensitivity: str
    source_path: str
    hidden: int = 0  # hidden cells, slides or text runs skipped when it was read


@dataclass(frozen=True)
class TextBlockRow:
    """Prose from a document at one structural position, with the codes it mentions."""

    doc_id: str
    position: int
    locator: str
    kind: str
    title: str
    text: str
    sensitivity: str
    language: str
    entities: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()


# The review reason that holds a passage out of retrieval until approved; the ingestion
# vocabulary (``ingestion.tables.ReviewReason``) names it, the store filters on it.
SUSPICIOUS_INSTRUCTION = "suspicious_instruction"
CONFLICT = "conflict"
# A conflict with a fact above the writer's clearance: the writer's fact was stored all the
# same, and the item is as sensitive as the fact it names (see ``ingestion.conflicts``).
CLEARANCE_CONFLICT = "clearance_conflict"
# The reasons whose item proposes a different value for a key that already holds a fact.
CONFLICTS = (CONFLICT, CLEARANCE_CONFLICT)


class ReviewState(StrEnum):
    OPEN = "open"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class ReviewItem:
    """Something ingestion would not decide alone. ``proposed`` is the fact it would write.

    An item handed to the store with an ``item_id`` continues that earlier item of the same
    document (re-ingested or renamed), keeping its id, its decision and its audit trail.
    """

    doc_id: str
    locator: str
    reason: str
    detail: str
    proposed: dict[str, object] | None = None
    item_id: int = 0
    state: ReviewState = ReviewState.OPEN
    sensitivity: str = "INTERNAL"
    created_at: str = ""
    resolved_at: str = ""
    corrected_value: float | None = None


def check_decidable(
    item_id: int, current: str | None, state: ReviewState, corrected_value: float | None
) -> None:
    """Refuse a decision on an item decided since its caller read it (two reviewers at once):
    only an open item is decided, or an approval corrected; the later decision is a
    ``ReviewError`` (HTTP 409) and the audit keeps the one made."""
    if current is None or current == ReviewState.OPEN.value:
        return
    if current == state.value == ReviewState.APPROVED.value and corrected_value is not None:
        return
    raise ReviewError(
        f"review item {item_id} was {current} meanwhile; it cannot be {state.value} now"
    )


@dataclass(frozen=True)
class AuditEntry:
    item_id: int
    action: str
    detail: str
    at: str


@dataclass(frozen=True)
class PendingValue:
    """A different value for a fact's key that waits in review (a ``conflict`` item), with the
    document and locator that state it: what an answer discloses beside the approved fact."""

    value: float
    unit: str
    doc_id: str
    locator: str
    sensitivity: str


@runtime_checkable
class PendingConflicts(Protocol):
    """A store that keeps a review queue and can list the pending values of a fact's key."""

    def pending_values(
        self, key: tuple[str, str, str, str, str], *, clearance: Sensitivity
    ) -> list[PendingValue]: ...
