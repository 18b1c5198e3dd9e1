"""PostgreSQL's spelling of the statements the workspace stores share (see
``storage/dialect.py``): ``%s`` parameters, names as text arrays and JSON as ``jsonb``."""

from __future__ import annotations

from collections.abc import Sequence

from psycopg.types.json import Jsonb

from ragspine.storage.dialect import Dialect


def _upsert(table: str, columns: Sequence[str], key: Sequence[str]) -> str:
    # The row with the same key (a unique constraint) is updated in place.
    marks = ", ".join("%s" for _ in columns)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in key)
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )


POSTGRES = Dialect(
    mark="%s",
    upsert=_upsert,
    json_field=lambda column, field: f"{column} ->> '{field}'",
    pack_names=list,
    unpack_names=tuple,
    pack_json=lambda value: None if value is None else Jsonb(value),
    unpack_json=lambda value: dict(value) if value is not None else None,
)
