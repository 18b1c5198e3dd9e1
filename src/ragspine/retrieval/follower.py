"""A process's own BM25 index, built from PostgreSQL and kept current by its change log.

With PostgreSQL as the source of truth every API process keeps its own tantivy index in a
local folder and follows the ``changes`` table (``storage/postgres/changes.py``): it applies
the changes after the last sequence number it applied, which it stores beside the index, so a
restarted process catches up from where it stopped and a new one builds from zero. A
background thread waits on ``LISTEN`` for the writers' notification (delivered at commit), and
polls as well, so a lost notification delays a change by one poll at most.

Applying a change re-reads the document's current rows rather than replaying what was
written: a document changed three times since the last catch-up is indexed once, and a crash
between the index commit and the saved sequence number only repeats work. The index is the
same tantivy index, tokenizer and document versions as the embedded workspace's, so it ranks
the same corpus the same way.

Layout of the folder:
    DIR/lexical/        the tantivy index (``lexical.LexicalIndex``)
    DIR/follower.json   the database it follows and the last sequence number applied
    DIR/follower.lock   held by the one process following into this folder
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.lexical import LexicalIndex, is_current
from ragspine.retrieval.lexical_batches import add_in_batches
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.retriever import document_versions

if TYPE_CHECKING:
    from ragspine.storage.postgres import PostgresWorkspaceStore

_log = logging.getLogger(__name__)

STATE_FILE = "follower.json"
LOCK_FILE = "follower.lock"
# The schema step that created the change log (``storage/postgres/steps.py``).
CHANGES_STEP = 4
LEXICAL_DIR = "lexical"
FORMAT_VERSION = 1
# The fallback when a notification is lost (a dropped connection): the 5 s freshness promise
# holds with room to spare.
POLL_SECONDS = 1.0
# How long ``stop`` may wait for the listening thread to notice.
STOP_SLICE_SECONDS = 0.25


class IndexFollower:
    """The BM25 index of one PostgreSQL schema in a local folder; searchable while it follows.

    ``catch_up`` applies every committed change the index lacks; ``start`` runs it in a
    background thread on each notification (and every ``poll_seconds``) until ``stop``.
    ``search`` and ``doc_versions`` read the last applied state, as ``LexicalIndex`` does.
    """

    def __init__(self, store: PostgresWorkspaceStore, folder: str | Path) -> None:
        from ragspine.storage.postgres import PostgresWorkspaceStore

        self.store = store
        self.folder = Path(folder)
        self._lock = threading.RLock()
        self._identity = _identity(store)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _hold(self.folder / LOCK_FILE)
        try:
            # Catch-ups read through a connection of their own, taken under the lock, never
            # through ``store``'s pool: a question holds one of those connections for its
            # whole snapshot while it catches up (waiting for the lock), so a catch-up that
            # held the lock and waited for one would wait on the questions it blocks. A fresh
            # snapshot per catch-up also never predates what the index already holds.
            self._reader = PostgresWorkspaceStore(
                store.database.url,
                schema=store.database.schema,
                read_only=True,
                max_connections=1,
            )
        except BaseException:
            os.close(self._lock_fd)
            raise
        try:
            self._open_index()
        except BaseException:
            self._reader.close()
            os.close(self._lock_fd)
            raise
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_error: Callable[[Exception], None] = _warn

    def _open_index(self) -> None:
        """Resume the index in the folder, or start an empty one where it cannot resume."""
        state = _read_state(self.folder / STATE_FILE)
        built = is_current(self.folder / LEXICAL_DIR)
        if state.get("database") != self._identity or not built:
            # Another database (or a schema dropped and created again), a first build that
            # never finished, or an index of an older format: it cannot be resumed.
            shutil.rmtree(self.folder / LEXICAL_DIR, ignore_errors=True)
            state = {}
        self.seq = int(state.get("seq", 0))
        self._index = LexicalIndex.open(self.folder / LEXICAL_DIR)
        self._versions = self._index.doc_versions()

    # ------------------------------------------------------------------ following

    def catch_up(self) -> int:
        """Apply the committed changes after ``seq``; the number of documents re-indexed."""
        with self._lock:
            reader = self._reader
            with reader.snapshot(), reader.database.connection() as conn:
                from ragspine.storage.postgres.changes import changed_since, last_seq

                if last_seq(conn) < self.seq:
                    # The log went backwards: the schema was emptied and rebuilt.
                    self._reset()
                newest, changed = changed_since(conn, self.seq)
                if not changed:
                    return 0
                current = document_versions(reader)
                self._index.delete_documents(changed)
                kept_ids = sorted(d for d in changed if d in current)
                add_in_batches(self._index, (reader.list_chunks(d) for d in kept_ids))
                kept = {d: v for d, v in self._versions.items() if d not in changed}
                self._index.set_doc_versions(
                    kept | {d: current[d] for d in changed if d in current}
                )
            self._index.commit()
            self._versions = self._index.doc_versions()
            self.seq = newest
            _write_state(self.folder / STATE_FILE, {"database": self._identity, "seq": newest})
            return len(changed)

    def start(
        self,
        *,
        poll_seconds: float = POLL_SECONDS,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Follow in a background thread (after one catch-up here, so the index is current
        when this returns). ``on_error`` hears of a failed catch-up (a warning is logged by
        default); the thread keeps going and the next catch-up retries."""
        self.catch_up()
        if self._thread is not None:
            return
        self._on_error = on_error or _warn
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._follow, args=(poll_seconds,), name="ragspine-follower", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _follow(self, poll_seconds: float) -> None:
        from ragspine.storage.postgres.changes import CHANGES_CHANNEL

        while not self._stopping.is_set():
            try:
                with _listening(self.store, CHANGES_CHANNEL) as conn:
                    while not self._stopping.is_set():
                        self.catch_up()
                        self._wait(conn, poll_seconds)
            except Exception as exc:  # a lost connection: report, wait, listen again
                self._on_error(exc)
                self._stopping.wait(poll_seconds)

    def _wait(self, conn: Any, poll_seconds: float) -> None:
        """Until a notification (ours or another schema's), ``poll_seconds``, or ``stop``:
        waited in slices, so ``stop`` never waits a whole poll."""
        waited = 0.0
        while waited < poll_seconds and not self._stopping.is_set():
            wait = min(STOP_SLICE_SECONDS, poll_seconds - waited)
            if any(True for _ in conn.notifies(timeout=wait, stop_after=1)):
                return
            waited += wait

    # ------------------------------------------------------------------ reading

    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, float]]:
        with self._lock:
            return self._index.search(query, top_k=top_k, filters=filters, clearance=clearance)

    def doc_versions(self) -> dict[str, str]:
        with self._lock:
            return dict(self._versions)

    def __len__(self) -> int:
        return len(self._index)

    # ------------------------------------------------------------------ lifetime

    def _reset(self) -> None:
        self._index.close()
        shutil.rmtree(self.folder / LEXICAL_DIR, ignore_errors=True)
        self._index = LexicalIndex.open(self.folder / LEXICAL_DIR)
        self._versions = {}
        self.seq = 0

    def close(self) -> None:
        self.stop()
        with self._lock:
            self._index.close()
            self._reader.close()
            if self._lock_fd >= 0:
                os.close(self._lock_fd)
                self._lock_fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _identity(store: PostgresWorkspaceStore) -> str:
    """Names the change log this index follows: the schema and when its log was created, so
    an index is never resumed against another database's (or a re-created schema's) log."""
    with store.database.connection() as conn:
        found = conn.execute(
            "SELECT applied_at::text FROM schema_version WHERE version = %s", (CHANGES_STEP,)
        ).fetchone()
    return f"{store.describe()} @ {found[0] if found else ''}"


@contextmanager
def _listening(store: PostgresWorkspaceStore, channel: str) -> Iterator[Any]:
    """A connection of its own (never the pool's) that LISTENs on ``channel``."""
    import psycopg
    from psycopg import sql

    from ragspine.storage.postgres.connection import POOL_CONNECT_SECONDS

    with psycopg.connect(
        store.database.url, autocommit=True, connect_timeout=POOL_CONNECT_SECONDS
    ) as conn:
        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        yield conn


def _hold(path: Path) -> int:
    """An ``flock`` on ``path`` for this process's lifetime: one follower per folder."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"index folder {path.parent} is in use by another process; "
            "give each process its own --index-dir"
        ) from None
    return fd


def _read_state(path: Path) -> dict[str, Any]:
    try:
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if state.get("format") == FORMAT_VERSION else {}


def _write_state(path: Path, state: dict[str, Any]) -> None:
    """Atomically, after the index commit: a crash in between only repeats changes."""
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({"format": FORMAT_VERSION, **state}), encoding="utf-8")
    os.replace(temporary, path)


def _warn(exc: Exception) -> None:
    """The default report of a failed background catch-up (the next one retries)."""
    _log.warning("index follower: catch-up failed, retrying: %s", exc)
