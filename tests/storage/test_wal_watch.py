"""The fact read cache: exact against the file after any commit, from any connection or process.

Whether a read was served from the cache is told by SQLite itself: a trace callback on the
store's connection sees every statement the connection runs.
"""

from __future__ import annotations

import dataclasses
import mmap
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragspine.ingestion import review
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import CONFLICT, ReviewItem
from ragspine.storage.fact_store import Fact, FactStore
from ragspine.storage.facts import ReviewStatus
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.wal_watch import ReadCache, WalWatch
from tests.storage.conformance import make_fact
from tests.storage.test_ingest_store import fact, proposal, record

KEY = ("REVENUE", "ACME_HK", "FY", "2024", "TOTAL")


def _reads(store: FactStore) -> list[str]:
    """Every SELECT the store's own connection runs from now on."""
    seen: list[str] = []
    store._conn.set_trace_callback(
        lambda sql: seen.append(sql) if sql.lstrip().upper().startswith("SELECT") else None
    )
    return seen


def _cached(store: FactStore, value: float) -> None:
    """Read KEY until the cache holds it: the first read opens the cache (the connection has
    opened the WAL by then), the second fills it."""
    for _ in range(2):
        assert store.get_fact(*KEY).value == value  # type: ignore[union-attr]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "facts.db"


@pytest.fixture
def reader(db_path: Path) -> Iterator[FactStore]:
    with FactStore(db_path) as store:
        store.init_schema()
        yield store


@pytest.fixture
def writer(db_path: Path, reader: FactStore) -> Iterator[FactStore]:
    with FactStore(db_path) as store:
        yield store


def test_a_repeated_lookup_is_served_without_a_statement(
    reader: FactStore, writer: FactStore
) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    for _ in range(
        2
    ):  # the first read opens the cache (the WAL is open by then), the second fills it
        assert reader.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
    statements = _reads(reader)
    for _ in range(3):
        assert reader.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
    assert statements == []


def test_a_read_only_store_caches_and_sees_commits(writer: FactStore, db_path: Path) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    with FactStore(db_path, read_only=True) as reader:
        _cached(reader, 100.0)
        statements = _reads(reader)
        _cached(reader, 100.0)
        assert statements == []
        writer.upsert_facts([make_fact(value=200.0)])
        _cached(reader, 200.0)


def test_a_commit_by_another_connection_is_seen_at_once(
    reader: FactStore, writer: FactStore
) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    writer.upsert_facts([make_fact(value=200.0)])
    _cached(reader, 200.0)
    writer.set_review_status(*KEY, make_fact().source_doc_id, ReviewStatus.REJECTED)
    assert reader.get_fact(*KEY) is None
    assert reader.get_fact(*KEY) is None
    writer.set_review_status(*KEY, make_fact().source_doc_id, ReviewStatus.APPROVED)
    assert reader.get_fact(*KEY).value == 200.0  # type: ignore[union-attr]


