"""The statements both workspace stores' write transactions share, in a backend's
:class:`~ragspine.storage.dialect.Dialect`: a document's rows deleted, re-levelled or raised to
a level, copies of one content levelled, review items inserted with their carried decisions, a
review decision recorded, and the audit logs. Each runs inside the caller's transaction; the
locks a PostgreSQL store takes around them are its own (``postgres/workspace_store.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.dialect import Connection, Dialect, insert_many, rank_sql
from ragspine.storage.documents import (
    CONFLICTS,
    DocumentRecord,
    ReviewItem,
    ReviewState,
    TextBlockRow,
    check_decidable,
)
from ragspine.storage.fact_sql import fact_queries, rows_of
from ragspine.storage.facts import Fact, ReviewStatus
from ragspine.storage.workspace_rows import (
    BLOCK_COLUMNS,
    CHUNK_COLUMNS,
    DOC_COLUMNS,
    REVIEW_INSERT,
    block_row,
    chunk_row,
    manifest_row,
    review_row,
)

# Conflict items keep the level of the fact they mention (our own constants only).
_CONFLICTS = ", ".join(f"'{reason}'" for reason in CONFLICTS)


def audit_sql(dialect: Dialect, table: str) -> str:
    """The insert of one entry into ``review_audit`` (keyed ``item_id``) or ``document_audit``
    (keyed ``doc_id``)."""
    key = "item_id" if table == "review_audit" else "doc_id"
    return f"INSERT INTO {table} ({key}, action, detail, at) VALUES ({dialect.marks(4)})"


def audit_document(conn: Connection, dialect: Dialect, doc_id: str, note: str, now: str) -> None:
    """Audit a level set by hand (``note`` says by whom and why); nothing without a note."""
    if note:
        conn.execute(
            audit_sql(dialect, "document_audit"), (doc_id, "sensitivity_override", note, now)
        )


def level_copies(conn: Connection, dialect: Dialect, content_hash: str, now: str) -> list[str]:
    """Raise every copy of one content (documents with the same bytes under other names) to
    the highest level any of them holds; the documents raised.

    A CONFIDENTIAL deck copied elsewhere without its sidecar, or renamed out of a restricted
    file-name pattern, is still the same text: its copy must not be readable at a lower level,
    whichever of the two was ingested first. A copy whose level an audited
    ``sensitivity_override`` set below its own content's level keeps it: that decision was
    made for that file. Levels only rise here; each raise is written to the document audit.
    """
    m = dialect.mark
    copies = conn.execute(
        "SELECT doc_id, sensitivity, content_sensitivity FROM documents "
        f"WHERE content_hash = {m} ORDER BY doc_id",
        (content_hash,),
    ).fetchall()
    if len(copies) < 2:
        return []
    levels = {str(doc_id): Sensitivity.parse(level) for doc_id, level, _ in copies}
    top_doc, top = max(levels.items(), key=lambda item: (item[1].rank, item[0]))
    raised: list[str] = []
    for doc_id, level, content_level in copies:
        overridden = bool(content_level) and (
            Sensitivity.parse(level).rank < Sensitivity.parse(content_level).rank
        )
        if levels[doc_id].rank >= top.rank or overridden:
            continue
        _raise_rows(conn, dialect, doc_id, top)
        detail = f"{level} -> {top.value}: same content as {top_doc}"
        conn.execute(
            audit_sql(dialect, "document_audit"), (doc_id, "sensitivity_raised", detail, now)
        )
        raised.append(str(doc_id))
    return raised


def _raise_rows(conn: Connection, dialect: Dialect, doc_id: str, level: Sensitivity) -> None:
    """Every row of a document below ``level`` raised to it (rows above it keep theirs)."""
    m = dialect.mark
    below = f"{rank_sql('sensitivity')} < {m}"
    conn.execute(
        f"UPDATE documents SET sensitivity = {m} WHERE doc_id = {m}", (level.value, doc_id)
    )
    conn.execute(
        f"UPDATE fact_metric SET sensitivity = {m} WHERE source_doc_id = {m} AND {below}",
        (level.value, doc_id, level.rank),
    )
    for table in ("text_blocks", "chunks", "review_items"):
        conn.execute(
            f"UPDATE {table} SET sensitivity = {m} WHERE doc_id = {m} AND {below}",
            (level.value, doc_id, level.rank),
        )


def relevel_document(
    conn: Connection, dialect: Dialect, doc_id: str, metadata_hash: str, sensitivity: str
) -> None:
    """Same bytes, new metadata: the document's level set on every row it contributed.

    A conflict item never goes below the level it had: it may mention another, more
    sensitive document, whose level it took.
    """
    m = dialect.mark
    conn.execute(
        f"UPDATE documents SET metadata_hash = {m}, sensitivity = {m} WHERE doc_id = {m}",
        (metadata_hash, sensitivity, doc_id),
    )
    conn.execute(
        f"UPDATE fact_metric SET sensitivity = {m} WHERE source_doc_id = {m}",
        (sensitivity, doc_id),
    )
    for table in ("text_blocks", "chunks"):
        conn.execute(
            f"UPDATE {table} SET sensitivity = {m} WHERE doc_id = {m}", (sensitivity, doc_id)
        )
    conn.execute(
        f"UPDATE review_items SET sensitivity = {m} WHERE doc_id = {m} AND NOT "
        f"(reason IN ({_CONFLICTS}) AND {rank_sql('sensitivity')} > {rank_sql(m)})",
        (sensitivity, doc_id, sensitivity),
    )


def write_document(
    conn: Connection,
    dialect: Dialect,
    record: DocumentRecord,
    contents: tuple[Sequence[Fact], Sequence[TextBlockRow], Sequence[ReviewItem], Sequence[Chunk]],
    *,
    replaces: str | None,
    override_note: str,
    now: str,
) -> None:
    """Swap in everything one document contributes (its facts, text blocks, review items and
    chunks, then its manifest row), and the rows of the document it ``replaces``, if any, out
    (the contract is on ``SQLiteWorkspaceStore.replace_document``). Copies of its content are
    the caller's to level."""
    facts, blocks, review, chunks = contents
    doc_id = record.doc_id
    delete_rows(conn, dialect, doc_id)
    if replaces is not None and replaces != doc_id:
        delete_rows(conn, dialect, replaces)
        delete_manifest(conn, dialect, replaces)
    insert_many(
        conn,
        f"INSERT INTO chunks ({CHUNK_COLUMNS}) VALUES ({dialect.marks(10)})",
        [chunk_row(dialect, c) for c in chunks],
    )
    insert_many(conn, fact_queries(dialect).upsert, rows_of(facts))
    insert_many(
        conn,
        f"INSERT INTO text_blocks ({BLOCK_COLUMNS}) VALUES ({dialect.marks(10)})",
        [block_row(dialect, b) for b in blocks],
    )
    insert_review(conn, dialect, doc_id, review, now, carry_note(record, replaces))
    conn.execute(
        dialect.upsert("documents", DOC_COLUMNS.split(", "), ("doc_id",)),
        manifest_row(record, now, len(facts), len(blocks), len(review)),
    )
    audit_document(conn, dialect, doc_id, override_note, now)


