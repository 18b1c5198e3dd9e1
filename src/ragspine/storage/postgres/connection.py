"""One PostgreSQL schema reached through a psycopg connection pool.

Every table of a deployment lives in one named schema (``ragspine`` by default): each pooled
connection sets its ``search_path`` to it, so the SQL names tables unqualified and several
deployments (or test runs) can share one database without touching each other's rows.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool
from psycopg import sql

from ragspine.errors import StoreError, UsageError

DEFAULT_SCHEMA = "ragspine"
# Unquoted lower-case identifiers only: the name goes into SET search_path and CREATE SCHEMA,
# and a name that needs quoting is far more likely a typo than a wish.
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
# How long opening a database waits for the server before failing.
CONNECT_SECONDS = 10.0
# What a pooled connection waits for the server (libpq's `connect_timeout`, whose least is 2 s).
POOL_CONNECT_SECONDS = 2
# How long a caller waits for a pooled connection before failing: a query takes milliseconds,
# so a second without one means the server is down (or the process far past its capacity),
# and the caller answers 503 at once rather than hanging.
POOL_WAIT_SECONDS = 1.0
# How long the pool retries one lost connection in the background before it gives up on it;
# the next caller then starts a fresh attempt. Short, because psycopg_pool doubles its delay
# between attempts without bound: after an outage of a minute a pool that kept retrying would
# wait half a minute more before it tried the server again.
RECONNECT_SECONDS = 2.0


def check_schema_name(schema: str) -> str:
    """``schema`` if it is a plain lower-case identifier; ``UsageError`` otherwise."""
    if not _SCHEMA_NAME.fullmatch(schema):
        raise UsageError(
            f"PostgreSQL schema name {schema!r} is not a plain identifier "
            "(lower-case letters, digits and _, not starting with a digit, at most 63)"
        )
    return schema


def redact(url: str) -> str:
    """``url`` without its password (``user:PASSWORD@`` or ``password=``), for messages."""
    hidden = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", hidden)


class PostgresDatabase:
    """A connection pool onto one schema of one database: what each PostgreSQL store holds.

    Connections run in autocommit; :meth:`transaction` and :meth:`snapshot` group statements.
    A snapshot pins its connection to the calling thread, so every read inside it sees the
    same commit.

    A connection is checked (one empty round trip) before it is lent, so one the server closed
    (a restart, an idle timeout) is replaced instead of failing the caller's statement; with
    the server down a caller fails within ``POOL_WAIT_SECONDS``.
    """

    def __init__(
        self,
        url: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        read_only: bool = False,
        max_size: int = 4,
    ) -> None:
        self.url = url
        self.schema = check_schema_name(schema)
        self.read_only = read_only
        self._pinned = threading.local()
        # One plain connection first: an unreachable server fails now with the driver's own
        # reason, where the pool would retry in the background until its timeout.
        try:
            psycopg.connect(url, connect_timeout=int(CONNECT_SECONDS)).close()
        except psycopg.Error as exc:
            raise self._unreachable(exc) from exc
        self._pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "connect_timeout": POOL_CONNECT_SECONDS},
            configure=self._configure,
            check=psycopg_pool.ConnectionPool.check_connection,
            timeout=POOL_WAIT_SECONDS,
            reconnect_timeout=RECONNECT_SECONDS,
            open=False,
            name=f"ragspine-{schema}",
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_SECONDS)
        except psycopg.Error as exc:
            self._pool.close()
            raise self._unreachable(exc) from exc

    def describe(self) -> str:
        return f"{redact(self.url)} (schema {self.schema})"

    def _unreachable(self, exc: psycopg.Error) -> StoreError:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"cannot open PostgreSQL database {self.describe()}: {reason}")

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        # UTC: timestamps come back in the zone the canonical fact timestamps are written in.
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        conn.execute("SET TIME ZONE 'UTC'")
        if self.read_only:
            # What `ask` opens: the server itself refuses any write on these connections.
            conn.execute("SET default_transaction_read_only = on")

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The thread's snapshot connection if it holds one, else a pooled connection."""
        pinned: psycopg.Connection[Any] | None = getattr(self._pinned, "conn", None)
        if pinned is not None:
            yield pinned
            return
        with self._pool.connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """Run the block as one transaction (a savepoint inside a snapshot)."""
        with self.connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run the block's reads in one repeatable-read transaction; nests by joining."""
        if getattr(self._pinned, "conn", None) is not None:
            yield
            return
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            self._pinned.conn = conn
            try:
                yield
            finally:
                self._pinned.conn = None

    def close(self) -> None:
        self._pool.close()
