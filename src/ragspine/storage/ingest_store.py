"""The embedded workspace store: facts plus the manifest, text blocks and the review queue.

Everything one document contributes is replaced, renamed or removed in ONE transaction, so a
reader never sees half a document and a failed write leaves the previous version intact.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

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
from ragspine.storage.facts import FACT_FIELDS, Fact, ReviewStatus, utc_timestamp
from ragspine.storage.sqlite_store import FACT_UPSERT_SQL, SQLiteFactStore, rows_of

_COMPONENT = "ingest"
# 2: documents.content_sensitivity (the level from the file's name and content alone) and the
# document_audit table. 3: documents.n_hidden (hidden content the reader skipped).
SCHEMA_VERSION = 3

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS documents (
        doc_id TEXT PRIMARY KEY,
        source_path TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        metadata_hash TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        kind TEXT NOT NULL,
        sensitivity TEXT NOT NULL,
        extractor_version TEXT NOT NULL,
        mapping_version TEXT NOT NULL,
        ingested_at TEXT NOT NULL,
        n_facts INTEGER NOT NULL,
        n_blocks INTEGER NOT NULL,
        n_review INTEGER NOT NULL,
        content_sensitivity TEXT NOT NULL DEFAULT '',
        n_hidden INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS text_blocks (
        doc_id TEXT NOT NULL CHECK (doc_id <> ''),
        position INTEGER NOT NULL,
        locator TEXT NOT NULL CHECK (locator <> ''),
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        sensitivity TEXT NOT NULL,
        language TEXT NOT NULL,
        entities TEXT NOT NULL,
        periods TEXT NOT NULL,
        PRIMARY KEY (doc_id, position)
    )""",
    """CREATE TABLE IF NOT EXISTS review_items (
        item_id INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_id TEXT NOT NULL,
        locator TEXT NOT NULL,
        reason TEXT NOT NULL,
        detail TEXT NOT NULL,
        proposed TEXT,
        state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'rejected')),
        sensitivity TEXT NOT NULL,
        created_at TEXT NOT NULL,
        resolved_at TEXT NOT NULL DEFAULT '',
        corrected_value REAL
    )""",
    "CREATE INDEX IF NOT EXISTS review_items_doc ON review_items (doc_id)",
    """CREATE TABLE IF NOT EXISTS chunks (
        chunk_id TEXT PRIMARY KEY,
        doc_id TEXT NOT NULL CHECK (doc_id <> ''),
        locator TEXT NOT NULL CHECK (locator <> ''),
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        entities TEXT NOT NULL,
        periods TEXT NOT NULL,
        language TEXT NOT NULL,
        sensitivity TEXT NOT NULL,
        version TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id)",
    """CREATE TABLE IF NOT EXISTS review_audit (
        audit_id INTEGER PRIMARY KEY AUTOINCREMENT,
        item_id INTEGER NOT NULL,
        action TEXT NOT NULL,
        detail TEXT NOT NULL,
        at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS document_audit (
        audit_id INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_id TEXT NOT NULL,
        action TEXT NOT NULL,
        detail TEXT NOT NULL,
        at TEXT NOT NULL
    )""",
)
# Version 1 workspaces gain the column; their documents keep '' (unknown) until read again.
_MIGRATIONS = {
    2: ("ALTER TABLE documents ADD COLUMN content_sensitivity TEXT NOT NULL DEFAULT ''",),
    3: ("ALTER TABLE documents ADD COLUMN n_hidden INTEGER NOT NULL DEFAULT 0",),
}

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
_REVIEW_INSERT = (
    "doc_id, locator, reason, detail, proposed, state, sensitivity, created_at, resolved_at, "
    "corrected_value"
)
_REVIEW_COLUMNS = f"item_id, {_REVIEW_INSERT}"
_MARKS = ", ".join("?" for _ in _REVIEW_INSERT.split(","))


class SQLiteWorkspaceStore(SQLiteFactStore):
    """The fact store plus ingestion's tables, in the same SQLite file and transactions."""

    def init_schema(self) -> None:
        super().init_schema()
        with self._transaction("create the ingestion schema") as conn:
            row = conn.execute(
                "SELECT version FROM schema_version WHERE component = ?", (_COMPONENT,)
            ).fetchone()
            if row is not None and row[0] > SCHEMA_VERSION:
                raise StoreError(
                    f"workspace store {self._path} has ingest schema version {row[0]}, newer "
                    f"than this ragspine understands ({SCHEMA_VERSION}); upgrade ragspine"
                )
            for statement in _SCHEMA:
                conn.execute(statement)
            if row is not None:
                for version in range(int(row[0]) + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS.get(version, ()):
                        conn.execute(statement)
            conn.execute(
                "INSERT OR REPLACE INTO schema_version (component, version) VALUES (?, ?)",
                (_COMPONENT, SCHEMA_VERSION),
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
            _delete_rows(conn, doc_id)
            if replaces is not None and replaces != doc_id:
                _delete_rows(conn, replaces)
                _delete_manifest(conn, replaces)
            conn.executemany(
                f"INSERT INTO chunks ({_CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_chunk_row(c) for c in chunks],
            )
            conn.executemany(FACT_UPSERT_SQL, rows_of(facts))
            conn.executemany(
                f"INSERT INTO text_blocks ({_BLOCK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_block_row(b) for b in blocks],
            )
            _insert_review(conn, doc_id, review, now, carry_note(record, replaces))
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
            _audit_document(conn, doc_id, override_note, now)
            _level_copies(conn, record.content_hash, now)

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
                f"(reason IN ({_CONFLICTS}) AND {_rank_sql('sensitivity')} > {_rank_sql('?')})",
                (sensitivity, doc_id, sensitivity),
            )
            now = utc_timestamp()
            _audit_document(conn, doc_id, override_note, now)
            (content_hash,) = conn.execute(
                "SELECT content_hash FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
            _level_copies(conn, str(content_hash), now)

    def remove_document(self, doc_id: str) -> bool:
        """Retire a document: its facts, text blocks, chunks, review items and manifest row
        go in one transaction (the audit log is history and stays). False if it was unknown."""
        with self._transaction(f"remove document {doc_id!r}") as conn:
            _delete_rows(conn, doc_id)
            return _delete_manifest(conn, doc_id)

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
        return [_block_from_row(row) for row in rows]

    def count_blocks(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM text_blocks")[0][0])

    # --- chunks ---------------------------------------------------------------------------

    def list_chunks(self, doc_id: str | None = None) -> list[Chunk]:
        where, params = ("WHERE doc_id = ? ", (doc_id,)) if doc_id else ("", ())
        rows = self._query(
            f"SELECT {_CHUNK_SELECT} FROM chunks {where}ORDER BY doc_id, rowid", params
        )
        return [_chunk_from_row(row) for row in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are simply absent), for turning hits into snippets."""
        found: dict[str, Chunk] = {}
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            rows = self._query(
                f"SELECT {_CHUNK_SELECT} FROM chunks WHERE chunk_id IN ({marks})", batch
            )
            found.update((row[0], _chunk_from_row(row)) for row in rows)
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
        """A fingerprint of the chunk table; derived indexes rebuild when it changes."""
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
        clauses = [(c, v) for c, v in (("state", state), ("doc_id", doc_id)) if v is not None]
        where = f"WHERE {' AND '.join(f'{c} = ?' for c, _ in clauses)} " if clauses else ""
        rows = self._query(
            f"SELECT {_REVIEW_COLUMNS} FROM review_items {where}ORDER BY item_id",
            [str(v) for _, v in clauses],
        )
        return [_review_from_row(row) for row in rows]

    def get_review(self, item_id: int) -> ReviewItem | None:
        rows = self._query(
            f"SELECT {_REVIEW_COLUMNS} FROM review_items WHERE item_id = ?", (item_id,)
        )
        return _review_from_row(rows[0]) if rows else None

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
        for item in map(_review_from_row, rows):
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


def _rank_sql(expression: str) -> str:
    """A SQL expression ranking a sensitivity level (our own enum values only)."""
    cases = " ".join(f"WHEN '{level.value}' THEN {level.rank}" for level in Sensitivity)
    return f"(CASE {expression} {cases} END)"


def _audit_document(conn: sqlite3.Connection, doc_id: str, note: str, now: str) -> None:
    if note:
        conn.execute(
            "INSERT INTO document_audit (doc_id, action, detail, at) VALUES (?, ?, ?, ?)",
            (doc_id, "sensitivity_override", note, now),
        )


def _level_copies(conn: sqlite3.Connection, content_hash: str, now: str) -> None:
    """Raise every copy of one content (documents with the same bytes under other names) to
    the highest level any of them holds.

    A CONFIDENTIAL deck copied elsewhere without its sidecar, or renamed out of a restricted
    file-name pattern, is still the same text: its copy must not be readable at a lower level,
    whichever of the two was ingested first. A copy whose level an audited
    ``sensitivity_override`` set below its own content's level keeps it: that decision was
    made for that file. Levels only rise here; each raise is written to the document audit.
    """
    copies = conn.execute(
        "SELECT doc_id, sensitivity, content_sensitivity FROM documents WHERE content_hash = ?",
        (content_hash,),
    ).fetchall()
    if len(copies) < 2:
        return
    levels = {doc_id: Sensitivity.parse(level) for doc_id, level, _ in copies}
    top_doc, top = max(levels.items(), key=lambda item: (item[1].rank, item[0]))
    for doc_id, level, content_level in copies:
        overridden = bool(content_level) and (
            Sensitivity.parse(level).rank < Sensitivity.parse(content_level).rank
        )
        if levels[doc_id].rank >= top.rank or overridden:
            continue
        _raise_rows(conn, doc_id, top)
        conn.execute(
            "INSERT INTO document_audit (doc_id, action, detail, at) VALUES (?, ?, ?, ?)",
            (
                doc_id,
                "sensitivity_raised",
                f"{level} -> {top.value}: same content as {top_doc}",
                now,
            ),
        )


def _raise_rows(conn: sqlite3.Connection, doc_id: str, level: Sensitivity) -> None:
    """Every row of a document below ``level`` raised to it (rows above it keep theirs)."""
    below = f"{_rank_sql('sensitivity')} < ?"
    conn.execute("UPDATE documents SET sensitivity = ? WHERE doc_id = ?", (level.value, doc_id))
    conn.execute(
        f"UPDATE fact_metric SET sensitivity = ? WHERE source_doc_id = ? AND {below}",
        (level.value, doc_id, level.rank),
    )
    for table in ("text_blocks", "chunks", "review_items"):
        conn.execute(
            f"UPDATE {table} SET sensitivity = ? WHERE doc_id = ? AND {below}",
            (level.value, doc_id, level.rank),
        )


def _delete_rows(conn: sqlite3.Connection, doc_id: str) -> None:
    """Delete every row a document contributed; its manifest row is the caller's business."""
    conn.execute("DELETE FROM fact_metric WHERE source_doc_id = ?", (doc_id,))
    for table in ("text_blocks", "review_items", "chunks"):
        conn.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))


def _delete_manifest(conn: sqlite3.Connection, doc_id: str) -> bool:
    return conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,)).rowcount > 0


