"""A document's life in the workspace store: listed, moved to a new name, continued, removed.

Each change is one transaction: the failures here are real aborts raised by a database
trigger in the middle of the write, and the store must come out exactly as it went in. Every
test runs against each backend (``tests/storage/backends.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ragspine.errors import StoreError
from ragspine.ingestion import review
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol
from tests.storage.backends import BACKENDS, open_workspace_store
from tests.storage.test_ingest_store import block, fact, proposal, record

# Every table a document's rows live in, for comparing a whole PostgreSQL schema.
_TABLES = (
    "fact_metric",
    "documents",
    "text_blocks",
    "chunks",
    "review_items",
    "review_audit",
    "document_audit",
)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    with open_workspace_store(request.param, request, tmp_path) as opened:
        yield opened


def chunk(doc: str, n: int) -> Chunk:
    return Chunk(f"{doc}#{n}", doc, f"slide={n},notes", "t", "text", (), (), "zh", "INTERNAL")


def add(store: WorkspaceStoreProtocol, doc: str, value: float = 1.0) -> None:
    store.replace_document(
        record(doc),
        [fact(doc, value)],
        [block(doc, 1, "prose")],
        [
            ReviewItem(doc, "l1", "low_confidence", "约1,300", proposal(doc, 1300.0)),
            ReviewItem(doc, "l2", "unmapped_label", "其他收入"),
        ],
        [chunk(doc, 1), chunk(doc, 2)],
    )


def dump(store: Any) -> list[str]:
    """Every row the store holds, as text, in a fixed order."""
    if isinstance(store, SQLiteWorkspaceStore):
        with closing(sqlite3.connect(store.path)) as conn:
            return list(conn.iterdump())
    with store.database.connection() as conn:
        return [
            f"{table}: {row}"
            for table in _TABLES
            for (row,) in conn.execute(f"SELECT t::text FROM {table} t ORDER BY 1")
        ]


def refuse(store: Any, event: str, when: str = "") -> None:
    """A trigger that aborts the write ``event`` names (when ``when`` holds) with 'refused'."""
    if isinstance(store, SQLiteWorkspaceStore):
        condition = f" WHEN {when}" if when else ""
        with closing(sqlite3.connect(store.path)) as conn:
            conn.execute(
                f"CREATE TRIGGER refuse {event}{condition} "
                "BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
            conn.commit()
        return
    condition = f" WHEN ({when})" if when else ""
    with store.database.connection() as conn:
        conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$"
        )
        conn.execute(
            f"CREATE TRIGGER refuse {event} FOR EACH ROW{condition} EXECUTE FUNCTION refuse()"
        )


def test_summaries_count_what_each_document_holds_now(store: WorkspaceStoreProtocol) -> None:
    add(store, "a.pptx")
    add(store, "b.pptx", 2.0)
    (first, _) = store.list_review(ReviewState.OPEN, doc_id="a.pptx")
    review.reject(store, first.item_id)

    summaries = {s.doc_id: s for s in store.document_summaries()}

    assert list(summaries) == ["a.pptx", "b.pptx"]
    a = summaries["a.pptx"]
    assert (a.kind, a.facts, a.chunks, a.open_review, a.sensitivity) == (
        "pptx",
        1,
        2,
        1,
        "INTERNAL",
    )
    assert summaries["b.pptx"].open_review == 2
    assert a.source_path == "/src/a.pptx"


def test_remove_takes_every_row_of_one_document_and_keeps_the_audit(
    store: WorkspaceStoreProtocol,
) -> None:
    add(store, "a.pptx")
    add(store, "b.pptx", 2.0)
    (item, _) = store.list_review(doc_id="a.pptx")
    review.approve(store, item.item_id)

    assert store.remove_document("a.pptx") is True

    assert store.get_document("a.pptx") is None
    assert {f.source_doc_id for f in store.list_facts()} == {"b.pptx"}
    assert {c.doc_id for c in store.list_chunks()} == {"b.pptx"}
    assert {b.doc_id for b in store.list_blocks()} == {"b.pptx"}
    assert {r.doc_id for r in store.list_review()} == {"b.pptx"}
    assert [e.action for e in store.audit_log(item.item_id)] == ["approved"]
    assert store.remove_document("a.pptx") is False


def test_a_failed_remove_changes_nothing(store: WorkspaceStoreProtocol) -> None:
    add(store, "a.pptx")
    refuse(store, "BEFORE DELETE ON documents")
    before = dump(store)

    with pytest.raises(StoreError, match="refused"):
        store.remove_document("a.pptx")

    assert dump(store) == before


def test_a_move_replaces_the_old_name_and_continues_its_items(
    store: WorkspaceStoreProtocol,
) -> None:
    add(store, "old.pptx")
    approved, label = store.list_review(doc_id="old.pptx")
    review.approve(store, approved.item_id, correct=1299.0)
    carried = review.carry_over(
        store.list_review(doc_id="old.pptx"),
        [
            ReviewItem("new.pptx", "l1", "low_confidence", "约1,300", proposal("new.pptx", 1300.0)),
            ReviewItem("new.pptx", "l2", "unmapped_label", "其他收入"),
        ],
    )

    store.replace_document(
        record("new.pptx"),
        [fact("new.pptx", 1.0, "2023"), *carried.facts],
        [block("new.pptx", 1, "prose")],
        carried.items,
        [chunk("new.pptx", 1)],
        replaces="old.pptx",
    )

    assert [d.doc_id for d in store.list_documents()] == ["new.pptx"]
    assert {f.source_doc_id for f in store.list_facts()} == {"new.pptx"}
    assert [c.chunk_id for c in store.list_chunks()] == ["new.pptx#1"]
    items = store.list_review()
    assert [(i.item_id, i.doc_id, i.state) for i in items] == [
        (approved.item_id, "new.pptx", ReviewState.APPROVED),
        (label.item_id, "new.pptx", ReviewState.OPEN),
    ]
    assert items[0].corrected_value == 1299.0
    found = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
    assert found is not None and (found.value, found.source_doc_id) == (1299.0, "new.pptx")
    trail = store.audit_log(approved.item_id)
    assert [e.action for e in trail] == ["approved", "approved (carried over)"]
    assert "new.pptx (renamed from old.pptx)" in trail[1].detail
    assert store.audit_log(label.item_id) == []


def test_a_failed_move_leaves_the_old_name_whole(store: WorkspaceStoreProtocol) -> None:
    add(store, "old.pptx")
    refuse(store, "BEFORE INSERT ON documents", "NEW.doc_id = 'new.pptx'")
    before = dump(store)

    with pytest.raises(StoreError, match="refused"):
        store.replace_document(
            record("new.pptx"),
            [fact("new.pptx", 1.0)],
            [block("new.pptx", 1, "prose")],
            [],
            [chunk("new.pptx", 1)],
            replaces="old.pptx",
        )

    assert dump(store) == before


def test_a_changed_item_starts_open_and_an_unchanged_one_keeps_its_decision(
    store: WorkspaceStoreProtocol,
) -> None:
    add(store, "a.pptx")
    approved, label = store.list_review(doc_id="a.pptx")
    review.approve(store, approved.item_id)
    review.reject(store, label.item_id)
    edited = [
        ReviewItem("a.pptx", "l1", "low_confidence", "约1,310", proposal("a.pptx", 1310.0)),
        ReviewItem("a.pptx", "l2", "unmapped_label", "其他收入"),
    ]

    carried = review.carry_over(store.list_review(doc_id="a.pptx"), edited)

    assert carried.decisions == 1
    assert carried.facts == []
    assert [(i.item_id, i.state) for i in carried.items] == [
        (0, ReviewState.OPEN),
        (label.item_id, ReviewState.REJECTED),
    ]