def test_a_commit_by_another_process_is_seen_at_once(reader: FactStore, db_path: Path) -> None:
    reader.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    script = (
        "import sys\n"
        "from ragspine.storage.fact_store import FactStore\n"
        "from tests.storage.conformance import make_fact\n"
        "with FactStore(sys.argv[1]) as store:\n"
        "    store.upsert_facts([make_fact(value=300.0)])\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db_path)], check=True, cwd=Path.cwd())
    assert reader.get_fact(*KEY).value == 300.0  # type: ignore[union-attr]


def test_a_plain_sqlite_connection_and_a_wal_restart_are_seen(
    reader: FactStore, db_path: Path
) -> None:
    reader.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    with closing(sqlite3.connect(db_path, isolation_level=None)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("UPDATE fact_metric SET value = 400.0")
    assert reader.get_fact(*KEY).value == 400.0  # type: ignore[union-attr]


def test_a_snapshot_reads_its_own_state_from_the_cache(
    reader: FactStore, writer: FactStore
) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    with reader.snapshot():
        statements = _reads(reader)
        writer.upsert_facts([make_fact(value=200.0)])
        for _ in range(2):
            assert reader.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
        assert not any("fact_metric" in sql for sql in statements)
    _cached(reader, 200.0)


def test_a_snapshot_fills_the_cache_at_its_own_state(reader: FactStore, writer: FactStore) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    writer.upsert_facts([make_fact(value=200.0)])  # what the cache holds is now stale
    with reader.snapshot():
        assert reader.get_fact(*KEY).value == 200.0  # type: ignore[union-attr]
        writer.upsert_facts([make_fact(value=300.0)])
        statements = _reads(reader)
        assert reader.get_fact(*KEY).value == 200.0  # type: ignore[union-attr]
        assert statements == []
    _cached(reader, 300.0)


def test_another_thread_never_reads_a_snapshot_it_is_not_in(
    reader: FactStore, writer: FactStore
) -> None:
    writer.upsert_facts([make_fact(value=100.0)])
    _cached(reader, 100.0)
    seen: list[float] = []
    other = threading.Thread(target=lambda: seen.append(reader.get_fact(*KEY).value))  # type: ignore[union-attr]
    with reader.snapshot():
        assert reader.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
        writer.upsert_facts([make_fact(value=200.0)])
        other.start()
        other.join(timeout=0.5)  # it waits for the snapshot: the connection is this thread's
        assert seen == []
    other.join()
    assert seen == [200.0]


@pytest.mark.parametrize("kind", ["in-memory", "cache off"])
def test_stores_without_the_cache_read_the_file_each_time(
    kind: str, reader: FactStore, db_path: Path
) -> None:
    reader.upsert_facts([make_fact(value=100.0)])
    if kind == "in-memory":
        store = FactStore(":memory:")
        store.init_schema()
        store.upsert_facts([make_fact(value=100.0)])
    else:
        store = FactStore(db_path, read_cache=False)
    with store:
        store.get_fact(*KEY)
        statements = _reads(store)
        assert store.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
        assert store.get_fact(*KEY).value == 100.0  # type: ignore[union-attr]
        assert len(statements) == 2


def test_pending_values_follow_the_review_queue(tmp_path: Path) -> None:
    path = tmp_path / "workspace.db"
    with SQLiteWorkspaceStore(path) as reader, SQLiteWorkspaceStore(path) as writer:
        reader.init_schema()
        writer.replace_document(record("a.pptx"), [fact("a.pptx", 1320.0)], [], [])
        assert reader.pending_values(KEY, clearance=Sensitivity.INTERNAL) == []
        conflict = ReviewItem("b.pptx", "slide=2", CONFLICT, "restated", proposal("b.pptx", 9.5))
        writer.replace_document(record("b.pptx", "h2"), [], [], [conflict])
        (pending,) = reader.pending_values(KEY, clearance=Sensitivity.INTERNAL)
        assert pending.value == 9.5
        pending_list = reader.pending_values(KEY, clearance=Sensitivity.INTERNAL)
        pending_list.clear()  # a caller's list is its own: the cached values stay
        assert len(reader.pending_values(KEY, clearance=Sensitivity.INTERNAL)) == 1
        (item,) = writer.list_review()
        review.reject(writer, item.item_id)
        assert reader.pending_values(KEY, clearance=Sensitivity.INTERNAL) == []


# --------------------------------------------------------------------------- any interleaving

_VALUES = st.sampled_from([1.0, 2.0, 3.0])
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(["reader", "writer"]), _VALUES),
        st.tuples(st.just("status"), st.sampled_from(list(ReviewStatus)), st.just(0.0)),
        st.tuples(st.just("delete"), st.just(""), st.just(0.0)),
        st.tuples(st.just("read"), st.sampled_from(["2023", "2024"]), st.just(0.0)),
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(ops=_OPS)
def test_cached_reads_equal_uncached_reads_after_any_writes(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, object, float]]
) -> None:
    path = tmp_path_factory.mktemp("interleave") / "facts.db"
    with (
        FactStore(path) as cached,
        FactStore(path) as writer,
        FactStore(path, read_cache=False) as plain,
    ):
        cached.init_schema()
        stores = {"reader": cached, "writer": writer}
        doc = make_fact().source_doc_id
        for op, arg, value in ops:
            if op == "write":
                stores[str(arg)].upsert_facts([make_fact(value=value)])
            elif op == "status":
                writer.set_review_status(*KEY, doc, ReviewStatus(arg))
            elif op == "delete":
                writer.delete_document(doc)
            else:
                key = (*KEY[:3], str(arg), KEY[4])
                for clearance in (Sensitivity.PUBLIC, Sensitivity.CONFIDENTIAL):
                    got = cached.get_fact(*key, clearance=clearance)
                    assert got == plain.get_fact(*key, clearance=clearance)


