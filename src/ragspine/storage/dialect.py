"""What the SQLite and PostgreSQL stores spell differently in the statements they share: how a
parameter is marked, how a JSON field is read, and how a list of names and a JSON object are
stored; and the connection interface both drivers share. The shared statements are written
once against a :class:`Dialect`; PostgreSQL's is in ``storage/postgres/dialect.py`` (its JSON
needs psycopg)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Protocol

from ragspine.profile.sensitivity import Sensitivity


class Rows(Protocol):
    """What the shared statements read from a cursor (``sqlite3`` and psycopg alike)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Batch(Protocol):
    """A cursor running one statement for many rows."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> object: ...

    def close(self) -> None: ...


class Connection(Protocol):
    """A connection the shared statements run on, in the caller's transaction."""

    def execute(self, sql: str, params: Any = ..., /) -> Rows: ...

    def cursor(self) -> Batch: ...


def insert_many(conn: Connection, sql: str, rows: Iterable[Sequence[Any]]) -> None:
    """Run ``sql`` once per row on a cursor of its own (psycopg has no ``executemany`` on the
    connection, as ``sqlite3`` does)."""
    with closing(conn.cursor()) as cursor:
        cursor.executemany(sql, rows)


@dataclass(frozen=True)
class Dialect:
    """One backend's spelling: ``mark`` is its parameter placeholder, ``upsert(table, columns,
    key)`` its insert of a row that replaces the one with the same ``key``, ``json_field`` the
    SQL reading one field of a JSON column, and the ``pack``/``unpack`` pairs how a list of
    names and a JSON object go into a row and come back."""

    mark: str
    upsert: Callable[[str, Sequence[str], Sequence[str]], str]
    json_field: Callable[[str, str], str]
    pack_names: Callable[[tuple[str, ...]], object]
    unpack_names: Callable[[Any], tuple[str, ...]]
    pack_json: Callable[[dict[str, object] | None], object]
    unpack_json: Callable[[Any], dict[str, object] | None]

    def marks(self, count: int) -> str:
        """The placeholders of an ``INSERT`` of ``count`` columns."""
        return ", ".join(self.mark for _ in range(count))


def rank_sql(expression: str) -> str:
    """A SQL expression ranking a sensitivity level (our own enum values only)."""
    cases = " ".join(f"WHEN '{level.value}' THEN {level.rank}" for level in Sensitivity)
    return f"(CASE {expression} {cases} END)"


def json_text(value: dict[str, object] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _sqlite_upsert(table: str, columns: Sequence[str], key: Sequence[str]) -> str:
    # REPLACE deletes the row holding the same key (the table's primary key) and inserts anew.
    marks = ", ".join("?" for _ in columns)
    return f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) VALUES ({marks})"


# SQLite keeps names comma-joined and JSON as text (read back with json_extract).
SQLITE = Dialect(
    mark="?",
    upsert=_sqlite_upsert,
    json_field=lambda column, field: f"json_extract({column}, '$.{field}')",
    pack_names=",".join,
    unpack_names=lambda text: tuple(filter(None, str(text).split(","))),
    pack_json=json_text,
    unpack_json=lambda text: json.loads(str(text)) if text else None,
)
