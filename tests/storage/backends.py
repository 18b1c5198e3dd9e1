"""The store backends every conformance suite runs against: SQLite and PostgreSQL.

``BACKENDS`` parametrizes a fixture; :func:`open_fact_store` and :func:`open_workspace_store`
give an initialised, empty store of that backend (the PostgreSQL one on a fresh schema).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgres")


def _postgres(request: pytest.FixtureRequest) -> tuple[str, str]:
    url, schema = request.getfixturevalue("postgres_database")
    return str(url), str(schema)


def open_fact_store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if backend == "postgres":
        from ragspine.storage.postgres import PostgresFactStore

        url, schema = _postgres(request)
        store: Any = PostgresFactStore(url, schema=schema)
    else:
        from ragspine.storage.fact_store import FactStore

        store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    return store


def open_workspace_store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if backend == "postgres":
        from ragspine.storage.postgres import PostgresWorkspaceStore

        url, schema = _postgres(request)
        store: Any = PostgresWorkspaceStore(url, schema=schema)
    else:
        from ragspine.storage.ingest_store import SQLiteWorkspaceStore

        store = SQLiteWorkspaceStore(tmp_path / "ws.db")
    store.init_schema()
    return store
