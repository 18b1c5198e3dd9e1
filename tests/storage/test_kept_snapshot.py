"""Kept snapshots (``SQLiteFactStore.keep_snapshots``, what the service's engines use): a
question reuses the last one's read transaction while nothing was committed, and is never
answered from it once something was.

Which statements the store runs is told by SQLite itself (a trace callback on its connection).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from ragspine.storage.fact_store import FactStore
from ragspine.storage.sqlite_store import KEPT_SECONDS
from tests.storage.conformance import make_fact

KEY = ("REVENUE", "ACME_HK", "FY", "2024", "TOTAL")


def _statements(store: FactStore) -> list[str]:
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    return seen


def _value(store: FactStore) -> float:
    fact = store.get_fact(*KEY)
    assert fact is not None
    return fact.value


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[FactStore]:
    with FactStore(tmp_path / "facts.db") as store:
        store.init_schema()
        store.upsert_facts([make_fact(value=100.0)])
        yield store


@pytest.fixture
def reader(tmp_path: Path, writer: FactStore) -> Iterator[FactStore]:
    with FactStore(tmp_path / "facts.db", read_only=True) as store:
        store.keep_snapshots = True
        assert _value(store) == 100.0  # the first read opens the read cache
        yield store


def test_a_quiet_file_lets_the_next_snapshot_reuse_the_last_one(reader: FactStore) -> None:
    with reader.snapshot():
        assert _value(reader) == 100.0
    statements = _statements(reader)
    for _ in range(3):
        with reader.snapshot():
            assert _value(reader) == 100.0
    assert statements == []  # no BEGIN, no read, no COMMIT: one state, one transaction
    assert reader._conn.in_transaction


def test_a_commit_ends_the_kept_snapshot_before_the_next_question(
    reader: FactStore, writer: FactStore
) -> None:
    with reader.snapshot():
        assert _value(reader) == 100.0
    writer.upsert_facts([make_fact(value=200.0)])
    statements = _statements(reader)
    with reader.snapshot():
        assert _value(reader) == 200.0
    assert statements[:2] == ["COMMIT", "BEGIN"]


def test_a_read_outside_a_snapshot_never_sees_the_kept_one(
    reader: FactStore, writer: FactStore
) -> None:
    with reader.snapshot():
        assert _value(reader) == 100.0
    writer.upsert_facts([make_fact(value=200.0)])
    assert _value(reader) == 200.0
    assert not reader._conn.in_transaction


def test_a_kept_snapshot_is_renewed_after_its_age_limit(
    reader: FactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with reader.snapshot():
        assert _value(reader) == 100.0
    assert reader._kept is not None
    began = reader._kept[1]
    clock = iter([began + KEPT_SECONDS + 1])
    monkeypatch.setattr("ragspine.storage.sqlite_store.time.monotonic", lambda: next(clock, 1e12))
    statements = _statements(reader)
    with reader.snapshot():
        assert _value(reader) == 100.0
    assert statements[:2] == ["COMMIT", "BEGIN"]


def test_releasing_an_idle_store_lets_a_checkpoint_empty_the_wal(
    tmp_path: Path, reader: FactStore, writer: FactStore
) -> None:
    with reader.snapshot():
        assert _value(reader) == 100.0
    writer.upsert_facts([make_fact(value=200.0)])
    with closing(sqlite3.connect(tmp_path / "facts.db")) as conn:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 1  # the kept reader holds the WAL's frames
        reader.release_kept(idle=60.0)  # kept for less than a minute: left alone
        assert reader._conn.in_transaction
        reader.release_kept()
        assert not reader._conn.in_transaction
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    assert (tmp_path / "facts.db-wal").stat().st_size == 0


def test_a_failed_question_keeps_nothing(reader: FactStore) -> None:
    with pytest.raises(RuntimeError), reader.snapshot():
        raise RuntimeError("the question failed")
    assert reader._kept is None and not reader._conn.in_transaction


def test_without_keep_snapshots_each_snapshot_ends_its_transaction(reader: FactStore) -> None:
    reader.keep_snapshots = False
    with reader.snapshot():
        assert _value(reader) == 100.0
    assert not reader._conn.in_transaction
