"""The change log derived indexes follow: which documents' searchable rows changed, in order.

Every write that changes what a document contributes to search (its chunks, their level, a
held passage's review decision, its removal) appends one row per document to ``changes`` in
its own transaction, then notifies ``CHANGES_CHANNEL`` (delivered at commit) so followers
wake at once instead of polling.

PostgreSQL hands out identity values at insert, not at commit: two writers could commit seq 8
before seq 7, and a follower that read 8 and resumed after it would never see 7. So a writer
takes one transaction-level advisory lock per schema before inserting its change rows; it holds
it until it commits, and change rows become visible in seq order. Writers insert their changes
last, after every other lock they take, so the lock is held for the commit alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

import psycopg

# One channel for every schema: LISTEN takes an identifier of at most 63 bytes, which a schema
# name of 63 could not be appended to. The payload names the schema.
CHANGES_CHANNEL = "ragspine_changes"


class ChangeKind(StrEnum):
    UPSERT = "upsert"
    DELETE = "delete"


def record_changes(
    conn: psycopg.Connection[Any], schema: str, changes: Iterable[tuple[str, ChangeKind]]
) -> None:
    """Append ``(doc_id, kind)`` rows in the caller's transaction and notify at its commit."""
    rows = [(doc_id, kind.value) for doc_id, kind in dict(changes).items()]
    if not rows:
        return
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s), hashtext('changes'))", (schema,))
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO changes (doc_id, kind) VALUES (%s, %s)", rows)
    conn.execute("SELECT pg_notify(%s, %s)", (CHANGES_CHANNEL, schema))


def last_seq(conn: psycopg.Connection[Any]) -> int:
    """The newest committed change's seq (0 when none)."""
    row = conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()
    return int(row[0]) if row is not None else 0


def changed_since(conn: psycopg.Connection[Any], seq: int) -> tuple[int, dict[str, ChangeKind]]:
    """The newest seq after ``seq`` and the latest change of each document since it."""
    rows = conn.execute(
        "SELECT seq, doc_id, kind FROM changes WHERE seq > %s ORDER BY seq", (seq,)
    ).fetchall()
    latest = {str(doc_id): ChangeKind(str(kind)) for _, doc_id, kind in rows}
    return (int(rows[-1][0]) if rows else seq), latest