def carry_note(record: DocumentRecord, replaces: str | None) -> str:
    """The audit note of a decision carried over to a re-ingested or renamed document."""
    where = f"{record.doc_id} (renamed from {replaces})" if replaces else record.doc_id
    return f"unchanged in {where}, content {record.content_hash[:12]}"


def _insert_review(
    conn: sqlite3.Connection, doc_id: str, review: Sequence[ReviewItem], now: str, note: str
) -> None:
    """Insert a document's review items; continued ones keep their id, state and decision."""
    for item in review:
        values = (
            doc_id,
            item.locator,
            item.reason,
            item.detail,
            _json(item.proposed),
            item.state.value,
            item.sensitivity,
            item.created_at or now,
            item.resolved_at,
            item.corrected_value,
        )
        if not item.item_id:
            conn.execute(f"INSERT INTO review_items ({_REVIEW_INSERT}) VALUES ({_MARKS})", values)
            continue
        conn.execute(
            f"INSERT INTO review_items (item_id, {_REVIEW_INSERT}) VALUES (?, {_MARKS})",
            (item.item_id, *values),
        )
        if item.state is not ReviewState.OPEN:
            conn.execute(
                "INSERT INTO review_audit (item_id, action, detail, at) VALUES (?, ?, ?, ?)",
                (item.item_id, f"{item.state.value} (carried over)", note, now),
            )


