"""The PostgreSQL fact store: the fact half of a scale-out deployment's source of truth.

It never creates or alters tables: ``ragspine db upgrade`` does, once per deploy, and opening a
store on a schema of another version fails with the command that fixes it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_sql import fact_queries
from ragspine.storage.facts import (
    DEFAULT_CHANNEL,
    FACT_FIELDS,
    Fact,
    utc_timestamp,
)
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase
from ragspine.storage.postgres.dialect import POSTGRES
from ragspine.storage.postgres.migrations import check_version
from ragspine.storage.sql_facts import SQLFacts

_SQL = fact_queries(POSTGRES)


@lru_cache(maxsize=4096)
def fact_of_row(row: tuple[Any, ...]) -> Fact:
    """The fact a stored row holds, built once per distinct row (see ``fact_sql.fact_of_row``);
    PostgreSQL hands ``ingested_at`` back as a datetime, canonicalised here."""
    values = dict(zip(FACT_FIELDS, row, strict=True))
    if isinstance(values["ingested_at"], datetime):
        values["ingested_at"] = utc_timestamp(values["ingested_at"])
    return Fact(**values)


class PostgresFactStore(SQLFacts):
    """A :class:`~ragspine.storage.protocol.FactStoreProtocol` over one PostgreSQL schema.

    Thread-safe: each call takes a pooled connection. ``read_only`` opens connections the
    server itself keeps from writing (what answering questions needs).
    """

    _dialect = POSTGRES

    def __init__(
        self,
        url: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        read_only: bool = False,
        max_connections: int = 4,
    ) -> None:
        self.read_only = read_only
        self._db = PostgresDatabase(
            url, schema=schema, read_only=read_only, max_size=max_connections
        )
        try:
            check_version(self._db)
        except BaseException:
            self._db.close()
            raise

    @property
    def database(self) -> PostgresDatabase:
        return self._db

    def describe(self) -> str:
        return self._db.describe()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run the block's reads in one repeatable-read transaction; nests by joining."""
        try:
            with self._db.snapshot():
                yield
        except psycopg.Error as exc:
            raise self._failure("read a snapshot", exc) from exc

    def _failure(self, action: str, exc: psycopg.Error) -> StoreError:
        hint = ""
        if isinstance(exc, psycopg.errors.UndefinedTable):
            hint = "; run `ragspine db upgrade` on this database"
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return StoreError(f"fact store {self.describe()}: cannot {action}: {reason}{hint}")

    @contextmanager
    def _transaction(self, action: str) -> Iterator[psycopg.Connection[Any]]:
        """Run the block as one write transaction; any failure rolls all of it back."""
        try:
            with self._db.transaction() as conn:
                yield conn
        except psycopg.Error as exc:
            raise self._failure(action, exc) from exc

    def _query(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._db.connection() as conn:
                return conn.execute(query, params).fetchall()
        except psycopg.Error as exc:
            raise self._failure("read", exc) from exc

    def init_schema(self) -> None:
        """Check the schema is this ragspine's version; ``ragspine db upgrade`` creates it.

        Replicas starting together must not race to run DDL, so only the upgrade command
        changes the schema; a store on another version refuses (``SchemaVersionError``).
        """
        try:
            check_version(self._db)
        except psycopg.Error as exc:
            raise self._failure("check the schema version", exc) from exc

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
        rows = self._query(_SQL.get_fact, (metric_code, entity, period_type, period, channel, rank))
        return fact_of_row(rows[0]) if rows else None

    def _fact_of_row(self, row: tuple[Any, ...]) -> Fact:
        return fact_of_row(row)

    def close(self) -> None:
        self._db.close()
