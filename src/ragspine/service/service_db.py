"""The service's own SQLite file, ``DIR/service.db``: API keys and ingestion jobs.

It is a separate file from ``ragspine.db`` so what only the service writes never changes the
ingest store's versioned schema (which a read-only open checks). One small schema, numbered
with ``PRAGMA user_version``; WAL mode and one connection per thread, so request threads, the
job worker and a ``ragspine keys`` command in another process can all use it at once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ragspine.errors import StoreError
from ragspine.storage.sqlite_store import BUSY_SECONDS
from ragspine.workspace import Workspace

_SCHEMA = (
    """CREATE TABLE api_keys (
        key_id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        clearance TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT NOT NULL DEFAULT ''
    )""",
    # A name is unique among the active keys only: a revoked key's name may be given again.
    "CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at = ''",
    """CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
        owner TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX jobs_state ON jobs (state, created_at)",
    """CREATE TABLE job_files (
        job_id TEXT NOT NULL REFERENCES jobs (job_id),
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        path TEXT NOT NULL,
        outcome TEXT NOT NULL DEFAULT '',
        facts INTEGER NOT NULL DEFAULT 0,
        chunks INTEGER NOT NULL DEFAULT 0,
        review INTEGER NOT NULL DEFAULT 0,
        warnings TEXT NOT NULL DEFAULT '[]',
        error TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (job_id, position)
    )""",
)

# Each step takes the schema from its index + 1 to the next version; a new file runs them all.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    _SCHEMA,
    # 2: a job remembers the key that submitted it (only that key may read its status), and
    # each file the document id it is ingested as.
    (
        "ALTER TABLE jobs ADD COLUMN submitter TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE job_files ADD COLUMN doc_id TEXT NOT NULL DEFAULT ''",
    ),
    # 3: and that key's clearance, which decides how the job's conflicts are resolved; a job
    # queued before it is run as PUBLIC, the level whose resolution tells nothing.
    ("ALTER TABLE jobs ADD COLUMN clearance TEXT NOT NULL DEFAULT 'PUBLIC'",),
    # 4: whether the job reads hidden sheets, rows, columns, slides and text (``include_hidden``).
    ("ALTER TABLE jobs ADD COLUMN include_hidden INTEGER NOT NULL DEFAULT 0",),
    # 5: the states superseded and canceled (SQLite cannot alter a CHECK: the table is built
    # again), each file's place in the order uploads arrived, and per document the newest
    # upload written into it, so an older upload never replaces a newer one.
    (
        """CREATE TABLE jobs_next (
            job_id TEXT PRIMARY KEY,
            state TEXT NOT NULL CHECK (state IN
                ('queued', 'running', 'done', 'failed', 'superseded', 'canceled')),
            owner TEXT NOT NULL DEFAULT '',
            error TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            submitter TEXT NOT NULL DEFAULT '',
            clearance TEXT NOT NULL DEFAULT 'PUBLIC',
            include_hidden INTEGER NOT NULL DEFAULT 0
        )""",
        "INSERT INTO jobs_next SELECT job_id, state, owner, error, created_at, updated_at, "
        "submitter, clearance, include_hidden FROM jobs",
        "DROP TABLE jobs",
        "ALTER TABLE jobs_next RENAME TO jobs",
        "CREATE INDEX jobs_state ON jobs (state, created_at)",
        "ALTER TABLE job_files ADD COLUMN upload_seq INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE document_uploads (
            doc_id TEXT PRIMARY KEY,
            upload_seq INTEGER NOT NULL,
            job_id TEXT NOT NULL
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class ServiceDb:
    """``DIR/service.db`` of an existing workspace, its schema created on first use.

    Each thread gets its own connection (SQLite connections are not for sharing); :meth:`close`
    closes them all.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.path = workspace.service_db_path
        self._local = threading.local()
        self._guard = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        try:
            self._init_schema()
        except BaseException:
            self.close()
            raise

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; use :meth:`transaction` to group writes)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._guard:
            if self._closed:
                raise StoreError(f"{self.path} is closed")
            conn = self._connect()
            self._connections.append(conn)
        self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on this thread's connection, taken at once (``IMMEDIATE``) so
        two processes claiming the same row cannot both read it first."""
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write {self.path}: {exc}") from exc
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(f"cannot write {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._guard:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            # Used by its own thread only; closed by `close` from whichever thread calls it.
            conn = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS
            )
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from exc
        return conn

    def _init_schema(self) -> None:
        with self.transaction() as conn:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer ragspine (schema {version}; this "
                    f"version reads {SCHEMA_VERSION}); upgrade ragspine"
                )
            for step in MIGRATIONS[version:]:
                for statement in step:
                    conn.execute(statement)
            if version < SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
