"""The embedded fact store: one SQLite file in WAL mode, shared safely between threads.

A store opened ``read_only`` (what ``ask`` uses) connects with ``mode=ro``: under WAL it
neither blocks a writer nor waits for one, and it cannot create or change a table.

Fact lookups go through a :class:`~ragspine.storage.wal_watch.ReadCache` that any commit to
the file, from any connection or process, empties.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.dialect import SQLITE
from ragspine.storage.fact_sql import (
    MIGRATIONS,
    SCHEMA,
    VERSION_TABLE,
    fact_of_row,
    fact_queries,
)
from ragspine.storage.facts import DEFAULT_CHANNEL, Fact
from ragspine.storage.sql_facts import SQLFacts
from ragspine.storage.wal_watch import ReadCache, WalWatch

# 2: fact_metric.row_label (the label of the line a value was read from).
SCHEMA_VERSION = 2
# How long a connection waits on a lock before failing. Under WAL only writers wait (for each
# other); a reader waits only while SQLite recovers the WAL index after a crashed writer.
BUSY_SECONDS = 5.0
# The workspace database also holds chunks, the manifest and jobs, so PRAGMA user_version (one
# number per file) cannot say which part is at which version: each component keeps its own row.
_COMPONENT = "fact_metric"

_SQL = fact_queries(SQLITE)
_Read = TypeVar("_Read")
# Any read of the file starts a read transaction; the schema's first page is always there.
_START_READ = "SELECT 1 FROM sqlite_master LIMIT 1"
# The longest a kept read transaction is reused (``SQLiteFactStore.keep_snapshots``), however
# quiet the file: a bound on how long it can hold a checkpoint back.
KEPT_SECONDS = 1.0


def _in_wal_mode(conn: sqlite3.Connection) -> bool:
    """Whether the file is in WAL mode: only then does a wal-index record every commit (an
    in-memory database stays "memory"). A file that is not a database reads uncached; its
    first real read reports the error."""
    try:
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    except sqlite3.Error:
        return False
    return str(mode).lower() == "wal"


class SQLiteFactStore(SQLFacts):
    """A :class:`~ragspine.storage.protocol.FactStoreProtocol` over one SQLite file.

    One connection guarded by a re-entrant lock, so a web service can share the store across
    worker threads. Call :meth:`init_schema` once before the first read or write.

    A store on a file in WAL mode, read-only or not, keeps the facts it has read until the next
    commit to the file by any connection or process (:mod:`ragspine.storage.wal_watch`); an
    in-memory database is read every time.
    """

    _dialect = SQLITE

    def __init__(
        self, path: str | os.PathLike[str], *, read_only: bool = False, read_cache: bool = True
    ) -> None:
        """``read_cache=False`` reads every fact from the file; the cache never serves a value
        older than the file's last commit, so turning it off only costs time (the benchmark
        uses it to time an uncached lookup)."""
        self._path = Path(path)
        self._lock = threading.RLock()
        self.read_only = read_only
        self._conn = self._open()
        # Opened after the first read, once this connection has opened the WAL (its shared
        # lock on the -shm file is what keeps the mapping safe); False once known to be off.
        wal = read_cache and _in_wal_mode(self._conn)
        self._reads: ReadCache | bool | None = None if wal else False
        self._pinned: tuple[int, bytes] | None = None  # (thread, state) of the open snapshot
        # With ``keep_snapshots``: a finished snapshot's read transaction left open, with the
        # state it reads and when it began, for the next snapshot to reuse while the file has
        # not changed (``snapshot``).
        self.keep_snapshots = False
        self._kept: tuple[bytes, float] | None = None
        self._in_snapshot = False

    @property
    def path(self) -> Path:
        return self._path

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            return self._open_read_only()
        in_memory = str(self._path) == ":memory:"
        try:
            if not in_memory:
                self._path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: transactions are begun explicitly (BEGIN IMMEDIATE) below.
            conn = sqlite3.connect(
                self._path, check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open fact store {self._path}: {exc}") from exc
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            # With WAL, NORMAL never corrupts the file; an OS crash may lose the latest commits,
            # which re-ingesting the documents restores.
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(f"cannot open fact store {self._path}: {exc}") from exc
        return conn

    def _open_read_only(self) -> sqlite3.Connection:
        """A ``mode=ro`` connection: no file or table is created if the database is missing."""
        uri = f"{self._path.resolve().as_uri()}?mode=ro"
        try:
            return sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open fact store {self._path}: {exc}") from exc

    def schema_components(self) -> dict[str, int]:
        """``{component: schema version}`` this file records; empty when it holds no RAGSpine
        schema (a new or 0-byte file, or one that is not a SQLite database at all)."""
        with self._lock:
            try:
                rows = self._conn.execute("SELECT component, version FROM schema_version")
                return {str(name): int(version) for name, version in rows.fetchall()}
            except sqlite3.Error:
                return {}

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run the block's reads in one read transaction: they all see the same commit.

        Nests: inside another snapshot the block simply joins it (the HTTP service answers a
        whole question in one, and opening the retriever inside takes its own).
        """
        with self._lock:
            if self._in_snapshot or (self._conn.in_transaction and self._kept is None):
                yield
                return
            kept = self._reusable()
            if kept is None:
                self.release_kept()
                self._conn.execute("BEGIN")
            keep = False
            self._in_snapshot = True
            try:
                self._pinned = kept or self._pin()
                yield
                keep = self.keep_snapshots and self._pinned is not None
            finally:
                self._in_snapshot = False
                pinned, self._pinned = self._pinned, None
                if keep and pinned is not None:
                    began = self._kept[1] if kept is not None and self._kept else time.monotonic()
                    self._kept = (pinned[1], began)
                else:
                    self._kept = None
                    self._conn.execute("COMMIT")

    def _reusable(self) -> tuple[int, bytes] | None:
        """The kept read transaction as this thread's pin, when the file has had no commit
        since it began (its wal-index header is the same: one 96-byte read, no statement and
        no lock) and it is younger than ``KEPT_SECONDS``."""
        kept, reads = self._kept, self._reads
        if kept is None or not isinstance(reads, ReadCache):
            return None
        state, began = kept
        if reads.state() != state or time.monotonic() - began > KEPT_SECONDS:
            return None
        return threading.get_ident(), state

    def release_kept(self, *, idle: float = 0.0) -> None:
        """End the kept read transaction (one began at least ``idle`` seconds ago): a reader
        left open holds the WAL's frames, so a writer's checkpoint cannot move past them. The
        service calls this for a store that has answered nothing for a while; a store that
        is busy elsewhere (its lock held) is left alone."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            kept = self._kept
            if kept is None or self._in_snapshot or time.monotonic() - kept[1] < idle:
                return
            self._kept = None
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")
        finally:
            self._lock.release()

    def _pin(self) -> tuple[int, bytes] | None:
        """Start the snapshot's read transaction now, and name the state it reads (for this
        thread) when no commit slipped in while it started: cached values of that state are
        then the snapshot's values too."""
        reads = self._reads
        if not isinstance(reads, ReadCache):
            return None
        before = reads.state()
        try:
            self._conn.execute(_START_READ).fetchone()
        except sqlite3.Error as exc:
            raise self._failure("read facts", exc) from exc
        if before is None or reads.state() != before:
            return None
        return threading.get_ident(), before

    def _failure(self, action: str, exc: sqlite3.Error) -> StoreError:
        hint = "; call init_schema() first" if "no such table" in str(exc) else ""
        return StoreError(f"fact store {self._path}: cannot {action}: {exc}{hint}")

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """Run the block as one write transaction; any failure rolls all of it back."""
        with self._lock:
            self._outside_snapshot()
            conn = self._conn
            try:
                # IMMEDIATE takes the write lock up front, so two processes writing one
                # workspace wait for each other instead of failing halfway through.
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._failure(action, exc) from exc
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise self._failure(action, exc) from exc
                raise

    def _outside_snapshot(self) -> None:
        """A read or write outside a snapshot must not see the kept one's older state."""
        if self._kept is not None and not self._in_snapshot:
            self.release_kept()

    def _cached(self, key: Hashable, load: Callable[[], _Read]) -> _Read:
        """``load()``, or the value it gave for ``key`` when nothing was committed since.

        Inside a transaction the connection may see another state than the file's latest: a
        snapshot this thread pinned reads and fills the cache at its own state; any other
        transaction (a write in progress, a snapshot that could not be pinned, another
        thread's) reads the database itself.
        """
        if self._kept is not None and not self._in_snapshot:  # ``_outside_snapshot``, inlined
            self.release_kept()
        reads = self._reads
        if isinstance(reads, ReadCache):
            if not self._conn.in_transaction:
                return reads.get(key, load)
            pinned = self._pinned
            if pinned is not None and pinned[0] == threading.get_ident():
                return reads.get(key, load, at=pinned[1])
        value = load()
        if reads is None:
            with self._lock:
                if self._reads is None:
                    watch = WalWatch.open(self._path)
                    self._reads = False if watch is None else ReadCache(watch)
        return value

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            self._outside_snapshot()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._failure("read facts", exc) from exc

    def init_schema(self) -> None:
        with self._transaction("create the schema") as conn:
            conn.execute(VERSION_TABLE)
            self._init_component(conn, _COMPONENT, SCHEMA_VERSION, SCHEMA, MIGRATIONS)

    def _init_component(
        self,
        conn: sqlite3.Connection,
        component: str,
        version: int,
        schema: Sequence[str],
        migrations: Mapping[int, Sequence[str]],
        *,
        store: str = "fact store",
        what: str = "schema",
    ) -> None:
        """Bring one component's tables (``schema_version`` row ``component``) to ``version``:
        create what is missing, then run each newer version's ``migrations``. A file at a
        newer version than this ragspine's is refused (``StoreError``)."""
        row = conn.execute(
            "SELECT version FROM schema_version WHERE component = ?", (component,)
        ).fetchone()
        if row is not None and row[0] > version:
            raise StoreError(
                f"{store} {self._path} has {what} version {row[0]}, newer than this "
                f"ragspine understands ({version}); upgrade ragspine"
            )
        for statement in schema:
            conn.execute(statement)
        if row is not None:
            for step in range(int(row[0]) + 1, version + 1):
                for statement in migrations.get(step, ()):
                    conn.execute(statement)
        conn.execute(
            "INSERT OR REPLACE INTO schema_version (component, version) VALUES (?, ?)",
            (component, version),
        )

    def get_fact(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> Fact | None:
        rank = Sensitivity.parse(clearance).rank
        params = (metric_code, entity, period_type, period, channel, rank)
        return self._cached(params, lambda: self._get_fact(params))

    def _get_fact(self, params: tuple[str | int, ...]) -> Fact | None:
        with self._lock:
            try:
                row = self._conn.execute(_SQL.get_fact, params).fetchone()
            except sqlite3.Error as exc:
                raise self._failure("read facts", exc) from exc
        return None if row is None else fact_of_row(row)

    def _fact_of_row(self, row: tuple[Any, ...]) -> Fact:
        """A listed row's fact, built afresh (``get_fact`` goes through ``fact_of_row``)."""
        return Fact(*row)

    def close(self) -> None:
        with self._lock:
            self._kept = None  # closing the connection ends its transaction
            if isinstance(self._reads, ReadCache):
                self._reads.close()  # unmap the -shm file while the connection still holds it
            self._reads = False
            self._conn.close()
