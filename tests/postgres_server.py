"""Fixtures for tests against the real PostgreSQL server: one fresh schema per test.

The server comes from ``RAGSPINE_TEST_DATABASE_URL`` (default: the local development server's
``test`` database). Other engineers' runs share that database, so each test gets its own
randomly named schema, dropped afterwards. When the server cannot be reached the tests skip on
a laptop, but under ``CI=true`` they fail loudly: CI must run them. Loaded by
``tests/conftest.py``.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator

import pytest

from tests.skip_guard import ci_enabled

DATABASE_URL_VARIABLE = "RAGSPINE_TEST_DATABASE_URL"
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"


@functools.cache
def _unreachable(url: str) -> str:
    """Why ``url`` cannot be used ('' when it can): the driver is missing or no server."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install 'ragspine[postgres]')"
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"PostgreSQL at {url} is unreachable: {' '.join(str(exc).split())}"
    return ""


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL; skips (fails under CI) when it cannot be reached."""
    url = os.environ.get(DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL)
    problem = _unreachable(url)
    if problem and ci_enabled():
        pytest.fail(f"{problem}; CI must run the PostgreSQL tests", pytrace=False)
    if problem:
        pytest.skip(problem)
    return url


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[str]:
    """A schema name no other test uses; the schema (if created) is dropped afterwards."""
    import psycopg
    from psycopg import sql

    name = f"test_{uuid.uuid4().hex[:20]}"
    yield name
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


@pytest.fixture
def postgres_database(postgres_url: str, postgres_schema: str) -> tuple[str, str]:
    """(url, schema) of a fresh schema upgraded to the latest version."""
    from ragspine.storage.postgres import PostgresDatabase, upgrade

    db = PostgresDatabase(postgres_url, schema=postgres_schema)
    try:
        upgrade(db)
    finally:
        db.close()
    return postgres_url, postgres_schema
