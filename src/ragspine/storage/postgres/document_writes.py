"""What the PostgreSQL workspace store adds to the shared write steps
(``storage/workspace_writes.py``): the change-log entries of the documents a write touched, and
levelling copies of one content with the vectors a raise made RESTRICTED dropped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from ragspine.storage import workspace_writes
from ragspine.storage.postgres.changes import ChangeKind
from ragspine.storage.postgres.dialect import POSTGRES
from ragspine.storage.postgres.vectors import drop_restricted_vectors

Connection = psycopg.Connection[Any]


def upserts(doc_ids: Sequence[str]) -> list[tuple[str, ChangeKind]]:
    """The change-log entries of documents written (``changes.record_changes``)."""
    return [(doc_id, ChangeKind.UPSERT) for doc_id in doc_ids]


def level_copies(conn: Connection, content_hash: str, now: str) -> list[str]:
    """Raise every copy of one content to the highest level any of them holds (the rule and
    its reasons are on ``workspace_writes.level_copies``); the caller holds the content's
    lock. A raised copy's vectors a RESTRICTED level no longer allows go too. The documents
    raised."""
    raised = workspace_writes.level_copies(conn, POSTGRES, content_hash, now)
    for doc_id in raised:
        drop_restricted_vectors(conn, doc_id)
    return raised
