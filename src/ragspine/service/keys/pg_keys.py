"""API keys in PostgreSQL: the scale-out twin of :class:`~ragspine.service.keys.store.KeyStore`.

Same methods, same checks, same :class:`~ragspine.service.keys.store.Authenticator`: every API
process of a deployment reads the one ``api_keys`` table (schema step 4), so a key revoked
from any of them authenticates nowhere from the next request on.
"""

from __future__ import annotations

import builtins
from typing import Any, Self

from ragspine.optional import import_optional

import_optional("psycopg", extra="postgres")

# The extra is checked above, so these imports are sure to find it.
import psycopg  # noqa: E402

from ragspine.errors import StoreError, UsageError  # noqa: E402
from ragspine.profile.sensitivity import Sensitivity  # noqa: E402
from ragspine.service.keys.store import (  # noqa: E402
    Caller,
    KeyInfo,
    find_key,
    name_taken,
    new_key,
    presentable,
    shown_prefix,
    token_digest,
)
from ragspine.storage.facts import utc_timestamp  # noqa: E402
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase  # noqa: E402
from ragspine.storage.postgres.migrations import open_checked  # noqa: E402


class PostgresKeyStore:
    """The API keys of a deployment, in its PostgreSQL schema; an ``Authenticator``."""

    def __init__(
        self, url: str, *, schema: str = DEFAULT_SCHEMA, database: PostgresDatabase | None = None
    ) -> None:
        # ``database``: a pool this process already holds on the schema (its owner closes it).
        self._owns_db = database is None
        self._db = open_checked(url, schema=schema) if database is None else database

    def create(self, name: str, clearance: Sensitivity | str) -> tuple[KeyInfo, str]:
        """A new key: its description and the token, which exists nowhere else afterwards."""
        level, token = new_key(name, clearance)
        created = utc_timestamp()
        try:
            with self._db.transaction() as conn:
                row = conn.execute(
                    "INSERT INTO api_keys (name, prefix, token_hash, clearance, created_at) "
                    "VALUES (%s, %s, %s, %s, %s) RETURNING key_id",
                    (name, shown_prefix(token), token_digest(token), level.value, created),
                ).fetchone()
        except psycopg.errors.UniqueViolation:
            raise name_taken(name) from None
        except psycopg.Error as exc:
            raise self._failure("create a key", exc) from exc
        assert row is not None  # INSERT ... RETURNING always returns the row
        return KeyInfo(int(row[0]), name, shown_prefix(token), level, created), token

    def list(self) -> builtins.list[KeyInfo]:
        """Every key, revoked ones included, oldest first."""
        rows = self._query(
            "SELECT key_id, name, prefix, clearance, created_at, revoked_at FROM api_keys "
            "ORDER BY key_id"
        )
        return [
            KeyInfo(int(key_id), name, prefix, Sensitivity(level), created, revoked)
            for key_id, name, prefix, level, created, revoked in rows
        ]

    def revoke(self, name_or_id: str | int) -> KeyInfo:
        """Revoke the active key of that name (or that id); it authenticates no more."""
        key = find_key(self.list(), str(name_or_id))
        if not key.active:
            raise UsageError(f"key {key.name!r} (id {key.key_id}) is already revoked")
        revoked = utc_timestamp()
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "UPDATE api_keys SET revoked_at = %s WHERE key_id = %s AND revoked_at = ''",
                    (revoked, key.key_id),
                )
        except psycopg.Error as exc:
            raise self._failure("revoke a key", exc) from exc
        return KeyInfo(key.key_id, key.name, key.prefix, key.clearance, key.created_at, revoked)

    def authenticate(self, token: str) -> Caller | None:
        if not presentable(token):
            return None
        rows = self._query(
            "SELECT name, clearance FROM api_keys WHERE token_hash = %s AND revoked_at = ''",
            (token_digest(token),),
        )
        return Caller(rows[0][0], Sensitivity(rows[0][1])) if rows else None

    def close(self) -> None:
        if self._owns_db:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(
        self, statement: str, params: tuple[object, ...] = ()
    ) -> builtins.list[tuple[Any, ...]]:
        try:
            with self._db.connection() as conn:
                return list(conn.execute(statement, params).fetchall())
        except psycopg.Error as exc:
            raise self._failure("read the API keys", exc) from exc

    def _failure(self, action: str, exc: psycopg.Error) -> StoreError:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"PostgreSQL database {self._db.describe()}: cannot {action}: {reason}")
