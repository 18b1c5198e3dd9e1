"""The PostgreSQL workspace store: facts plus the manifest, text blocks, chunks (and their
vectors) and the review queue.

The same behaviour as :class:`~ragspine.storage.ingest_store.SQLiteWorkspaceStore`, pinned by
the one conformance suite: everything one document contributes is replaced, renamed or
removed in ONE transaction, so a reader never sees half a document and a failed write leaves
the previous version intact.

The reads and write steps both stores share are in ``workspace_reads`` and
``workspace_writes``; this class adds what PostgreSQL needs around them: the locks that let
several workers write at once, a review item locked ``FOR UPDATE``, the change log, vectors.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import psycopg
from numpy.typing import ArrayLike

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    DocumentRecord,
    PendingValue,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)
from ragspine.storage.fact_sql import COLUMNS, fact_queries
from ragspine.storage.facts import Fact, FactKey, ReviewStatus, utc_timestamp
from ragspine.storage.postgres.changes import ChangeKind, record_changes
from ragspine.storage.postgres.dialect import POSTGRES
from ragspine.storage.postgres.document_writes import level_copies, upserts
from ragspine.storage.postgres.fact_store import (
    PostgresFactStore,
    fact_of_row,
)
from ragspine.storage.postgres.vectors import (
    Vector,
    drop_restricted_vectors,
    read_vectors,
    write_vectors,
)
from ragspine.storage.sql_facts import check_filed_under
from ragspine.storage.workspace_reads import WorkspaceReads
from ragspine.storage.workspace_rows import (
    CHUNK_SELECT,
    chunk_from_row,
)
from ragspine.storage.workspace_writes import (
    audit_document,
    audit_sql,
    delete_manifest,
    delete_rows,
    record_decision,
    relevel_document,
    write_document,
)

Connection = psycopg.Connection[Any]


class PostgresWorkspaceStore(PostgresFactStore, WorkspaceReads):
    """The fact store plus ingestion's tables, in the same schema and transactions."""

    _chunk_order = "seq"

    def _lock(self, conn: Connection, *names: str) -> None:
        """Hold these locks until the transaction ends, in the order given.

        SQLite runs one writer at a time; here several workers write at once, so the writes
        to one document take turns (a second replace would otherwise collide on its chunk
        ids), and so do the writes to one content hash: copies of one content are levelled
        by whichever write comes second, which must see the first one committed. Callers
        take document locks (sorted) before the content lock, so no two wait on each other.
        """
        for name in names:
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))",
                (self._db.schema, name),
            )

    def _changed(self, conn: Connection, changes: Sequence[tuple[str, ChangeKind]]) -> None:
        """Log the documents this transaction changed for the index followers; called last,
        after every other lock (see ``postgres/changes.py``)."""
        record_changes(conn, self._db.schema, changes)

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
        """Swap in everything one document contributes, atomically (see the SQLite store)."""
        doc_id = record.doc_id
        check_filed_under(doc_id, facts)
        now = utc_timestamp()
        with self._transaction(f"replace document {doc_id!r}") as conn:
            self._lock(conn, *(f"doc:{d}" for d in sorted({doc_id, replaces or doc_id})))
            self._lock(conn, f"content:{record.content_hash}")
            write_document(
                conn,
                POSTGRES,
                record,
                (facts, blocks, review, chunks),
                replaces=replaces,
                override_note=override_note,
                now=now,
            )
            raised = level_copies(conn, record.content_hash, now)
            gone = [(replaces, ChangeKind.DELETE)] if replaces and replaces != doc_id else []
            self._changed(conn, [*gone, (doc_id, ChangeKind.UPSERT), *upserts(raised)])

    def update_document_metadata(
        self, doc_id: str, metadata_hash: str, sensitivity: str, *, override_note: str = ""
    ) -> None:
        """Same bytes, new metadata: re-apply sensitivity to every row of the document (see
        ``workspace_writes.relevel_document``), under the document's and its content's locks;
        vectors the new level makes RESTRICTED go."""
        with self._transaction(f"update metadata of {doc_id!r}") as conn:
            self._lock(conn, f"doc:{doc_id}")
            found = conn.execute(
                "SELECT content_hash FROM documents WHERE doc_id = %s", (doc_id,)
            ).fetchone()
            if found is not None:
                self._lock(conn, f"content:{found[0]}")
            relevel_document(conn, POSTGRES, doc_id, metadata_hash, sensitivity)
            drop_restricted_vectors(conn, doc_id)
            now = utc_timestamp()
            audit_document(conn, POSTGRES, doc_id, override_note, now)
            raised = level_copies(conn, str(found[0]), now) if found is not None else []
            self._changed(conn, upserts([doc_id, *raised]))

    def remove_document(self, doc_id: str, *, audit: str = "") -> bool:
        """Retire a document: its facts, text blocks, chunks, review items and manifest row
        go in one transaction (the audit log is history and stays), with an audit entry
        ``removed`` saying by whom when ``audit`` does. False if it was unknown."""
        with self._transaction(f"remove document {doc_id!r}") as conn:
            self._lock(conn, f"doc:{doc_id}")
            delete_rows(conn, POSTGRES, doc_id)
            removed = delete_manifest(conn, POSTGRES, doc_id)
            if removed and audit:
                conn.execute(
                    audit_sql(POSTGRES, "document_audit"),
                    (doc_id, "removed", audit, utc_timestamp()),
                )
            self._changed(conn, [(doc_id, ChangeKind.DELETE)] if removed else [])
            return removed

    # --- facts across documents ----------------------------------------------------------

    def approved_values(self, key: FactKey, exclude_docs: Collection[str]) -> list[Fact]:
        """Approved facts of other documents for one key (any sensitivity): conflict checks."""
        rows = self._query(
            f"SELECT {COLUMNS} FROM fact_metric WHERE {fact_queries(POSTGRES).key_where} "
            "AND source_doc_id <> ALL(%s) AND review_status = %s ORDER BY source_doc_id",
            (*key, sorted(exclude_docs), ReviewStatus.APPROVED.value),
        )
        return [fact_of_row(row) for row in rows]

    # --- chunks ---------------------------------------------------------------------------

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are simply absent), for turning hits into snippets."""
        rows = self._query(
            f"SELECT {CHUNK_SELECT} FROM chunks WHERE chunk_id = ANY(%s)", (list(chunk_ids),)
        )
        return {str(row[0]): chunk_from_row(POSTGRES, row) for row in rows}

    def chunk_state(self) -> str:
        """A fingerprint of the chunk table; derived indexes rebuild when it changes."""
        return self._chunk_fingerprint()

    # --- vectors --------------------------------------------------------------------------

    def put_vectors(
        self, model: str, vectors: Mapping[str, ArrayLike], *, persist_restricted: bool = False
    ) -> int:
        """Store one vector per chunk for ``model`` (replacing any earlier one); rows written.

        Every chunk must be stored (``StoreError`` otherwise, and nothing is written); the
        vector of a RESTRICTED chunk is left out unless ``persist_restricted``. A vector goes
        with its chunk: re-ingesting or removing the document deletes it.
        """
        with self._transaction(f"write {len(vectors)} vectors") as conn:
            return write_vectors(conn, model, vectors, persist_restricted=persist_restricted)

    def get_vectors(self, model: str, chunk_ids: Sequence[str] | None = None) -> dict[str, Vector]:
        """The stored float32 vectors of ``model`` by chunk id (missing ids are absent)."""
        try:
            with self._db.connection() as conn:
                return read_vectors(conn, model, chunk_ids)
        except psycopg.Error as exc:
            raise self._failure("read vectors", exc) from exc

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
        """Close an item; an approval writes its fact and retires conflicting ones, atomically.

        Two reviewers may decide one item at once: the item's document lock, then the row
        locked ``FOR UPDATE``, make the second one read the first one's decision."""
        now = utc_timestamp()
        with self._transaction(f"resolve review item {item_id}") as conn:
            owner = conn.execute(
                "SELECT doc_id FROM review_items WHERE item_id = %s", (item_id,)
            ).fetchone()
            if owner is not None:
                self._lock(conn, f"doc:{owner[0]}")
            current = conn.execute(
                "SELECT state FROM review_items WHERE item_id = %s FOR UPDATE", (item_id,)
            ).fetchone()
            record_decision(
                conn,
                POSTGRES,
                item_id,
                current and current[0],
                state,
                fact=fact,
                superseded=superseded,
                corrected_value=corrected_value,
                note=note,
                now=now,
            )
            # A decision on a held passage changes what the document lets retrieval find.
            self._changed(conn, upserts([str(owner[0])] if owner is not None else []))

    def pending_values(self, key: FactKey, *, clearance: Sensitivity) -> list[PendingValue]:
        """Values other than the approved one that open ``conflict`` items propose for ``key``
        (``WorkspaceReads._pending_values``)."""
        return list(self._pending_values(key, Sensitivity.parse(clearance)))
