"""Facts read back from SQLite are built once per distinct row, and never go stale."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from ragspine.storage.fact_store import FactStore
from tests.storage.conformance import make_fact


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FactStore]:
    with FactStore(tmp_path / "facts.db") as store:
        store.init_schema()
        yield store


def _key(store: FactStore) -> object:
    return store.get_fact("REVENUE", "ACME_HK", "FY", "2024", "TOTAL")


def test_asking_twice_gives_the_same_fact(store: FactStore) -> None:
    store.upsert_facts([make_fact()])
    first, second = _key(store), _key(store)
    assert first == make_fact()
    assert second is first  # one immutable object per stored row


def test_a_rewritten_row_is_read_afresh(store: FactStore) -> None:
    store.upsert_facts([make_fact(value=1.0)])
    assert _key(store) == make_fact(value=1.0)
    store.upsert_facts([make_fact(value=2.0)])
    assert _key(store) == make_fact(value=2.0)
    store.delete_document(make_fact().source_doc_id)
    assert _key(store) is None


def test_a_change_made_by_another_connection_is_seen(store: FactStore, tmp_path: Path) -> None:
    store.upsert_facts([make_fact(value=1.0)])
    assert _key(store) == make_fact(value=1.0)
    with closing(sqlite3.connect(tmp_path / "facts.db", isolation_level=None)) as other:
        other.execute("UPDATE fact_metric SET value = 3.5")
    assert _key(store) == make_fact(value=3.5)
