"""The PostgreSQL fact store: the fact half of a scale-out deployment's source of truth.

It never creates or alters tables: ``ragspine db upgrade`` does, once per deploy, and opening a
store on a schema of another version fails with the command that fixes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from types import TracebackType
from typing import Any, Self

import psycopg

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.facts import (
    DEFAULT_CHANNEL,
    FACT_FIELDS,
    Fact,
    ReviewStatus,
    utc_timestamp,
)
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase
from ragspine.storage.postgres.migrations import check_version

_APPROVED = f"'{ReviewStatus.APPROVED.value}'"
_COLUMNS = ", ".join(FACT_FIELDS)
_KEY_WHERE = (
    "metric_code = %s AND entity = %s AND period_type = %s AND period = %s AND channel = %s"
)


def rank_sql(expression: str) -> str:
    """A SQL expression ranking a sensitivity level (our own enum values only)."""
    cases = " ".join(f"WHEN '{level.value}' THEN {level.rank}" for level in Sensitivity)
    return f"(CASE {expression} {cases} END)"


_VISIBLE = f"review_status = {_APPROVED} AND {rank_sql('sensitivity')} <= %s"

FACT_UPSERT_SQL = (
    f"INSERT INTO fact_metric ({_COLUMNS}) VALUES ({', '.join('%s' for _ in FACT_FIELDS)}) "
    "ON CONFLICT (metric_code, entity, period_type, period, channel, source_doc_id) DO UPDATE "
    "SET "
    + ", ".join(
        f"{name} = EXCLUDED.{name}"
        for name in FACT_FIELDS
        if name
        not in ("metric_code", "entity", "period_type", "period", "channel", "source_doc_id")
    )
)
# As in SQLite: the most sensitive visible fact answers, then the most recent.
_GET_FACT_SQL = (
    f"SELECT {_COLUMNS} FROM fact_metric WHERE {_KEY_WHERE} AND {_VISIBLE} "
    f"ORDER BY {rank_sql('sensitivity')} DESC, ingested_at DESC, source_doc_id ASC LIMIT 1"
)
_PERIODS_SQL = (
    "SELECT DISTINCT period_type, period FROM fact_metric "
    f"WHERE metric_code = %s AND entity = %s AND channel = %s AND {_VISIBLE} "
    "ORDER BY period_type, period"
)
_LIST_ORDER = " ORDER BY source_doc_id, metric_code, entity, channel, period, period_type"
_SET_STATUS_SQL = (
    f"UPDATE fact_metric SET review_status = %s WHERE {_KEY_WHERE} AND source_doc_id = %s"
)
_DELETE_DOC_SQL = "DELETE FROM fact_metric WHERE source_doc_id = %s"


@lru_cache(maxsize=4096)
def fact_of_row(row: tuple[Any, ...]) -> Fact:
    """The fact a stored row holds, built once per distinct row (see the SQLite store)."""
    values = dict(zip(FACT_FIELDS, row, strict=True))
    if isinstance(values["ingested_at"], datetime):
        values["ingested_at"] = utc_timestamp(values["ingested_at"])
    return Fact(**values)


def rows_of(facts: Iterable[Fact]) -> list[tuple[Any, ...]]:
    """Facts as insert rows; one timestamp for the whole batch when a fact brings none."""
    now = utc_timestamp()
    return [
        tuple(
            (fact.ingested_at or now) if name == "ingested_at" else getattr(fact, name)
            for name in FACT_FIELDS
        )
        for fact in facts
    ]


class PostgresFactStore:
    """A :class:`~ragspine.storage.protocol.FactStoreProtocol` over one PostgreSQL schema.

    Thread-safe: each call takes a pooled connection. ``read_only`` opens connections the
    server itself keeps from writing (what answering questions needs).
    """

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

    def upsert_facts(self, facts: Iterable[Fact]) -> int:
        rows = rows_of(facts)
        with self._transaction("write facts") as conn, conn.cursor() as cur:
            cur.executemany(FACT_UPSERT_SQL, rows)
        return len(rows)

    def replace_document_facts(self, doc_id: str, facts: Sequence[Fact]) -> int:
        for fact in facts:
            if fact.source_doc_id != doc_id:
                raise ValueError(
                    f"cannot file a fact of document {fact.source_doc_id!r} "
                    f"under document {doc_id!r}"
                )
        rows = rows_of(facts)
        with self._transaction(f"replace the facts of document {doc_id!r}") as conn:
            conn.execute(_DELETE_DOC_SQL, (doc_id,))
            with conn.cursor() as cur:
                cur.executemany(FACT_UPSERT_SQL, rows)
        return len(rows)

    def delete_document(self, doc_id: str) -> int:
        with self._transaction(f"delete document {doc_id!r}") as conn:
            return conn.execute(_DELETE_DOC_SQL, (doc_id,)).rowcount

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
        rows = self._query(_GET_FACT_SQL, (metric_code, entity, period_type, period, channel, rank))
        return fact_of_row(rows[0]) if rows else None

    def list_facts(
        self, *, doc_id: str | None = None, review_status: ReviewStatus | None = None
    ) -> list[Fact]:
        clauses: list[str] = []
        params: list[str] = []
        if doc_id is not None:
            clauses.append("source_doc_id = %s")
            params.append(doc_id)
        if review_status is not None:
            clauses.append("review_status = %s")
            params.append(ReviewStatus.parse(review_status).value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._query(f"SELECT {_COLUMNS} FROM fact_metric{where}{_LIST_ORDER}", params)
        return [fact_of_row(row) for row in rows]

    def set_review_status(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str,
        source_doc_id: str,
        status: ReviewStatus,
    ) -> bool:
        params = (
            ReviewStatus.parse(status).value,
            metric_code,
            entity,
            period_type,
            period,
            channel,
            source_doc_id,
        )
        with self._transaction("set a review status") as conn:
            return conn.execute(_SET_STATUS_SQL, params).rowcount > 0

    def available_periods(
        self,
        metric_code: str,
        entity: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, str]]:
        rank = Sensitivity.parse(clearance).rank
        rows = self._query(_PERIODS_SQL, (metric_code, entity, channel, rank))
        return [(str(period_type), str(period)) for period_type, period in rows]

    def count_facts(self) -> int:
        (count,) = self._query("SELECT count(*) FROM fact_metric")[0]
        return int(count)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
