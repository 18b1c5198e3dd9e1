"""The PostgreSQL schema: numbered steps applied by upgrade, checked by every store that opens."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

psycopg = pytest.importorskip("psycopg")

from psycopg import sql  # noqa: E402

from ragspine.errors import SchemaVersionError, StoreError, UsageError  # noqa: E402
from ragspine.storage.postgres import (  # noqa: E402
    LATEST_VERSION,
    MIGRATIONS,
    PostgresDatabase,
    PostgresFactStore,
    schema_version,
    upgrade,
)
from ragspine.storage.postgres.connection import redact  # noqa: E402
from tests.storage.conformance import make_fact  # noqa: E402


@pytest.fixture
def database(postgres_url: str, postgres_schema: str) -> Iterator[PostgresDatabase]:
    db = PostgresDatabase(postgres_url, schema=postgres_schema)
    yield db
    db.close()


def test_steps_are_numbered_from_one_without_gaps() -> None:
    assert [step.version for step in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))


def test_upgrade_applies_every_step_once(database: PostgresDatabase) -> None:
    assert schema_version(database) == 0
    assert [step.version for step in upgrade(database)] == list(range(1, LATEST_VERSION + 1))
    assert schema_version(database) == LATEST_VERSION
    assert upgrade(database) == []
    with database.connection() as conn:
        rows = conn.execute("SELECT version, description FROM schema_version ORDER BY 1")
        assert [row[0] for row in rows] == list(range(1, LATEST_VERSION + 1))


def test_a_store_refuses_a_schema_never_upgraded(postgres_url: str, postgres_schema: str) -> None:
    with pytest.raises(SchemaVersionError) as raised:
        PostgresFactStore(postgres_url, schema=postgres_schema)
    message = str(raised.value)
    assert "schema version 0" in message
    assert f"needs version {LATEST_VERSION}" in message
    assert f"ragspine db upgrade --database-url {postgres_url} --schema {postgres_schema}" in (
        message
    )


def test_a_store_refuses_an_old_schema_until_upgraded(database: PostgresDatabase) -> None:
    upgrade(database, target=1)
    with pytest.raises(SchemaVersionError, match=f"version 1; .*needs version {LATEST_VERSION}"):
        PostgresFactStore(database.url, schema=database.schema)
    assert [step.version for step in upgrade(database)] == list(range(2, LATEST_VERSION + 1))
    with PostgresFactStore(database.url, schema=database.schema) as store:
        assert store.count_facts() == 0


def test_a_newer_schema_is_refused_and_never_downgraded(database: PostgresDatabase) -> None:
    upgrade(database)
    newer = LATEST_VERSION + 1
    with database.connection() as conn:
        conn.execute(
            "INSERT INTO schema_version (version, description) VALUES (%s, 'future')", (newer,)
        )
    expected = f"version {newer}, newer than this ragspine understands \\({LATEST_VERSION}\\)"
    with pytest.raises(SchemaVersionError, match=expected):
        PostgresFactStore(database.url, schema=database.schema)
    with pytest.raises(SchemaVersionError, match=expected):
        upgrade(database)
    assert schema_version(database) == newer


def test_a_failed_step_leaves_the_schema_at_its_version(database: PostgresDatabase) -> None:
    upgrade(database, target=1)
    with database.connection() as conn:
        conn.execute("CREATE TABLE documents (in_the_way integer)")  # step 2 creates it
    with pytest.raises(
        StoreError, match=r"apply schema step 2 \(nothing was changed\): .*documents"
    ):
        upgrade(database)
    assert schema_version(database) == 1


def test_schemas_keep_deployments_apart(
    postgres_url: str, postgres_database: tuple[str, str]
) -> None:
    _, first = postgres_database
    second = f"test_{uuid.uuid4().hex[:20]}"
    try:
        other = PostgresDatabase(postgres_url, schema=second)
        upgrade(other)
        other.close()
        with (
            PostgresFactStore(postgres_url, schema=first) as one,
            PostgresFactStore(postgres_url, schema=second) as two,
        ):
            one.upsert_facts([make_fact()])
            assert (one.count_facts(), two.count_facts()) == (1, 0)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(second)))


@pytest.mark.parametrize("name", ["Public", "a-b", "x; DROP TABLE t", "1abc", ""])
def test_a_schema_name_must_be_a_plain_identifier(postgres_url: str, name: str) -> None:
    with pytest.raises(UsageError, match="not a plain identifier"):
        PostgresDatabase(postgres_url, schema=name)


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    url = "postgresql://someone:s3cret@127.0.0.1:1/test?connect_timeout=1"
    with pytest.raises(StoreError, match="cannot open PostgreSQL") as raised:
        PostgresDatabase(url, schema="ragspine")
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://ann:pw@db:5432/x", "postgresql://ann:***@db:5432/x"),
        ("postgresql://:pw@db/x", "postgresql://:***@db/x"),
        (
            "postgresql://ann@db/x?password=pw&sslmode=require",
            "postgresql://ann@db/x?password=***&sslmode=require",
        ),
        ("postgresql://db/x", "postgresql://db/x"),
    ],
)
def test_messages_never_show_a_password(url: str, shown: str) -> None:
    assert redact(url) == shown


def test_a_read_only_store_cannot_write(postgres_database: tuple[str, str]) -> None:
    url, schema = postgres_database
    with PostgresFactStore(url, schema=schema, read_only=True) as store:
        with pytest.raises(StoreError, match="read-only"):
            store.upsert_facts([make_fact()])
        assert store.count_facts() == 0


def test_a_snapshot_sees_one_commit(postgres_database: tuple[str, str]) -> None:
    url, schema = postgres_database
    with (
        PostgresFactStore(url, schema=schema, read_only=True) as reader,
        PostgresFactStore(url, schema=schema) as writer,
    ):
        with reader.snapshot():
            assert reader.count_facts() == 0
            writer.upsert_facts([make_fact()])
            with reader.snapshot():
                assert reader.count_facts() == 0
        assert reader.count_facts() == 1


def test_facts_stored_before_row_labels_are_kept_by_the_step_adding_them(
    database: PostgresDatabase,
) -> None:
    upgrade(database, target=8)
    with database.connection() as conn:  # a fact as version 8 stores it: no row_label column
        conn.execute(
            "INSERT INTO fact_metric (metric_code, entity, geography, channel, period_type, "
            "period, value, unit, source_doc_id, source_locator, sensitivity, review_status, "
            "ingested_at) VALUES ('REVENUE', 'ACME_HK', 'HK', 'TOTAL', 'FY', '2024', 2850, "
            "'USD_M', 'deck.pptx', 'slide=2', 'INTERNAL', 'approved', now())"
        )
    assert [step.version for step in upgrade(database)] == list(range(9, LATEST_VERSION + 1))
    with PostgresFactStore(database.url, schema=database.schema) as store:
        kept = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
        assert kept is not None and (kept.value, kept.row_label) == (2850.0, None)
        labelled = make_fact(period="2025", row_label="Revenue (2019 restated)")
        store.upsert_facts([labelled])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2025") == labelled
