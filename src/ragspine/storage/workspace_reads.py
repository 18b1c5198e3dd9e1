"""The reads both workspace stores run the same way, written once: the manifest, text blocks,
chunks, the review queue and the audit logs. A store mixes :class:`WorkspaceReads` in after its
fact store, which supplies ``_query`` (see ``sql_facts``); the reads that differ (batched chunk
lookups, the conflict check's exclusion list, caching) stay on each store."""

from __future__ import annotations

import hashlib
from typing import ClassVar

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    CONFLICT,
    SUSPICIOUS_INSTRUCTION,
    AuditEntry,
    DocumentRecord,
    DocumentSummary,
    PendingValue,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)
from ragspine.storage.facts import FactKey
from ragspine.storage.sql_facts import SQLFacts
from ragspine.storage.workspace_rows import (
    BLOCK_COLUMNS,
    CHUNK_SELECT,
    DOC_COLUMNS,
    REVIEW_COLUMNS,
    block_from_row,
    chunk_from_row,
    review_from_row,
)


class WorkspaceReads(SQLFacts):
    """Workspace reads over ``_query`` in the store's ``_dialect``."""

    # What lists a document's chunks in the order they were written (SQLite's rowid,
    # PostgreSQL's identity column).
    _chunk_order: ClassVar[str]

    # --- documents ---------------------------------------------------------------------

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        m = self._dialect.mark
        rows = self._query(f"SELECT {DOC_COLUMNS} FROM documents WHERE doc_id = {m}", (doc_id,))
        return DocumentRecord(*rows[0]) if rows else None

    def list_documents(self) -> list[DocumentRecord]:
        rows = self._query(f"SELECT {DOC_COLUMNS} FROM documents ORDER BY doc_id")
        return [DocumentRecord(*row) for row in rows]

    def document_summaries(self) -> list[DocumentSummary]:
        """Every document with its stored counts, by id: what ``documents list`` shows."""
        rows = self._query(
            "SELECT d.doc_id, d.kind, "
            "(SELECT COUNT(*) FROM fact_metric f WHERE f.source_doc_id = d.doc_id), "
            "(SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.doc_id), "
            "(SELECT COUNT(*) FROM review_items r WHERE r.doc_id = d.doc_id "
            f"AND r.state = {self._dialect.mark}), "
            "d.ingested_at, d.sensitivity, d.source_path, d.n_hidden "
            "FROM documents d ORDER BY d.doc_id",
            (ReviewState.OPEN.value,),
        )
        return [DocumentSummary(*row) for row in rows]

    # --- text blocks and chunks --------------------------------------------------------------

    def list_blocks(self, doc_id: str | None = None) -> list[TextBlockRow]:
        where, params = self._where_doc(doc_id)
        rows = self._query(
            f"SELECT {BLOCK_COLUMNS} FROM text_blocks {where}ORDER BY doc_id, position", params
        )
        return [block_from_row(self._dialect, row) for row in rows]

    def count_blocks(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM text_blocks")[0][0])

    def list_chunks(self, doc_id: str | None = None) -> list[Chunk]:
        where, params = self._where_doc(doc_id)
        rows = self._query(
            f"SELECT {CHUNK_SELECT} FROM chunks {where}ORDER BY doc_id, {self._chunk_order}",
            params,
        )
        return [chunk_from_row(self._dialect, row) for row in rows]

    def _where_doc(self, doc_id: str | None) -> tuple[str, tuple[str, ...]]:
        """The clause and parameters keeping one document's rows; none for every document."""
        return (f"WHERE doc_id = {self._dialect.mark} ", (doc_id,)) if doc_id else ("", ())

    def held_locators(self) -> dict[str, tuple[str, ...]]:
        """Per document, the locators of passages held out of retrieval (see ``Chunk.held``):
        derived indexes include them in a document's version, so a decision re-indexes it."""
        m = self._dialect.mark
        rows = self._query(
            f"SELECT doc_id, locator FROM review_items WHERE reason = {m} AND state <> {m} "
            "ORDER BY doc_id, locator",
            (SUSPICIOUS_INSTRUCTION, ReviewState.APPROVED.value),
        )
        held: dict[str, tuple[str, ...]] = {}
        for doc_id, locator in rows:
            held[str(doc_id)] = (*held.get(str(doc_id), ()), str(locator))
        return held

    def _chunk_fingerprint(self) -> str:
        """A fingerprint of the chunk table (``chunk_state``): derived indexes rebuild when it
        changes."""
        rows = self._query(
            "SELECT doc_id, content_hash, metadata_hash, mapping_version FROM documents "
            "ORDER BY doc_id"
        )
        state = repr((rows, sorted(self.held_locators().items())))
        return hashlib.sha256(state.encode("utf-8")).hexdigest()[:16]

    # --- review queue ----------------------------------------------------------------------

    def list_review(
        self, state: ReviewState | None = None, *, doc_id: str | None = None
    ) -> list[ReviewItem]:
        m = self._dialect.mark
        clauses = [(c, v) for c, v in (("state", state), ("doc_id", doc_id)) if v is not None]
        where = f"WHERE {' AND '.join(f'{c} = {m}' for c, _ in clauses)} " if clauses else ""
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items {where}ORDER BY item_id",
            [str(v) for _, v in clauses],
        )
        return [review_from_row(self._dialect, row) for row in rows]

    def get_review(self, item_id: int) -> ReviewItem | None:
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items WHERE item_id = {self._dialect.mark}",
            (item_id,),
        )
        return review_from_row(self._dialect, rows[0]) if rows else None

    def _pending_values(self, key: FactKey, clearance: Sensitivity) -> tuple[PendingValue, ...]:
        """Values other than the approved one that open ``conflict`` items propose for ``key``
        (metric, entity, period type, period, channel), those ``clearance`` may see."""
        # Filtered in SQL: this runs for every found fact of every answer, and the open queue
        # can be long.
        m = self._dialect.mark
        fields = ("metric_code", "entity", "period_type", "period", "channel")
        matches = " AND ".join(f"{self._dialect.json_field('proposed', f)} = {m}" for f in fields)
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items "
            f"WHERE state = {m} AND reason = {m} AND {matches} ORDER BY item_id",
            [ReviewState.OPEN.value, CONFLICT, *key],
        )
        pending: list[PendingValue] = []
        for item in (review_from_row(self._dialect, row) for row in rows):
            proposed = item.proposed
            if proposed is None or not clearance.allows(Sensitivity.parse(item.sensitivity)):
                continue
            pending.append(
                PendingValue(
                    float(str(proposed["value"])),
                    str(proposed.get("unit", "")),
                    str(proposed.get("source_doc_id", item.doc_id)),
                    item.locator,
                    item.sensitivity,
                )
            )
        return tuple(pending)

    def document_audit(self, doc_id: str) -> list[AuditEntry]:
        """A document's audit entries (a level set by hand or raised to match a copy's, a
        removal the service recorded), oldest first; ``item_id`` is 0 in these entries."""
        rows = self._query(
            "SELECT 0, action, detail, at FROM document_audit "
            f"WHERE doc_id = {self._dialect.mark} ORDER BY audit_id",
            (doc_id,),
        )
        return [AuditEntry(*row) for row in rows]

    def audit_log(self, item_id: int | None = None) -> list[AuditEntry]:
        m = self._dialect.mark
        where, params = (f"WHERE item_id = {m} ", (item_id,)) if item_id is not None else ("", ())
        rows = self._query(
            f"SELECT item_id, action, detail, at FROM review_audit {where}ORDER BY audit_id",
            params,
        )
        return [AuditEntry(int(row[0]), *row[1:]) for row in rows]
