"""The seams every store implements (SQLite embedded, PostgreSQL for scale-out): facts, and
the workspace store that adds ingestion's manifest, text blocks, chunks and review queue."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    AuditEntry,
    DocumentRecord,
    DocumentSummary,
    PendingValue,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)
from ragspine.storage.facts import DEFAULT_CHANNEL, Fact, FactKey, ReviewStatus


@runtime_checkable
class FactStoreProtocol(Protocol):
    """Facts keyed by (metric, entity, period_type, period, channel) plus their source document.

    Storage errors surface as :class:`ragspine.errors.StoreError`; a malformed request (such as
    a fact filed under the wrong document) as ``ValueError``. Queries (``get_fact``,
    ``available_periods``) only ever see approved facts the caller's clearance allows.
    """

    def init_schema(self) -> None:
        """Create what the store needs; safe to call on every start."""
        ...

    def upsert_facts(self, facts: Iterable[Fact]) -> int:
        """Insert or replace by (natural key, source_doc_id) in one transaction; rows written."""
        ...

    def replace_document_facts(self, doc_id: str, facts: Sequence[Fact]) -> int:
        """Swap all of ``doc_id``'s facts for ``facts`` atomically; rows written.

        Every fact must belong to ``doc_id`` (``ValueError`` otherwise, before anything is
        written); if any row fails, the document keeps its previous facts.
        """
        ...

    def delete_document(self, doc_id: str) -> int:
        """Remove every fact of ``doc_id``; rows deleted."""
        ...

    def get_fact(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> Fact | None:
        """The approved fact for the key that ``clearance`` may see, or ``None``.

        When several documents hold one, the most sensitive wins (an upload that conflicted
        with a fact above its writer's clearance is stored beside it: each caller is answered
        from the most sensitive it may see), then the most recently ingested (ties: the
        smallest ``source_doc_id``), so the answer never depends on row order.
        """
        ...

    def list_facts(
        self, *, doc_id: str | None = None, review_status: ReviewStatus | None = None
    ) -> list[Fact]:
        """Every fact matching the filters, whatever its sensitivity, in a fixed order.

        For ingestion and review tooling; answers go through ``get_fact``.
        """
        ...

    def set_review_status(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str,
        source_doc_id: str,
        status: ReviewStatus,
    ) -> bool:
        """Set one fact's review status; ``False`` when no such fact exists."""
        ...

    def available_periods(
        self,
        metric_code: str,
        entity: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, str]]:
        """Sorted distinct (period_type, period) pairs with a visible approved fact."""
        ...

    def count_facts(self) -> int:
        """All stored facts, whatever their status or sensitivity."""
        ...

    def close(self) -> None:
        """Release the connection; calling it twice is harmless."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


@runtime_checkable
class WorkspaceStoreProtocol(FactStoreProtocol, Protocol):
    """Facts plus everything else ingestion writes, one document at a time.

    Every write that touches a document (replace, metadata update, removal, a review decision)
    is one transaction: a reader never sees half a document, and a failure leaves the previous
    state. The behaviour is pinned by ``tests/storage`` on every backend.
    """

    read_only: bool

    def snapshot(self) -> AbstractContextManager[None]:
        """Run the block's reads against one commit; nests by joining."""
        ...

    def get_document(self, doc_id: str) -> DocumentRecord | None: ...

    def list_documents(self) -> list[DocumentRecord]: ...

    def replace_document(
        self,
        record: DocumentRecord,
        facts: Sequence[Fact],
        blocks: Sequence[TextBlockRow],
        review: Sequence[ReviewItem],
        chunks: Sequence[Chunk] = (),
        *,
        replaces: str | None = None,
        override_note: str = "",
    ) -> None:
        """Swap in everything one document contributes (see ``SQLiteWorkspaceStore``)."""
        ...

    def update_document_metadata(
        self, doc_id: str, metadata_hash: str, sensitivity: str, *, override_note: str = ""
    ) -> None: ...

    def remove_document(self, doc_id: str) -> bool: ...

    def document_summaries(self) -> list[DocumentSummary]: ...

    def approved_values(self, key: FactKey, exclude_docs: Collection[str]) -> list[Fact]: ...

    def list_blocks(self, doc_id: str | None = None) -> list[TextBlockRow]: ...

    def count_blocks(self) -> int: ...

    def list_chunks(self, doc_id: str | None = None) -> list[Chunk]: ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]: ...

    def held_locators(self) -> dict[str, tuple[str, ...]]: ...

    def chunk_state(self) -> str: ...

    def list_review(
        self, state: ReviewState | None = None, *, doc_id: str | None = None
    ) -> list[ReviewItem]: ...

    def get_review(self, item_id: int) -> ReviewItem | None: ...

    def resolve_review(
        self,
        item_id: int,
        state: ReviewState,
        *,
        fact: Fact | None = None,
        superseded: Sequence[Fact] = (),
        corrected_value: float | None = None,
        note: str = "",
    ) -> None: ...

    def pending_values(self, key: FactKey, *, clearance: Sensitivity) -> list[PendingValue]: ...

    def document_audit(self, doc_id: str) -> list[AuditEntry]: ...

    def audit_log(self, item_id: int | None = None) -> list[AuditEntry]: ...
