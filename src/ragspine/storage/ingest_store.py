"""The embedded workspace store: facts plus the manifest, text blocks and the review queue.

Everything one document contributes is replaced, renamed or removed in ONE transaction, so a
reader never sees half a document and a failed write leaves the previous version intact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    CONFLICT,
    CONFLICTS,
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
from ragspine.storage.fact_sql import FACT_UPSERT_SQL, rows_of
from ragspine.storage.facts import FACT_FIELDS, Fact, ReviewStatus, utc_timestamp
from ragspine.storage.ingest_rows import (
    block_from_row,
    block_row,
    chunk_from_row,
    chunk_row,
    doc_values,
    review_from_row,
)
from ragspine.storage.ingest_schema import COMPONENT, MIGRATIONS, SCHEMA, SCHEMA_VERSION
from ragspine.storage.ingest_writes import (
    REVIEW_INSERT,
    audit_document,
    carry_note,
    delete_manifest,
    delete_rows,
    insert_review,
    level_copies,
    rank_sql,
)
from ragspine.storage.sqlite_store import SQLiteFactStore

# Conflict items keep the level of the fact they mention (our own constants only).
_CONFLICTS = ", ".join(f"'{reason}'" for reason in CONFLICTS)
_DOC_COLUMNS = (
    "doc_id, source_path, content_hash, metadata_hash, size_bytes, kind, sensitivity, "
    "extractor_version, mapping_version, ingested_at, n_facts, n_blocks, n_review, "
    "content_sensitivity, n_hidden"
)
_BLOCK_COLUMNS = (
    "doc_id, position, locator, kind, title, text, sensitivity, language, entities, periods"
)
_CHUNK_COLUMNS = (
    "chunk_id, doc_id, locator, title, text, entities, periods, language, sensitivity, version"
)
# A chunk is held while a suspicious_instruction item on its passage is not approved. Derived
# on every read rather than stored, so a decision takes effect at once and the schema stays.
_HELD = (
    "EXISTS (SELECT 1 FROM review_items r WHERE r.doc_id = chunks.doc_id AND "
    f"r.locator = chunks.locator AND r.reason = '{SUSPICIOUS_INSTRUCTION}' AND "
    f"r.state <> '{ReviewState.APPROVED.value}')"
)
_CHUNK_SELECT = f"{_CHUNK_COLUMNS}, {_HELD}"
_REVIEW_COLUMNS = f"item_id, {REVIEW_INSERT}"


class SQLiteWorkspaceStore(SQLiteFactStore):
    """The fact store plus ingestion's tables, in the same SQLite file and transactions."""

    def init_schema(self) -> None:
        super().init_schema()
        with self._transaction("create the ingestion schema") as conn:
            row = conn.execute(
                "SELECT version FROM schema_version WHERE component = ?", (COMPONENT,)
            ).fetchone()
            if row is not None and row[0] > SCHEMA_VERSION:
                raise StoreError(
                    f"workspace store {self._path} has ingest schema version {row[0]}, newer "
                    f"than this ragspine understands ({SCHEMA_VERSION}); upgrade ragspine"
                )
            for statement in SCHEMA:
                conn.execute(statement)
            if row is not None:
                for version in range(int(row[0]) + 1, SCHEMA_VERSION + 1):
                    for statement in MIGRATIONS.get(version, ()):
                        conn.execute(statement)
            conn.execute(
                "INSERT OR REPLACE INTO schema_version (component, version) VALUES (?, ?)",
                (COMPONENT, SCHEMA_VERSION),
            )

    # --- documents ---------------------------------------------------------------------

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id = ?", (doc_id,))
        return DocumentRecord(*rows[0]) if rows else None

    def list_documents(self) -> list[DocumentRecord]:
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY doc_id")
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
        """Swap in everything one document contributes, atomically.

        ``replaces`` names a document this one supersedes under another id (a renamed file):
        its rows go in the same transaction, so the store never holds both names or neither.
        A review item with an ``item_id`` keeps that id, its state and its audit trail; a
        decided one gets a "carried over" audit entry. An ``override_note`` (a sidecar's
        ``sensitivity_override`` applied) goes to the document audit log.
        """
        doc_id = record.doc_id
        for fact in facts:
            if fact.source_doc_id != doc_id:
                raise ValueError(f"fact of {fact.source_doc_id!r} filed under {doc_id!r}")
        now = utc_timestamp()
        with self._transaction(f"replace document {doc_id!r}") as conn:
            delete_rows(conn, doc_id)
            if replaces is not None and replaces != doc_id:
                delete_rows(conn, replaces)
                delete_manifest(conn, replaces)
            conn.executemany(
                f"INSERT INTO chunks ({_CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [chunk_row(c) for c in chunks],
            )
            conn.executemany(FACT_UPSERT_SQL, rows_of(facts))
            conn.executemany(
                f"INSERT INTO text_blocks ({_BLOCK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [block_row(b) for b in blocks],
            )
            insert_review(conn, doc_id, review, now, carry_note(record, replaces))
            conn.execute(
                f"INSERT OR REPLACE INTO documents ({_DOC_COLUMNS}) "
                f"VALUES ({', '.join('?' for _ in range(15))})",
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
            level_copies(conn, record.content_hash, now)

    def update_document_metadata(
        self, doc_id: str, metadata_hash: str, sensitivity: str, *, override_note: str = ""
    ) -> None:
        """Same bytes, new metadata: re-apply sensitivity to every row of the document.

        A conflict item never goes below the level it had: it may mention another, more
        sensitive document, whose level it took.
        """
        with self._transaction(f"update metadata of {doc_id!r}") as conn:
            conn.execute(
                "UPDATE documents SET metadata_hash = ?, sensitivity = ? WHERE doc_id = ?",
                (metadata_hash, sensitivity, doc_id),
            )
            conn.execute(
                "UPDATE fact_metric SET sensitivity = ? WHERE source_doc_id = ?",
                (sensitivity, doc_id),
            )
            for table in ("text_blocks", "chunks"):
                conn.execute(
                    f"UPDATE {table} SET sensitivity = ? WHERE doc_id = ?", (sensitivity, doc_id)
                )
            conn.execute(
                f"UPDATE review_items SET sensitivity = ? WHERE doc_id = ? AND NOT "
                f"(reason IN ({_CONFLICTS}) AND {rank_sql('sensitivity')} > {rank_sql('?')})",
                (sensitivity, doc_id, sensitivity),
            )
            now = utc_timestamp()
            audit_document(conn, doc_id, override_note, now)
            (content_hash,) = conn.execute(
                "SELECT content_hash FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
            level_copies(conn, str(content_hash), now)

    def remove_document(self, doc_id: str) -> bool:
        """Retire a document: its facts, text blocks, chunks, review items and manifest row
        go in one transaction (the audit log is history and stays). False if it was unknown."""
        with self._transaction(f"remove document {doc_id!r}") as conn:
            delete_rows(conn, doc_id)
            return delete_manifest(conn, doc_id)

    def document_summaries(self) -> list[DocumentSummary]:
        """Every document with its stored counts, by id: what ``documents list`` shows."""
        rows = self._query(
            "SELECT d.doc_id, d.kind, "
            "(SELECT COUNT(*) FROM fact_metric f WHERE f.source_doc_id = d.doc_id), "
            "(SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.doc_id), "
            "(SELECT COUNT(*) FROM review_items r WHERE r.doc_id = d.doc_id AND r.state = ?), "
            "d.ingested_at, d.sensitivity, d.source_path, d.n_hidden "
            "FROM documents d ORDER BY d.doc_id",
            (ReviewState.OPEN.value,),
        )
        return [DocumentSummary(*row) for row in rows]

    # --- facts across documents ----------------------------------------------------------

    def approved_values(
        self, key: tuple[str, str, str, str, str], exclude_docs: Collection[str]
    ) -> list[Fact]:
        """Approved facts of other documents for one key (any sensitivity): conflict checks.

        ``exclude_docs`` are the document being written and the one it replaces, if any.
        """
        excluded = sorted(exclude_docs)
        rows = self._query(
            f"SELECT {', '.join(FACT_FIELDS)} FROM fact_metric WHERE metric_code = ? "
            "AND entity = ? AND period_type = ? AND period = ? AND channel = ? "
            f"AND source_doc_id NOT IN ({', '.join('?' for _ in excluded)}) "
            "AND review_status = ? ORDER BY source_doc_id",
            (*key, *excluded, ReviewStatus.APPROVED.value),
        )
        return [Fact(*row) for row in rows]

    # --- text blocks -----------------------------------------------------------------------

    def list_blocks(self, doc_id: str | None = None) -> list[TextBlockRow]:
        where, params = ("WHERE doc_id = ? ", (doc_id,)) if doc_id else ("", ())
        rows = self._query(
            f"SELECT {_BLOCK_COLUMNS} FROM text_blocks {where}ORDER BY doc_id, position", params
        )
        return [block_from_row(row) for row in rows]

    def count_blocks(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM text_blocks")[0][0])

    # --- chunks ---------------------------------------------------------------------------

    def list_chunks(self, doc_id: str | None = None) -> list[Chunk]:
        where, params = ("WHERE doc_id = ? ", (doc_id,)) if doc_id else ("", ())
        rows = self._query(
            f"SELECT {_CHUNK_SELECT} FROM chunks {where}ORDER BY doc_id, rowid", params
        )
        return [chunk_from_row(row) for row in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are simply absent), for turning hits into snippets."""
        found: dict[str, Chunk] = {}
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            rows = self._query(
                f"SELECT {_CHUNK_SELECT} FROM chunks WHERE chunk_id IN ({marks})", batch
            )
            found.update((row[0], chunk_from_row(row)) for row in rows)
        return found

    def held_locators(self) -> dict[str, tuple[str, ...]]:
        """Per document, the locators of passages held out of retrieval (see ``Chunk.held``):
        derived indexes include them in a document's version, so a decision re-indexes it."""
        rows = self._query(
            "SELECT doc_id, locator FROM review_items WHERE reason = ? AND state <> ? "
            "ORDER BY doc_id, locator",
            (SUSPICIOUS_INSTRUCTION, ReviewState.APPROVED.value),
        )
        held: dict[str, tuple[str, ...]] = {}
        for doc_id, locator in rows:
            held[str(doc_id)] = (*held.get(str(doc_id), ()), str(locator))
        return held

    def chunk_state(self) -> str:
        """A fingerprint of the chunk table; derived indexes rebuild when it changes. Asked
        before every question, so it is kept until the file's next commit (``_cached``)."""

        def load() -> str:
            rows = self._query(
                "SELECT doc_id, content_hash, metadata_hash, mapping_version FROM documents "
                "ORDER BY doc_id"
            )
            state = repr((rows, sorted(self.held_locators().items())))
            return hashlib.sha256(state.encode("utf-8")).hexdigest()[:16]

        return self._cached(("chunk_state",), load)

    # --- review queue ----------------------------------------------------------------------

    def list_review(
        self, state: ReviewState | None = None, *, doc_id: str | None = None
    ) -> list[ReviewItem]:
        clauses = [(c, v) for c, v in (("state", state), ("doc_id", doc_id)) if v is not None]
        where = f"WHERE {' AND '.join(f'{c} = ?' for c, _ in clauses)} " if clauses else ""
        rows = self._query(
            f"SELECT {_REVIEW_COLUMNS} FROM review_items {where}ORDER BY item_id",
            [str(v) for _, v in clauses],
        )
        return [review_from_row(row) for row in rows]

    def get_review(self, item_id: int) -> ReviewItem | None:
        rows = self._query(
            f"SELECT {_REVIEW_COLUMNS} FROM review_items WHERE item_id = ?", (item_id,)
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
            current = conn.execute(
                "SELECT state FROM review_items WHERE item_id = ?", (item_id,)
            ).fetchone()
            check_decidable(item_id, current and current[0], state, corrected_value)
            if fact is not None:
                conn.executemany(FACT_UPSERT_SQL, rows_of([fact]))
            for old in superseded:
                conn.execute(
                    "UPDATE fact_metric SET review_status = ? WHERE metric_code = ? AND "
                    "entity = ? AND period_type = ? AND period = ? AND channel = ? AND "
                    "source_doc_id = ?",
                    (ReviewStatus.REJECTED.value, *old.natural_key, old.source_doc_id),
                )
            conn.execute(
                "UPDATE review_items SET state = ?, resolved_at = ?, corrected_value = ? "
                "WHERE item_id = ?",
                (state.value, now, corrected_value, item_id),
            )
            conn.execute(
                "INSERT INTO review_audit (item_id, action, detail, at) VALUES (?, ?, ?, ?)",
                (item_id, state.value, note, now),
            )

    def pending_values(
        self, key: tuple[str, str, str, str, str], *, clearance: Sensitivity
    ) -> list[PendingValue]:
        """Values other than the approved one that open ``conflict`` items propose for ``key``
        (metric, entity, period type, period, channel), those ``clearance`` may see."""
        level = Sensitivity.parse(clearance)
        found = self._cached(("pending", *key, level), lambda: self._pending_values(key, level))
        return list(found)

    def _pending_values(
        self, key: tuple[str, str, str, str, str], clearance: Sensitivity
    ) -> tuple[PendingValue, ...]:
        # Filtered in SQL: this runs for every found fact of every answer, and the open queue
        # can be long.
        fields = ("metric_code", "entity", "period_type", "period", "channel")
        matches = " AND ".join(f"json_extract(proposed, '$.{f}') = ?" for f in fields)
        rows = self._query(
            f"SELECT {_REVIEW_COLUMNS} FROM review_items "
            f"WHERE state = ? AND reason = ? AND {matches} ORDER BY item_id",
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
        return tuple(pending)

    def document_audit(self, doc_id: str) -> list[AuditEntry]:
        """What was done to a document's level by hand (``sensitivity_override``), oldest
        first; ``item_id`` is 0 in these entries."""
        rows = self._query(
            "SELECT 0, action, detail, at FROM document_audit WHERE doc_id = ? ORDER BY audit_id",
            (doc_id,),
        )
        return [AuditEntry(*row) for row in rows]

    def audit_log(self, item_id: int | None = None) -> list[AuditEntry]:
        where, params = ("WHERE item_id = ? ", (item_id,)) if item_id is not None else ("", ())
        rows = self._query(
            f"SELECT item_id, action, detail, at FROM review_audit {where}ORDER BY audit_id", params
        )
        return [AuditEntry(*row) for row in rows]
