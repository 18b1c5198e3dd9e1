"""The embedded workspace store's tables (``ragspine.db`` beside the facts): the manifest,
text blocks, chunks, the review queue and the audit logs, with the schema version a workspace
records and the statements that bring an older one up to it (``ingest_store.init_schema``)."""

from __future__ import annotations

COMPONENT = "ingest"
# 2: documents.content_sensitivity (the level from the file's name and content alone) and the
# document_audit table. 3: documents.n_hidden (hidden content the reader skipped).
SCHEMA_VERSION = 3

SCHEMA = (
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
MIGRATIONS = {
    2: ("ALTER TABLE documents ADD COLUMN content_sensitivity TEXT NOT NULL DEFAULT ''",),
    3: ("ALTER TABLE documents ADD COLUMN n_hidden INTEGER NOT NULL DEFAULT 0",),
}