def _json(value: dict[str, object] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def doc_values(record: DocumentRecord) -> tuple[object, ...]:
    """The manifest columns a record brings itself, ``doc_id`` to ``mapping_version``."""
    return (
        record.doc_id,
        record.source_path,
        record.content_hash,
        record.metadata_hash,
        record.size_bytes,
        record.kind,
        record.sensitivity,
        record.extractor_version,
        record.mapping_version,
    )


def _block_row(block: TextBlockRow) -> tuple[object, ...]:
    return (
        block.doc_id,
        block.position,
        block.locator,
        block.kind,
        block.title,
        block.text,
        block.sensitivity,
        block.language,
        ",".join(block.entities),
        ",".join(block.periods),
    )


def _block_from_row(row: tuple[Any, ...]) -> TextBlockRow:
    doc_id, position, locator, kind, title, text, sensitivity, language, entities, periods = row
    return TextBlockRow(
        doc_id,
        position,
        locator,
        kind,
        title,
        text,
        sensitivity,
        language,
        entities=tuple(filter(None, str(entities).split(","))),
        periods=tuple(filter(None, str(periods).split(","))),
    )


def _chunk_row(chunk: Chunk) -> tuple[object, ...]:
    return (
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.title,
        chunk.text,
        ",".join(chunk.entities),
        ",".join(chunk.periods),
        chunk.language,
        chunk.sensitivity,
        chunk.version,
    )


def _chunk_from_row(row: tuple[Any, ...]) -> Chunk:
    chunk_id, doc_id, locator, title, text, entities, periods, language, sens, version, held = row
    return Chunk(
        chunk_id,
        doc_id,
        locator,
        title,
        text,
        tuple(filter(None, str(entities).split(","))),
        tuple(filter(None, str(periods).split(","))),
        language,
        sens,
        version,
        bool(held),
    )


def _review_from_row(row: tuple[object, ...]) -> ReviewItem:
    item_id, doc_id, locator, reason, detail, proposed, state, sens, created, resolved, fixed = row
    return ReviewItem(
        doc_id=str(doc_id),
        locator=str(locator),
        reason=str(reason),
        detail=str(detail),
        proposed=json.loads(str(proposed)) if proposed else None,
        item_id=int(str(item_id)),
        state=ReviewState(str(state)),
        sensitivity=str(sens),
        created_at=str(created),
        resolved_at=str(resolved),
        corrected_value=float(str(fixed)) if fixed is not None else None,
    )
