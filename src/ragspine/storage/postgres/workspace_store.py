"""The PostgreSQL workspace store: facts plus the manifest, text blocks, chunks (and their
vectors) and the review queue.

The same behaviour as :class:`~ragspine.storage.ingest_store.SQLiteWorkspaceStore`, pinned by
the one conformance suite: everything one document contributes is replaced, renamed or
removed in ONE transaction, so a reader never sees half a document and a failed write leaves
the previous version intact.

The class holds the statements and their transactions; the steps its document writes share
are in ``document_writes``, and the column lists and row conversions in ``workspace_rows``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import psycopg
from numpy.typing import ArrayLike

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
    check_decidable,
)
from ragspine.storage.facts import FACT_FIELDS, Fact, FactKey, ReviewStatus, utc_timestamp
from ragspine.storage.ingest_rows import doc_values
from ragspine.storage.ingest_writes import carry_note
from ragspine.storage.postgres.changes import ChangeKind, record_changes
from ragspine.storage.postgres.document_writes import (
    AUDIT_DOCUMENT,
    AUDIT_REVIEW,
    CONFLICT_REASONS,
    audit_document,
    delete_manifest,
    delete_rows,
    insert_review,
    level_copies,
    upserts,
)
from ragspine.storage.postgres.fact_store import (
    FACT_UPSERT_SQL,
    PostgresFactStore,
    fact_of_row,
    rank_sql,
    rows_of,
)
from ragspine.storage.postgres.vectors import (
    Vector,
    drop_restricted_vectors,
    read_vectors,
    write_vectors,
)
from ragspine.storage.postgres.workspace_rows import (
    BLOCK_COLUMNS,
    CHUNK_COLUMNS,
    CHUNK_SELECT,
    DOC_COLUMNS,
    REVIEW_COLUMNS,
    block_from_row,
    block_row,
    chunk_from_row,
    chunk_row,
    marks,
    review_from_row,
)

Connection = psycopg.Connection[Any]


class PostgresWorkspaceStore(PostgresFactStore):
    """The fact store plus ingestion's tables, in the same schema and transactions."""

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

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        rows = self._query(f"SELECT {DOC_COLUMNS} FROM documents WHERE doc_id = %s", (doc_id,))
        return DocumentRecord(*rows[0]) if rows else None

    def list_documents(self) -> list[DocumentRecord]:
        rows = self._query(f"SELECT {DOC_COLUMNS} FROM documents ORDER BY doc_id")
        return [DocumentRecord(*row) for row in rows]

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
        for fact in facts:
            if fact.source_doc_id != doc_id:
                raise ValueError(f"fact of {fact.source_doc_id!r} filed under {doc_id!r}")
        now = utc_timestamp()
        with self._transaction(f"replace document {doc_id!r}") as conn:
            self._lock(conn, *(f"doc:{d}" for d in sorted({doc_id, replaces or doc_id})))
            self._lock(conn, f"content:{record.content_hash}")
            delete_rows(conn, doc_id)
            if replaces is not None and replaces != doc_id:
                delete_rows(conn, replaces)
                delete_manifest(conn, replaces)
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO chunks ({CHUNK_COLUMNS}) VALUES ({marks(10)})",
                    [chunk_row(c) for c in chunks],
                )
                cur.executemany(FACT_UPSERT_SQL, rows_of(facts))
                cur.executemany(
                    f"INSERT INTO text_blocks ({BLOCK_COLUMNS}) VALUES ({marks(10)})",
                    [block_row(b) for b in blocks],
                )
            insert_review(conn, doc_id, review, now, carry_note(record, replaces))
            conn.execute(
                f"INSERT INTO documents ({DOC_COLUMNS}) VALUES ({marks(15)}) "
                "ON CONFLICT (doc_id) DO UPDATE SET "
                + ", ".join(f"{c} = EXCLUDED.{c}" for c in DOC_COLUMNS.split(", ")[1:]),
                (
                    *doc_values(record),
                    record.ingested_at or now,
                    len(facts),
                    len(blocks),
                    len(review),
                    record.content_sensitivity,
                    record.n_hidden,
                ),
            )
            audit_document(conn, doc_id, override_note, now)
            raised = level_copies(conn, record.content_hash, now)
            gone = [(replaces, ChangeKind.DELETE)] if replaces and replaces != doc_id else []
            self._changed(conn, [*gone, (doc_id, ChangeKind.UPSERT), *upserts(raised)])

    def update_document_metadata(
        self, doc_id: str, metadata_hash: str, sensitivity: str, *, override_note: str = ""
    ) -> None:
        """Same bytes, new metadata: re-apply sensitivity to every row of the document.

        A conflict item never goes below the level it had: it may mention another, more
        sensitive document, whose level it took.
        """
        with self._transaction(f"update metadata of {doc_id!r}") as conn:
            self._lock(conn, f"doc:{doc_id}")
            found = conn.execute(
                "SELECT content_hash FROM documents WHERE doc_id = %s", (doc_id,)
            ).fetchone()
            if found is not None:
                self._lock(conn, f"content:{found[0]}")
            conn.execute(
                "UPDATE documents SET metadata_hash = %s, sensitivity = %s WHERE doc_id = %s",
                (metadata_hash, sensitivity, doc_id),
            )
            conn.execute(
                "UPDATE fact_metric SET sensitivity = %s WHERE source_doc_id = %s",
                (sensitivity, doc_id),
            )
            for table in ("text_blocks", "chunks"):
                conn.execute(
                    f"UPDATE {table} SET sensitivity = %s WHERE doc_id = %s",
                    (sensitivity, doc_id),
                )
            drop_restricted_vectors(conn, doc_id)
            conn.execute(
                f"UPDATE review_items SET sensitivity = %s WHERE doc_id = %s AND NOT "
                f"(reason IN ({CONFLICT_REASONS}) AND "
                f"{rank_sql('sensitivity')} > {rank_sql('%s')})",
                (sensitivity, doc_id, sensitivity),
            )
            now = utc_timestamp()
            audit_document(conn, doc_id, override_note, now)
            raised = level_copies(conn, str(found[0]), now) if found is not None else []
            self._changed(conn, upserts([doc_id, *raised]))

    def remove_document(self, doc_id: str, *, audit: str = "") -> bool:
        """Retire a document: its facts, text blocks, chunks, review items and manifest row
        go in one transaction (the audit log is history and stays), with an audit entry
        ``removed`` saying by whom when ``audit`` does. False if it was unknown."""
        with self._transaction(f"remove document {doc_id!r}") as conn:
            self._lock(conn, f"doc:{doc_id}")
            delete_rows(conn, doc_id)
            removed = delete_manifest(conn, doc_id)
            if removed and audit:
                conn.execute(AUDIT_DOCUMENT, (doc_id, "removed", audit, utc_timestamp()))
            self._changed(conn, [(doc_id, ChangeKind.DELETE)] if removed else [])
            return removed

    def document_summaries(self) -> list[DocumentSummary]:
        """Every document with its stored counts, by id: what ``documents list`` shows."""
        rows = self._query(
            "SELECT d.doc_id, d.kind, "
            "(SELECT count(*) FROM fact_metric f WHERE f.source_doc_id = d.doc_id), "
            "(SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id), "
            "(SELECT count(*) FROM review_items r WHERE r.doc_id = d.doc_id AND r.state = %s), "
            "d.ingested_at, d.sensitivity, d.source_path, d.n_hidden "
            "FROM documents d ORDER BY d.doc_id",
            (ReviewState.OPEN.value,),
        )
        return [DocumentSummary(*row) for row in rows]

    # --- facts across documents ----------------------------------------------------------

    def approved_values(self, key: FactKey, exclude_docs: Collection[str]) -> list[Fact]:
        """Approved facts of other documents for one key (any sensitivity): conflict checks."""
        rows = self._query(
            f"SELECT {', '.join(FACT_FIELDS)} FROM fact_metric WHERE metric_code = %s "
            "AND entity = %s AND period_type = %s AND period = %s AND channel = %s "
            "AND source_doc_id <> ALL(%s) AND review_status = %s ORDER BY source_doc_id",
            (*key, sorted(exclude_docs), ReviewStatus.APPROVED.value),
        )
        return [fact_of_row(row) for row in rows]

    # --- text blocks -----------------------------------------------------------------------

    def list_blocks(self, doc_id: str | None = None) -> list[TextBlockRow]:
        where, params = ("WHERE doc_id = %s ", (doc_id,)) if doc_id else ("", ())
        rows = self._query(
            f"SELECT {BLOCK_COLUMNS} FROM text_blocks {where}ORDER BY doc_id, position", params
        )
        return [block_from_row(row) for row in rows]

    def count_blocks(self) -> int:
        return int(self._query("SELECT count(*) FROM text_blocks")[0][0])

    # --- chunks ---------------------------------------------------------------------------

    def list_chunks(self, doc_id: str | None = None) -> list[Chunk]:
        where, params = ("WHERE doc_id = %s ", (doc_id,)) if doc_id else ("", ())
        rows = self._query(f"SELECT {CHUNK_SELECT} FROM chunks {where}ORDER BY doc_id, seq", params)
        return [chunk_from_row(row) for row in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are simply absent), for turning hits into snippets."""
        rows = self._query(
            f"SELECT {CHUNK_SELECT} FROM chunks WHERE chunk_id = ANY(%s)", (list(chunk_ids),)
        )
        return {str(row[0]): chunk_from_row(row) for row in rows}

    def held_locators(self) -> dict[str, tuple[str, ...]]:
        """Per document, the locators of passages held out of retrieval (see ``Chunk.held``)."""
        rows = self._query(
            "SELECT doc_id, locator FROM review_items WHERE reason = %s AND state <> %s "
            "ORDER BY doc_id, locator",
            (SUSPICIOUS_INSTRUCTION, ReviewState.APPROVED.value),
        )
        held: dict[str, tuple[str, ...]] = {}
        for doc_id, locator in rows:
            held[str(doc_id)] = (*held.get(str(doc_id), ()), str(locator))
        return held

    def chunk_state(self) -> str:
        """A fingerprint of the chunk table; derived indexes rebuild when it changes."""
        rows = self._query(
            "SELECT doc_id, content_hash, metadata_hash, mapping_version FROM documents "
            "ORDER BY doc_id"
        )
        state = repr((rows, sorted(self.held_locators().items())))
        return hashlib.sha256(state.encode("utf-8")).hexdigest()[:16]

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

    def list_review(
        self, state: ReviewState | None = None, *, doc_id: str | None = None
    ) -> list[ReviewItem]:
        clauses = [(c, v) for c, v in (("state", state), ("doc_id", doc_id)) if v is not None]
        where = f"WHERE {' AND '.join(f'{c} = %s' for c, _ in clauses)} " if clauses else ""
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items {where}ORDER BY item_id",
            [str(v) for _, v in clauses],
        )
        return [review_from_row(row) for row in rows]

    def get_review(self, item_id: int) -> ReviewItem | None:
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items WHERE item_id = %s", (item_id,)
        )
        return review_from_row(rows[0]) if rows else None

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
        """Close an item; an approval writes its fact and retires conflicting ones, atomically."""
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
            check_decidable(item_id, current and current[0], state, corrected_value)
            if fact is not None:
                conn.execute(FACT_UPSERT_SQL, rows_of([fact])[0])
            for old in superseded:
                conn.execute(
                    "UPDATE fact_metric SET review_status = %s WHERE metric_code = %s AND "
                    "entity = %s AND period_type = %s AND period = %s AND channel = %s AND "
                    "source_doc_id = %s",
                    (ReviewStatus.REJECTED.value, *old.natural_key, old.source_doc_id),
                )
            conn.execute(
                "UPDATE review_items SET state = %s, resolved_at = %s, corrected_value = %s "
                "WHERE item_id = %s",
                (state.value, now, corrected_value, item_id),
            )
            conn.execute(AUDIT_REVIEW, (item_id, state.value, note, now))
            # A decision on a held passage changes what the document lets retrieval find.
            self._changed(conn, upserts([str(owner[0])] if owner is not None else []))

    def pending_values(self, key: FactKey, *, clearance: Sensitivity) -> list[PendingValue]:
        """Values other than the approved one that open ``conflict`` items propose for ``key``
        (metric, entity, period type, period, channel), those ``clearance`` may see."""
        fields = ("metric_code", "entity", "period_type", "period", "channel")
        matches = " AND ".join(f"proposed ->> '{f}' = %s" for f in fields)
        rows = self._query(
            f"SELECT {REVIEW_COLUMNS} FROM review_items "
            f"WHERE state = %s AND reason = %s AND {matches} ORDER BY item_id",
            [ReviewState.OPEN.value, CONFLICT, *key],
        )
        pending: list[PendingValue] = []
        for item in map(review_from_row, rows):
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
        return pending

    def document_audit(self, doc_id: str) -> list[AuditEntry]:
        """What was done to a document's level by hand or by a copy's level, oldest first;
        ``item_id`` is 0 in these entries."""
        rows = self._query(
            "SELECT 0, action, detail, at FROM document_audit WHERE doc_id = %s ORDER BY audit_id",
            (doc_id,),
        )
        return [AuditEntry(*row) for row in rows]

    def audit_log(self, item_id: int | None = None) -> list[AuditEntry]:
        where, params = ("WHERE item_id = %s ", (item_id,)) if item_id is not None else ("", ())
        rows = self._query(
            f"SELECT item_id, action, detail, at FROM review_audit {where}ORDER BY audit_id",
            params,
        )
        return [AuditEntry(int(row[0]), *row[1:]) for row in rows]
