"""A read cache for a WAL-mode SQLite file that notices every commit, from any process, without
a system call.

Every connection to a WAL database shares its wal-index: the ``-shm`` file beside it, which
each process maps into memory. The index opens with two copies of a 48-byte header that a
writer rewrites on every commit (its change counter, frame count and checksums) and on every
restart of the WAL (its salts): the second copy first, then the first, so a reader that finds
the two copies equal holds a consistent header. Comparing that header with the one seen before
is how SQLite itself decides whether its page cache is still valid
(https://www.sqlite.org/walformat.html, "the WAL-index header"); :class:`WalWatch` makes the
same comparison on the same mapped memory.

Why bother: on the structured path one fact lookup cost about a quarter of an answer. The
statement itself is quick when warm, but every read transaction takes and drops a lock on the
``-shm`` file (two ``fcntl`` calls), and between questions SQLite's code and pages fall out of
the CPU caches. A cached value costs two 48-byte reads and a dictionary lookup.

What keeps the mapping safe: the store maps the ``-shm`` file only after its own connection has
opened the WAL. While that connection stays open it holds a shared lock that stops any other
connection from truncating or re-initialising the file (SQLite only does so as the sole
connection), and the store drops the mapping before it closes the connection.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

__all__ = ["ReadCache", "WalWatch"]

_HEADER = 48  # one copy of the wal-index header; the second copy follows it
_IS_INIT = 12  # offset of the header's "initialised" flag
MAX_ENTRIES = 4096  # values kept for one state of the file; a change empties the cache

_Value = TypeVar("_Value")
_MISSING = object()


class WalWatch:
    """The current state of a WAL database, as the header its wal-index holds right now."""

    def __init__(self, shm: mmap.mmap) -> None:
        self._shm = shm

    @classmethod
    def open(cls, database: Path) -> WalWatch | None:
        """Map ``database``'s ``-shm`` file, or None when there is none to map (not WAL, an
        in-memory database, a file system without shared memory) or it is not writable here:
        SQLite then keeps its own copy of the index in private memory, and the file may lag
        behind the database. The cache is then off."""
        shm = f"{database}-shm"
        if not os.access(shm, os.R_OK | os.W_OK):
            return None
        try:
            fd = os.open(shm, os.O_RDONLY)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size < 2 * _HEADER:
                return None
            return cls(mmap.mmap(fd, 2 * _HEADER, access=mmap.ACCESS_READ))
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)  # the mapping keeps the file open

    def state(self) -> bytes | None:
        """The header, or None while a writer is between its two copies (or before SQLite has
        initialised the index): the caller must then read the database itself."""
        header = self._shm[:_HEADER]
        if header != self._shm[_HEADER : 2 * _HEADER] or not header[_IS_INIT]:
            return None
        return header

    def close(self) -> None:
        self._shm.close()


class ReadCache:
    """Values read from the database, valid until the file's next commit or WAL restart.

    :meth:`get` reads the state before and after loading a value and keeps the value only when
    the two agree, so a value is only ever filed under a state it was read in.
    """

    def __init__(self, watch: WalWatch) -> None:
        self._watch = watch
        self._lock = threading.Lock()
        # The state the values were read in and the values, one tuple: a reader takes both in
        # one step without the lock (a writer replaces the tuple, or adds to its dictionary).
        self._kept: tuple[bytes | None, dict[Hashable, object]] = (None, {})

    def state(self) -> bytes | None:
        """The file's state now (``WalWatch.state``)."""
        return self._watch.state()

    def get(self, key: Hashable, load: Callable[[], _Value], *, at: bytes | None = None) -> _Value:
        """The value kept for ``key`` at the file's current state, else ``load()``'s.

        ``at`` is the state of a read transaction that ``load`` runs in (a pinned snapshot):
        the value is then kept and served for that state, whatever was committed since.
        """
        state = self._watch.state() if at is None else at
        if state is None:
            return load()
        kept_state, values = self._kept
        if state == kept_state:
            # No typing.cast: a function call at run time, on every question's every read.
            kept = values.get(key, _MISSING)
            if kept is not _MISSING:
                return kept  # type: ignore[return-value]
        value = load()
        if at is not None or self._watch.state() == state:
            with self._lock:
                kept_state, values = self._kept
                if state != kept_state or len(values) >= MAX_ENTRIES:
                    values = {}
                    self._kept = (state, values)
                values[key] = value
        return value

    def close(self) -> None:
        with self._lock:
            self._kept = (None, {})
        self._watch.close()
