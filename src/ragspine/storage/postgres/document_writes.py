"""The steps the workspace store's document writes share, each run inside the caller's
transaction (and under the locks it took): deleting what a document contributed, inserting its
review items, levelling copies of one content and auditing what changed a level."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import CONFLICTS, ReviewItem, ReviewState
from ragspine.storage.postgres.changes import ChangeKind
from ragspine.storage.postgres.fact_store import rank_sql
from ragspine.storage.postgres.vectors import drop_restricted_vectors
from ragspine.storage.postgres.workspace_rows import REVIEW_INSERT, REVIEW_MARKS

Connection = psycopg.Connection[Any]

# Conflict items keep the level of the fact they mention (our own constants only).
CONFLICT_REASONS = ", ".join(f"'{reason}'" for reason in CONFLICTS)
AUDIT_DOCUMENT = "INSERT INTO document_audit (doc_id, action, detail, at) VALUES (%s, %s, %s, %s)"
AUDIT_REVIEW = "INSERT INTO review_audit (item_id, action, detail, at) VALUES (%s, %s, %s, %s)"


def audit_document(conn: Connection, doc_id: str, note: str, now: str) -> None:
    """Audit a level set by hand (``note`` says by whom and why); nothing without a note."""
    if note:
        conn.execute(AUDIT_DOCUMENT, (doc_id, "sensitivity_override", note, now))


def upserts(doc_ids: Sequence[str]) -> list[tuple[str, ChangeKind]]:
    """The change-log entries of documents written (``changes.record_changes``)."""
    return [(doc_id, ChangeKind.UPSERT) for doc_id in doc_ids]


def level_copies(conn: Connection, content_hash: str, now: str) -> list[str]:
    """Raise every copy of one content to the highest level any of them holds (the rule and
    its reasons are on ``ingest_writes.level_copies``); the caller holds the content's lock.
    The documents raised."""
    copies = conn.execute(
        "SELECT doc_id, sensitivity, content_sensitivity FROM documents "
        "WHERE content_hash = %s ORDER BY doc_id",
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
        _raise_rows(conn, doc_id, top)
        detail = f"{level} -> {top.value}: same content as {top_doc}"
        conn.execute(AUDIT_DOCUMENT, (doc_id, "sensitivity_raised", detail, now))
        raised.append(str(doc_id))
    return raised


def _raise_rows(conn: Connection, doc_id: str, level: Sensitivity) -> None:
    """Every row of a document below ``level`` raised to it (rows above it keep theirs)."""
    below = f"{rank_sql('sensitivity')} < %s"
    conn.execute("UPDATE documents SET sensitivity = %s WHERE doc_id = %s", (level.value, doc_id))
    conn.execute(
        f"UPDATE fact_metric SET sensitivity = %s WHERE source_doc_id = %s AND {below}",
        (level.value, doc_id, level.rank),
    )
    for table in ("text_blocks", "chunks", "review_items"):
        conn.execute(
            f"UPDATE {table} SET sensitivity = %s WHERE doc_id = %s AND {below}",
            (level.value, doc_id, level.rank),
        )
    drop_restricted_vectors(conn, doc_id)


def delete_rows(conn: Connection, doc_id: str) -> None:
    """Delete every row a document contributed; its manifest row is the caller's business."""
    conn.execute("DELETE FROM fact_metric WHERE source_doc_id = %s", (doc_id,))
    for table in ("text_blocks", "review_items", "chunks"):
        conn.execute(f"DELETE FROM {table} WHERE doc_id = %s", (doc_id,))


def delete_manifest(conn: Connection, doc_id: str) -> bool:
    """Delete a document's manifest row; whether there was one."""
    return conn.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,)).rowcount > 0


def insert_review(
    conn: Connection, doc_id: str, review: Sequence[ReviewItem], now: str, note: str
) -> None:
    """Insert a document's review items; continued ones keep their id, state and decision."""
    for item in review:
        values = (
            doc_id,
            item.locator,
            item.reason,
            item.detail,
            None if item.proposed is None else Jsonb(item.proposed),
            item.state.value,
            item.sensitivity,
            item.created_at or now,
            item.resolved_at,
            item.corrected_value,
        )
        if not item.item_id:
            conn.execute(
                f"INSERT INTO review_items ({REVIEW_INSERT}) VALUES ({REVIEW_MARKS})", values
            )
            continue
        conn.execute(
            f"INSERT INTO review_items (item_id, {REVIEW_INSERT}) VALUES (%s, {REVIEW_MARKS})",
            (item.item_id, *values),
        )
        if item.state is not ReviewState.OPEN:
            action = f"{item.state.value} (carried over)"
            conn.execute(AUDIT_REVIEW, (item.item_id, action, note, now))