def delete_rows(conn: Connection, dialect: Dialect, doc_id: str) -> None:
    """Delete every row a document contributed; its manifest row is the caller's business."""
    m = dialect.mark
    conn.execute(f"DELETE FROM fact_metric WHERE source_doc_id = {m}", (doc_id,))
    for table in ("text_blocks", "review_items", "chunks"):
        conn.execute(f"DELETE FROM {table} WHERE doc_id = {m}", (doc_id,))


def delete_manifest(conn: Connection, dialect: Dialect, doc_id: str) -> bool:
    """Delete a document's manifest row; whether there was one."""
    sql = f"DELETE FROM documents WHERE doc_id = {dialect.mark}"
    return conn.execute(sql, (doc_id,)).rowcount > 0


def carry_note(record: DocumentRecord, replaces: str | None) -> str:
    """The audit note of a decision carried over to a re-ingested or renamed document."""
    where = f"{record.doc_id} (renamed from {replaces})" if replaces else record.doc_id
    return f"unchanged in {where}, content {record.content_hash[:12]}"


def insert_review(
    conn: Connection,
    dialect: Dialect,
    doc_id: str,
    review: Sequence[ReviewItem],
    now: str,
    note: str,
) -> None:
    """Insert a document's review items; continued ones keep their id, state and decision."""
    marks = dialect.marks(len(REVIEW_INSERT.split(",")))
    for item in review:
        values = review_row(dialect, item, doc_id, now)
        if not item.item_id:
            conn.execute(f"INSERT INTO review_items ({REVIEW_INSERT}) VALUES ({marks})", values)
            continue
        conn.execute(
            f"INSERT INTO review_items (item_id, {REVIEW_INSERT}) VALUES ({dialect.mark}, {marks})",
            (item.item_id, *values),
        )
        if item.state is not ReviewState.OPEN:
            action = f"{item.state.value} (carried over)"
            conn.execute(audit_sql(dialect, "review_audit"), (item.item_id, action, note, now))


def record_decision(
    conn: Connection,
    dialect: Dialect,
    item_id: int,
    current: str | None,
    state: ReviewState,
    *,
    fact: Fact | None,
    superseded: Sequence[Fact],
    corrected_value: float | None,
    note: str,
    now: str,
) -> None:
    """Close review item ``item_id`` (whose state is ``current``, None when unknown): an
    approval writes its ``fact`` and retires the ``superseded`` ones."""
    check_decidable(item_id, current, state, corrected_value)
    m = dialect.mark
    facts = fact_queries(dialect)
    if fact is not None:
        conn.execute(facts.upsert, rows_of([fact])[0])
    for old in superseded:
        conn.execute(
            facts.set_status,
            (ReviewStatus.REJECTED.value, *old.natural_key, old.source_doc_id),
        )
    conn.execute(
        f"UPDATE review_items SET state = {m}, resolved_at = {m}, corrected_value = {m} "
        f"WHERE item_id = {m}",
        (state.value, now, corrected_value, item_id),
    )
    conn.execute(audit_sql(dialect, "review_audit"), (item_id, state.value, note, now))
