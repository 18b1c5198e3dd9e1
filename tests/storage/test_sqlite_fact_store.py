from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from ragspine.errors import StoreError
from ragspine.storage.fact_store import FactStore
from tests.storage.conformance import DECK, make_fact


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "workspace" / "facts.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[FactStore]:
    with FactStore(db_path) as store:
        store.init_schema()
        yield store


def _raw(db_path: Path) -> closing[sqlite3.Connection]:
    """A plain connection, to look at the file without going through the store."""
    return closing(sqlite3.connect(db_path, isolation_level=None))


def test_opening_creates_missing_parent_directories(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "facts.db"
    with FactStore(path) as store:
        store.init_schema()
    assert path.is_file()


def test_journal_mode_is_wal(store: FactStore, db_path: Path) -> None:
    with _raw(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_schema_version_is_recorded(store: FactStore, db_path: Path) -> None:
    with _raw(db_path) as conn:
        rows = conn.execute("SELECT component, version FROM schema_version").fetchall()
    assert rows == [("fact_metric", 2)]


def test_a_newer_schema_is_refused(store: FactStore, db_path: Path) -> None:
    with _raw(db_path) as conn:
        conn.execute("UPDATE schema_version SET version = 99 WHERE component = 'fact_metric'")
    with pytest.raises(StoreError, match="schema version 99"):
        store.init_schema()


def test_facts_survive_reopening(db_path: Path) -> None:
    fact = make_fact(ingested_at="2025-01-10T08:00:00+00:00")
    with FactStore(db_path) as store:
        store.init_schema()
        store.upsert_facts([fact])
    with FactStore(db_path) as reopened:
        reopened.init_schema()
        assert reopened.get_fact("REVENUE", "ACME_HK", "FY", "2024") == fact


def test_a_second_connection_sees_committed_writes(store: FactStore, db_path: Path) -> None:
    # Sensitivity and lineage set too, so the reader must see every column of the row.
    fact = make_fact(
        value=2850.0,
        source_locator="slide=3,table=1,row=REVENUE,col=FY2024",
        sensitivity="CONFIDENTIAL",
        source_file_hash="sha256:0f1e",
        extractor_version="pptx-2",
        mapping_version="acme-3",
    )
    with FactStore(db_path) as reader:
        store.upsert_facts([fact])
        seen = reader.get_fact("REVENUE", "ACME_HK", "FY", "2024")
    assert seen == fact
    assert (seen.value, seen.unit, seen.source_doc_id, seen.source_locator, seen.sensitivity) == (
        2850.0,
        "USD_M",
        DECK,
        "slide=3,table=1,row=REVENUE,col=FY2024",
        "CONFIDENTIAL",
    )


def test_in_memory_database_works() -> None:
    with FactStore(":memory:") as store:
        store.init_schema()
        store.upsert_facts([make_fact()])
        assert store.count_facts() == 1


def test_unwritable_path_raises_store_error_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("a regular file")
    path = blocker / "facts.db"
    with pytest.raises(StoreError, match="not_a_directory"):
        FactStore(path)


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=str(tmp_path)):
        FactStore(tmp_path)


def test_reading_before_init_schema_says_what_to_do(db_path: Path) -> None:
    with FactStore(db_path) as store, pytest.raises(StoreError, match=r"init_schema\(\)"):
        store.get_fact("REVENUE", "ACME_HK", "FY", "2024")


@pytest.mark.parametrize(
    ("column", "bad"),
    [
        ("source_locator", None),
        ("source_doc_id", None),
        ("source_locator", ""),
        ("sensitivity", "SECRET"),
        ("review_status", "maybe"),
        ("period_type", "FY2024"),
    ],
)
def test_schema_rejects_a_raw_row_that_breaks_the_rules(
    store: FactStore, db_path: Path, column: str, bad: str | None
) -> None:
    row = {
        "metric_code": "REVENUE",
        "entity": "ACME_HK",
        "geography": "HK",
        "channel": "TOTAL",
        "period_type": "FY",
        "period": "2024",
        "value": 1.0,
        "unit": "USD_M",
        "source_doc_id": DECK,
        "source_locator": "slide=2",
        "sensitivity": "INTERNAL",
        "review_status": "approved",
        "ingested_at": "2025-01-10T08:00:00.000000+00:00",
    }
    row[column] = bad
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    with _raw(db_path) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute(f"INSERT INTO fact_metric ({columns}) VALUES ({marks})", list(row.values()))
    assert store.count_facts() == 0


def test_concurrent_reads_while_writing(store: FactStore) -> None:
    store.upsert_facts(
        [make_fact(period=str(year), value=float(year)) for year in range(2000, 2024)]
    )
    stop = threading.Event()

    def write() -> None:
        # Churns another document's FY2024 row, a key the readers never ask for.
        while not stop.is_set():
            store.replace_document_facts("other.xlsx", [make_fact(source_doc_id="other.xlsx")])

    def read(year: int) -> list[float]:
        facts = [store.get_fact("REVENUE", "ACME_HK", "FY", str(year)) for _ in range(200)]
        return [fact.value for fact in facts if fact is not None]

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            values = list(pool.map(read, range(2000, 2024)))
    finally:
        stop.set()
        writer.join()
    assert values == [[float(year)] * 200 for year in range(2000, 2024)]


def test_a_snapshot_sees_one_commit_and_nests(store: FactStore, db_path: Path) -> None:
    store.upsert_facts([make_fact(period="2024")])
    with FactStore(db_path, read_only=True) as reader:
        with reader.snapshot():
            before = reader.count_facts()
            store.upsert_facts([make_fact(period="2023")])
            with reader.snapshot():  # joins the outer one
                assert reader.count_facts() == before
            assert reader.count_facts() == before
        assert reader.count_facts() == before + 1


def test_a_version_1_file_gains_row_labels_and_keeps_its_facts(db_path: Path) -> None:
    # What an older ragspine wrote: fact_metric without the row_label column, at version 1.
    old = make_fact(ingested_at="2025-01-10T08:00:00+00:00")
    with FactStore(db_path) as store:
        store.init_schema()
        store.upsert_facts([old])
    with _raw(db_path) as conn:
        conn.execute("ALTER TABLE fact_metric DROP COLUMN row_label")
        conn.execute("UPDATE schema_version SET version = 1 WHERE component = 'fact_metric'")
    with FactStore(db_path) as store:
        store.init_schema()
        kept = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
        assert kept == old and kept.row_label is None
        labelled = make_fact(period="2025", row_label="Revenue (2019 restated)")
        store.upsert_facts([labelled])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2025") == labelled
    with _raw(db_path) as conn:
        rows = conn.execute("SELECT component, version FROM schema_version").fetchall()
    assert rows == [("fact_metric", 2)]
