"""The workspace store: one document's facts, blocks and review items move together.

Every test taking ``store`` runs against each backend (``tests/storage/backends.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ragspine.errors import ReviewError, StoreError
from ragspine.ingestion import review
from ragspine.storage.documents import DocumentRecord, ReviewItem, ReviewState, TextBlockRow
from ragspine.storage.facts import Fact
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol
from tests.storage.backends import BACKENDS, open_workspace_store


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    with open_workspace_store(request.param, request, tmp_path) as opened:
        yield opened


def test_implements_the_protocol(store: WorkspaceStoreProtocol) -> None:
    assert isinstance(store, WorkspaceStoreProtocol)


def record(doc: str, content: str = "h1") -> DocumentRecord:
    return DocumentRecord(doc, f"/src/{doc}", content, "m0", 10, "pptx", "INTERNAL", "1", "1")


def fact(doc: str, value: float, period: str = "2024", **kw: object) -> Fact:
    return Fact(
        "REVENUE",
        "ACME_HK",
        "HK",
        "TOTAL",
        "FY",
        period,
        value,
        "USD_M",
        doc,
        f"slide=2,table=1,row=REVENUE,col=FY{period}",
        **kw,
    )  # type: ignore[arg-type]


def block(doc: str, position: int, text: str) -> TextBlockRow:
    return TextBlockRow(
        doc,
        position,
        f"slide={position},notes",
        "notes",
        "t",
        text,
        "INTERNAL",
        "zh",
        ("ACME_HK",),
        ("FY2024",),
    )


def proposal(doc: str, value: float) -> dict[str, object]:
    f = fact(doc, value)
    return {
        k: getattr(f, k)
        for k in (
            "metric_code",
            "entity",
            "geography",
            "channel",
            "period_type",
            "period",
            "value",
            "unit",
            "source_doc_id",
            "source_locator",
            "sensitivity",
        )
    }


def test_replace_document_swaps_everything_of_one_document(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(
        record("a.pptx"),
        [fact("a.pptx", 1.0)],
        [block("a.pptx", 1, "x")],
        [ReviewItem("a.pptx", "slide=3,table=1", "missing_entity", "d")],
    )
    store.replace_document(record("b.pptx"), [fact("b.pptx", 1.0, "2023")], [], [])
    store.replace_document(
        record("a.pptx", "h2"),
        [fact("a.pptx", 2.0, "2025")],
        [block("a.pptx", 1, "y"), block("a.pptx", 2, "z")],
        [],
    )
    assert [(f.source_doc_id, f.value) for f in store.list_facts()] == [
        ("a.pptx", 2.0),
        ("b.pptx", 1.0),
    ]
    assert [b.text for b in store.list_blocks("a.pptx")] == ["y", "z"]
    assert store.list_blocks("a.pptx")[0].entities == ("ACME_HK",)
    assert store.list_review() == []
    doc = store.get_document("a.pptx")
    assert doc is not None and (doc.content_hash, doc.n_facts, doc.n_blocks) == ("h2", 1, 2)


def test_a_failing_replace_leaves_the_previous_version(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(record("a.pptx"), [fact("a.pptx", 1.0)], [block("a.pptx", 1, "x")], [])
    duplicate_blocks = [block("a.pptx", 1, "y"), block("a.pptx", 1, "y")]  # primary key clash
    with pytest.raises(StoreError):
        store.replace_document(record("a.pptx", "h2"), [fact("a.pptx", 9.0)], duplicate_blocks, [])
    assert [f.value for f in store.list_facts()] == [1.0]
    assert [b.text for b in store.list_blocks()] == ["x"]
    assert store.get_document("a.pptx").content_hash == "h1"  # type: ignore[union-attr]


def test_metadata_update_reapplies_sensitivity_everywhere(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(
        record("a.pptx"),
        [fact("a.pptx", 1.0)],
        [block("a.pptx", 1, "x")],
        [ReviewItem("a.pptx", "l", "conflict", "d")],
    )
    store.update_document_metadata("a.pptx", "m1", "RESTRICTED")
    assert {f.sensitivity for f in store.list_facts()} == {"RESTRICTED"}
    assert {b.sensitivity for b in store.list_blocks()} == {"RESTRICTED"}
    assert {r.sensitivity for r in store.list_review()} == {"RESTRICTED"}
    assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") is None


def test_approving_a_conflict_retires_the_other_value_and_is_idempotent(
    store: WorkspaceStoreProtocol,
) -> None:
    store.replace_document(record("a.pptx"), [fact("a.pptx", 1320.0)], [], [])
    store.replace_document(
        record("b.pptx"),
        [],
        [],
        [
            ReviewItem(
                "b.pptx",
                "slide=2,table=1,row=REVENUE,col=FY2024",
                "conflict",
                "restated",
                proposal("b.pptx", 1335.0),
            )
        ],
    )
    (item,) = store.list_review(ReviewState.OPEN)
    approved, changed = review.approve(store, item.item_id)
    assert changed and approved.state == ReviewState.APPROVED
    found = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
    assert found is not None and (found.value, found.source_doc_id) == (1335.0, "b.pptx")
    assert review.approve(store, item.item_id)[1] is False
    assert len(store.audit_log(item.item_id)) == 1
    with pytest.raises(ReviewError):
        review.reject(store, item.item_id)


def test_correction_rejection_and_items_without_facts(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(
        record("b.pptx"),
        [],
        [],
        [
            ReviewItem("b.pptx", "l1", "low_confidence", "约1,300", proposal("b.pptx", 1300.0)),
            ReviewItem("b.pptx", "l2", "unmapped_label", "其他收入"),
            ReviewItem("b.pptx", "l3", "low_confidence", "~5", proposal("b.pptx", 5.0)),
        ],
    )
    first, label, third = store.list_review()
    review.approve(store, first.item_id, correct=1298.5)
    assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024").value == 1298.5  # type: ignore[union-attr]
    assert "corrected from 1300.0" in store.audit_log(first.item_id)[0].detail
    with pytest.raises(ReviewError, match="no fact to approve"):
        review.approve(store, label.item_id)
    rejected, _ = review.reject(store, third.item_id, note="typo in deck")
    assert rejected.state == ReviewState.REJECTED
    with pytest.raises(ReviewError):
        review.approve(store, third.item_id)
    with pytest.raises(ReviewError, match="no review item 999"):
        review.approve(store, 999)


def test_a_newer_ingest_schema_is_refused_not_overwritten(tmp_path: Path) -> None:
    """An older ragspine opening a newer workspace must not stamp its own version on it."""
    path = tmp_path / "ws.db"
    SQLiteWorkspaceStore(path).init_schema()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE schema_version SET version = 99 WHERE component = 'ingest'")
        conn.commit()

    with pytest.raises(StoreError, match="ingest schema version 99"):
        SQLiteWorkspaceStore(path).init_schema()
    with closing(sqlite3.connect(path)) as conn:
        (version,) = conn.execute(
            "SELECT version FROM schema_version WHERE component = 'ingest'"
        ).fetchone()
    assert version == 99