# --------------------------------------------------------------------------- the header itself


def _mapped(tmp_path: Path, content: bytes) -> tuple[Path, WalWatch]:
    path = tmp_path / "index-shm"
    path.write_bytes(content)
    with open(path, "rb") as handle:
        shm = mmap.mmap(handle.fileno(), len(content), access=mmap.ACCESS_READ)
    return path, WalWatch(shm)


def _header(change: int, *, init: int = 1) -> bytes:
    header = bytearray(48)
    header[8:12] = change.to_bytes(4, "little")  # iChange, as SQLite lays the header out
    header[12] = init
    return bytes(header)


def test_a_header_between_its_two_copies_is_not_a_state(tmp_path: Path) -> None:
    _, watch = _mapped(tmp_path, _header(1) + _header(2))
    assert watch.state() is None
    _, watch = _mapped(tmp_path, _header(1, init=0) * 2)
    assert watch.state() is None
    _, watch = _mapped(tmp_path, _header(1) * 2)
    assert watch.state() == _header(1)


def test_a_value_read_across_a_change_is_not_kept(tmp_path: Path) -> None:
    path, watch = _mapped(tmp_path, _header(1) * 2)
    cache = ReadCache(watch)
    loads: list[int] = []

    def load_during_a_commit() -> int:
        loads.append(1)
        path.write_bytes(_header(len(loads) + 1) * 2)  # the header moves while reading
        return len(loads)

    assert cache.get("key", load_during_a_commit) == 1
    assert cache.get("key", load_during_a_commit) == 2  # nothing was kept: read again
    steady = cache.get("other", lambda: 10)
    assert cache.get("other", lambda: 11) == steady == 10


def test_an_uninitialised_or_missing_index_turns_the_cache_off(tmp_path: Path) -> None:
    assert WalWatch.open(tmp_path / "none.db") is None
    (tmp_path / "short.db-shm").write_bytes(b"\0" * 10)
    assert WalWatch.open(tmp_path / "short.db") is None
    (tmp_path / "fine.db-shm").write_bytes(_header(1) * 2)
    assert WalWatch.open(tmp_path / "fine.db") is not None


def test_facts_read_from_the_cache_are_the_stored_facts(reader: FactStore) -> None:
    stored = make_fact(value=5.5, sensitivity="RESTRICTED")
    reader.upsert_facts([stored])
    assert reader.get_fact(*KEY, clearance=Sensitivity.INTERNAL) is None
    first = reader.get_fact(*KEY, clearance=Sensitivity.RESTRICTED)
    again = reader.get_fact(*KEY, clearance=Sensitivity.RESTRICTED)
    assert isinstance(first, Fact) and first == again
    assert dataclasses.replace(first, ingested_at=stored.ingested_at) == stored
    assert reader.get_fact(*KEY, clearance=Sensitivity.INTERNAL) is None
