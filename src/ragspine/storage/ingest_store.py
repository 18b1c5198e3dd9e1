"""The embedded workspace store: facts plus the manifest, text blocks and the review queue.

Everything one document contributes is replaced, renamed or removed in ONE transaction, so a
reader never sees half a document and a failed write leaves the previous version intact. The
reads and write steps it shares with the PostgreSQL store are in ``workspace_reads`` and
``workspace_writes``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.dialect import SQLITE
from ragspine.storage.documents import (
    DocumentRecord,
    PendingValue,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)
from ragspine.storage.fact_sql import COLUMNS, fact_queries
from ragspine.storage.facts import Fact, FactKey, ReviewStatus, utc_timestamp
from ragspine.storage.ingest_schema import COMPONENT, MIGRATIONS, SCHEMA, SCHEMA_VERSION
from ragspine.storage.sql_facts import check_filed_under
from ragspine.storage.sqlite_store import SQLiteFactStore
from ragspine.storage.workspace_reads import WorkspaceReads
from ragspine.storage.workspace_rows import (
    CHUNK_SELECT,
    chunk_from_row,
)
from ragspine.storage.workspace_writes import (
    audit_document,
    delete_manifest,
    delete_rows,
    level_copies,
    record_decision,
    relevel_document,
    write_document,
)


class SQLiteWorkspaceStore(SQLiteFactStore, WorkspaceReads):
    """The fact store plus ingestion's tables, in the same SQLite file and transactions."""

    _chunk_order = "rowid"

    def init_schema(self) -> None:
        super().init_schema()
        with self._transaction("create the ingestion schema") as conn:
            self._init_component(
                conn,
                COMPONENT,
                SCHEMA_VERSION,
                SCHEMA,
                MIGRATIONS,
                store="workspace store",
                what="ingest schema",
            )

    # --- documents ---------------------------------------------------------------------

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
        """Swap in everything one document contributes, atomically.

        ``replaces`` names a document this one supersedes under another id (a renamed file):
        its rows go in the same transaction, so the store never holds both names or neither.
        A review item with an ``item_id`` keeps that id, its state and its audit trail; a
        decided one gets a "carried over" audit entry. An ``override_note`` (a sidecar's
        ``sensitivity_override`` applied) goes to the document audit log.
        """
        check_filed_under(record.doc_id, facts)
        now = utc_timestamp()
        with self._transaction(f"replace document {record.doc_id!r}") as conn:
            write_document(
                conn,
                SQLITE,
                record,
                (facts, blocks, review, chunks),
                replaces=replaces,
                override_note=override_note,
                now=now,
            )
            level_copies(conn, SQLITE, record.content_hash, now)

    def update_document_metadata(
        self, doc_id: str, metadata_hash: str, sensitivity: str, *, override_note: str = ""
    ) -> None:
        """Same bytes, new metadata: re-apply sensitivity to every row of the document (see
        ``workspace_writes.relevel_document``)."""
        with self._transaction(f"update metadata of {doc_id!r}") as conn:
            relevel_document(conn, SQLITE, doc_id, metadata_hash, sensitivity)
            now = utc_timestamp()
            audit_document(conn, SQLITE, doc_id, override_note, now)
            (content_hash,) = conn.execute(
                "SELECT content_hash FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
            level_copies(conn, SQLITE, str(content_hash), now)

    def remove_document(self, doc_id: str) -> bool:
        """Retire a document: its facts, text blocks, chunks, review items and manifest row
        go in one transaction (the audit log is history and stays). False if it was unknown."""
        with self._transaction(f"remove document {doc_id!r}") as conn:
            delete_rows(conn, SQLITE, doc_id)
            return delete_manifest(conn, SQLITE, doc_id)

    # --- facts across documents ----------------------------------------------------------

    def approved_values(self, key: FactKey, exclude_docs: Collection[str]) -> list[Fact]:
        """Approved facts of other documents for one key (any sensitivity): conflict checks.

        ``exclude_docs`` are the document being written and the one it replaces, if any.
        """
        excluded = sorted(exclude_docs)
        rows = self._query(
            f"SELECT {COLUMNS} FROM fact_metric WHERE {fact_queries(SQLITE).key_where} "
            f"AND source_doc_id NOT IN ({SQLITE.marks(len(excluded))}) "
            "AND review_status = ? ORDER BY source_doc_id",
            (*key, *excluded, ReviewStatus.APPROVED.value),
        )
        return [Fact(*row) for row in rows]

    # --- chunks ---------------------------------------------------------------------------

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are simply absent), for turning hits into snippets."""
        found: dict[str, Chunk] = {}
        # Batches keep an IN list under SQLite's limit on a statement's parameters.
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            rows = self._query(
                f"SELECT {CHUNK_SELECT} FROM chunks WHERE chunk_id IN ({SQLITE.marks(len(batch))})",
                batch,
            )
            found.update((row[0], chunk_from_row(SQLITE, row)) for row in rows)
        return found

    def chunk_state(self) -> str:
        """A fingerprint of the chunk table; derived indexes rebuild when it changes. Asked
        before every question, so it is kept until the file's next commit (``_cached``)."""
        return self._cached(("chunk_state",), self._chunk_fingerprint)

    # --- review queue ----------------------------------------------------------------------

    def resolve_review(
        self,
        item_id: int,
        state: ReviewState,
        *,
        fact: Fact | None = None,
        superseded: Sequence[Fact] = (),
        corrected_value: float | None = None,
        note: str = "",
    ) -> None:
        """Close an item; an approval writes its fact and retires conflicting ones, atomically
        (SQLite's one writer at a time needs no lock on the item)."""
        now = utc_timestamp()
        with self._transaction(f"resolve review item {item_id}") as conn:
            current = conn.execute(
                "SELECT state FROM review_items WHERE item_id = ?", (item_id,)
            ).fetchone()
            record_decision(
                conn,
                SQLITE,
                item_id,
                current and current[0],
                state,
                fact=fact,
                superseded=superseded,
                corrected_value=corrected_value,
                note=note,
                now=now,
            )

    def pending_values(self, key: FactKey, *, clearance: Sensitivity) -> list[PendingValue]:
        """Values other than the approved one that open ``conflict`` items propose for ``key``
        (``WorkspaceReads._pending_values``), kept until the file's next commit."""
        level = Sensitivity.parse(clearance)
        found = self._cached(("pending", *key, level), lambda: self._pending_values(key, level))
        return list(found)
