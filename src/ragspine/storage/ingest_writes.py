"""The statements a workspace store's write transactions share: a document's rows deleted or
raised to a level, copies of one content levelled, review items inserted with their carried
decisions, and the document audit. Each runs inside the caller's transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import (
    DocumentRecord,
    ReviewItem,
    ReviewState,
)
from ragspine.storage.ingest_rows import json_text

REVIEW_INSERT = (
    "doc_id, locator, reason, detail, proposed, state, sensitivity, created_at, resolved_at, "
    "corrected_value"
)
REVIEW_MARKS = ", ".join("?" for _ in REVIEW_INSERT.split(","))


def rank_sql(expression: str) -> str:
    """A SQL expression ranking a sensitivity level (our own enum values only)."""
    cases = " ".join(f"WHEN '{level.value}' THEN {level.rank}" for level in Sensitivity)
    return f"(CASE {expression} {cases} END)"


def audit_document(conn: sqlite3.Connection, doc_id: str, note: str, now: str) -> None:
    if note:
        conn.execute(
            "INSERT INTO document_audit (doc_id, action, detail, at) VALUES (?, ?, ?, ?)",
            (doc_id, "sensitivity_override", note, now),
        )


def level_copies(conn: sqlite3.Connection, content_hash: str, now: str) -> None:
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
        raise_rows(conn, doc_id, top)
        conn.execute(
            "INSERT INTO document_audit (doc_id, action, detail, at) VALUES (?, ?, ?, ?)",
            (
                doc_id,
                "sensitivity_raised",
                f"{level} -> {top.value}: same content as {top_doc}",
                now,
            ),
        )


def raise_rows(conn: sqlite3.Connection, doc_id: str, level: Sensitivity) -> None:
    """Every row of a document below ``level`` raised to it (rows above it keep theirs)."""
    below = f"{rank_sql('sensitivity')} < ?"
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


def delete_rows(conn: sqlite3.Connection, doc_id: str) -> None:
    """Delete every row a document contributed; its manifest row is the caller's business."""
    conn.execute("DELETE FROM fact_metric WHERE source_doc_id = ?", (doc_id,))
    for table in ("text_blocks", "review_items", "chunks"):
        conn.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))


def delete_manifest(conn: sqlite3.Connection, doc_id: str) -> bool:
    return conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,)).rowcount > 0


def carry_note(record: DocumentRecord, replaces: str | None) -> str:
    """The audit note of a decision carried over to a re-ingested or renamed document."""
    where = f"{record.doc_id} (renamed from {replaces})" if replaces else record.doc_id
    return f"unchanged in {where}, content {record.content_hash[:12]}"


def insert_review(
    conn: sqlite3.Connection, doc_id: str, review: Sequence[ReviewItem], now: str, note: str
) -> None:
    """Insert a document's review items; continued ones keep their id, state and decision."""
    for item in review:
        values = (
            doc_id,
            item.locator,
            item.reason,
            item.detail,
            json_text(item.proposed),
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
            f"INSERT INTO review_items (item_id, {REVIEW_INSERT}) VALUES (?, {REVIEW_MARKS})",
            (item.item_id, *values),
        )
        if item.state is not ReviewState.OPEN:
            conn.execute(
                "INSERT INTO review_audit (item_id, action, detail, at) VALUES (?, ?, ?, ?)",
                (item.item_id, f"{item.state.value} (carried over)", note, now),
            )
