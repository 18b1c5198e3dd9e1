"""The workspace store's chunks, held passages, pending conflicts and copies of one content.

Every test runs against each backend (``tests/storage/backends.py``), so the PostgreSQL store
answers exactly as the embedded one.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ragspine.errors import ReviewError
from ragspine.ingestion import review
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    CLEARANCE_CONFLICT,
    CONFLICT,
    SUSPICIOUS_INSTRUCTION,
    PendingValue,
    ReviewItem,
    ReviewState,
)
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol
from tests.storage.backends import BACKENDS, open_workspace_store
from tests.storage.test_ingest_store import block, fact, proposal, record

KEY = ("REVENUE", "ACME_HK", "FY", "2024", "TOTAL")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    with open_workspace_store(request.param, request, tmp_path) as opened:
        yield opened


def chunk(doc: str, n: int, **changes: Any) -> Chunk:
    made = Chunk(
        f"{doc}#{n}",
        doc,
        f"slide={n},notes",
        "标题",
        f"香港收入增长 {n}",
        ("ACME_HK", "ACME_CN"),
        ("FY2024", "2025H1"),
        "zh",
        "INTERNAL",
        "v1",
    )
    return dataclasses.replace(made, **changes)


def test_chunks_round_trip_in_written_order(store: WorkspaceStoreProtocol) -> None:
    chunks = [chunk("a.pptx", n) for n in (3, 1, 2)]
    store.replace_document(record("a.pptx"), [], [], [], chunks)
    store.replace_document(record("b.pptx", "h2"), [], [], [], [chunk("b.pptx", 1, entities=())])

    assert store.list_chunks("a.pptx") == chunks
    assert [c.chunk_id for c in store.list_chunks()] == [
        "a.pptx#3",
        "a.pptx#1",
        "a.pptx#2",
        "b.pptx#1",
    ]
    assert store.list_chunks("b.pptx")[0].entities == ()
    found = store.get_chunks(["a.pptx#2", "missing", "b.pptx#1"])
    assert sorted(found) == ["a.pptx#2", "b.pptx#1"]
    assert found["a.pptx#2"] == chunks[2]
    assert store.get_chunks([]) == {}


def test_blocks_keep_their_codes_and_count(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(
        record("a.pptx"), [], [block("a.pptx", 2, "b"), block("a.pptx", 1, "a")], []
    )
    blocks = store.list_blocks()
    assert [(b.position, b.text, b.entities, b.periods) for b in blocks] == [
        (1, "a", ("ACME_HK",), ("FY2024",)),
        (2, "b", ("ACME_HK",), ("FY2024",)),
    ]
    assert store.count_blocks() == 2


def test_a_suspicious_passage_is_held_until_approved(store: WorkspaceStoreProtocol) -> None:
    suspicious = ReviewItem("a.pptx", "slide=1,notes", SUSPICIOUS_INSTRUCTION, "ignore rules")
    store.replace_document(
        record("a.pptx"), [], [], [suspicious], [chunk("a.pptx", 1), chunk("a.pptx", 2)]
    )
    before = store.chunk_state()

    assert [c.held for c in store.list_chunks()] == [True, False]
    assert store.held_locators() == {"a.pptx": ("slide=1,notes",)}

    (item,) = store.list_review()
    review.approve(store, item.item_id)

    assert [c.held for c in store.list_chunks()] == [False, False]
    assert store.held_locators() == {}
    assert store.chunk_state() != before


def test_pending_values_of_open_conflicts_respect_clearance(
    store: WorkspaceStoreProtocol,
) -> None:
    store.replace_document(record("a.pptx"), [fact("a.pptx", 1320.0)], [], [])
    conflict = ReviewItem(
        "b.pptx", "slide=2,table=1", CONFLICT, "restated", proposal("b.pptx", 1335.5)
    )
    secret = dataclasses.replace(
        conflict, locator="slide=9", proposed=proposal("b.pptx", 9.0), sensitivity="RESTRICTED"
    )
    other_year = dataclasses.replace(
        conflict, proposed=proposal("b.pptx", 7.0) | {"period": "2023"}
    )
    store.replace_document(record("b.pptx", "h2"), [], [], [conflict, secret, other_year])

    assert store.pending_values(KEY, clearance=Sensitivity.INTERNAL) == [
        PendingValue(1335.5, "USD_M", "b.pptx", "slide=2,table=1", "INTERNAL")
    ]
    assert [p.value for p in store.pending_values(KEY, clearance=Sensitivity.RESTRICTED)] == [
        1335.5,
        9.0,
    ]
    assert store.list_review()[0].proposed == proposal("b.pptx", 1335.5)


def test_approved_values_leave_out_the_named_documents(store: WorkspaceStoreProtocol) -> None:
    for doc, value in (("a.pptx", 1.0), ("b.pptx", 2.0), ("c.pptx", 3.0)):
        store.replace_document(record(doc, doc), [fact(doc, value)], [], [])
    pending = fact("d.pptx", 4.0, review_status="pending")
    store.replace_document(record("d.pptx", "d"), [pending], [], [])

    assert [f.value for f in store.approved_values(KEY, {"b.pptx"})] == [1.0, 3.0]
    assert [f.value for f in store.approved_values(KEY, set())] == [1.0, 2.0, 3.0]


def test_a_copy_is_raised_to_the_level_of_its_other_copy(store: WorkspaceStoreProtocol) -> None:
    public = "public/deck.pptx"
    store.replace_document(record(public), [fact(public, 1.0)], [], [], [chunk(public, 1)])
    board = "board/deck.pptx"
    secret = dataclasses.replace(record(board), sensitivity="CONFIDENTIAL")
    store.replace_document(secret, [fact(board, 1.0, sensitivity="CONFIDENTIAL")], [], [])

    copy = store.get_document("public/deck.pptx")
    assert copy is not None and copy.sensitivity == "CONFIDENTIAL"
    assert {f.sensitivity for f in store.list_facts()} == {"CONFIDENTIAL"}
    assert [c.sensitivity for c in store.list_chunks()] == ["CONFIDENTIAL"]
    assert store.get_fact(*KEY, clearance=Sensitivity.INTERNAL) is None
    (entry,) = store.document_audit("public/deck.pptx")
    assert (entry.item_id, entry.action) == (0, "sensitivity_raised")
    assert "INTERNAL -> CONFIDENTIAL: same content as board/deck.pptx" in entry.detail


def test_an_override_note_goes_to_the_document_audit(store: WorkspaceStoreProtocol) -> None:
    store.replace_document(record("a.pptx"), [], [], [], override_note="sidecar: PUBLIC")
    store.update_document_metadata("a.pptx", "m2", "PUBLIC", override_note="sidecar: again")

    assert [(e.action, e.detail) for e in store.document_audit("a.pptx")] == [
        ("sensitivity_override", "sidecar: PUBLIC"),
        ("sensitivity_override", "sidecar: again"),
    ]
    doc = store.get_document("a.pptx")
    assert doc is not None and (doc.metadata_hash, doc.sensitivity) == ("m2", "PUBLIC")


def test_a_metadata_update_never_lowers_a_conflict_item(store: WorkspaceStoreProtocol) -> None:
    conflict = ReviewItem("a.pptx", "l", CONFLICT, "d", sensitivity="RESTRICTED")
    store.replace_document(
        record("a.pptx"), [], [], [conflict, ReviewItem("a.pptx", "m", "x", "d")]
    )

    store.update_document_metadata("a.pptx", "m1", "PUBLIC")

    assert [r.sensitivity for r in store.list_review()] == ["RESTRICTED", "PUBLIC"]


def test_a_metadata_update_never_lowers_a_clearance_conflict_item(
    store: WorkspaceStoreProtocol,
) -> None:
    above = ReviewItem("a.pptx", "l", CLEARANCE_CONFLICT, "d", sensitivity="CONFIDENTIAL")
    store.replace_document(record("a.pptx"), [], [], [above])

    store.update_document_metadata("a.pptx", "m1", "PUBLIC")

    assert [r.sensitivity for r in store.list_review()] == ["CONFIDENTIAL"]


def test_an_approval_supersedes_only_the_facts_its_level_covers(
    store: WorkspaceStoreProtocol,
) -> None:
    store.replace_document(record("a.pptx", "a"), [fact("a.pptx", 1.0)], [], [])
    secret = dataclasses.replace(record("board.xlsx", "s"), sensitivity="RESTRICTED")
    store.replace_document(secret, [fact("board.xlsx", 9.0, sensitivity="RESTRICTED")], [], [])
    item = ReviewItem("b.pptx", "slide=2,table=1", CONFLICT, "restated", proposal("b.pptx", 2.0))
    store.replace_document(record("b.pptx", "b"), [], [], [item])
    (queued,) = store.list_review()

    decided, changed = review.approve(store, queued.item_id)

    assert changed and decided.state is ReviewState.APPROVED
    statuses = {f.source_doc_id: f.review_status for f in store.list_facts()}
    assert statuses == {"a.pptx": "rejected", "b.pptx": "approved", "board.xlsx": "approved"}
    assert "board.xlsx" not in store.audit_log(queued.item_id)[0].detail
    found = store.get_fact(*KEY, clearance=Sensitivity.RESTRICTED)
    assert found is not None and found.value == 9.0
    found = store.get_fact(*KEY, clearance=Sensitivity.CONFIDENTIAL)
    assert found is not None and found.value == 2.0


def test_a_document_round_trips_its_manifest_row(store: WorkspaceStoreProtocol) -> None:
    row = dataclasses.replace(
        record("a.pptx"),
        ingested_at="2025-01-01T00:00:00.000000+00:00",
        content_sensitivity="PUBLIC",
    )
    store.replace_document(row, [fact("a.pptx", 1.0)], [block("a.pptx", 1, "x")], [])

    assert store.get_document("a.pptx") == dataclasses.replace(row, n_facts=1, n_blocks=1)
    assert store.list_documents() == [store.get_document("a.pptx")]
    assert store.get_document("missing") is None


@pytest.fixture
def second_store(store: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Another store (another connection) on the same database as ``store``."""
    backend = "sqlite" if isinstance(store, SQLiteWorkspaceStore) else "postgres"
    with open_workspace_store(backend, request, tmp_path) as opened:
        yield opened


def _together(*writes: Callable[[], None]) -> None:
    """Run the writes in threads released at the same moment; re-raise the first failure."""
    barrier = threading.Barrier(len(writes))

    def run(write: Callable[[], None]) -> None:
        barrier.wait()
        write()

    with ThreadPoolExecutor(len(writes)) as pool:
        for future in [pool.submit(run, write) for write in writes]:
            future.result()


def test_two_writers_of_one_document_take_turns(store: Any, second_store: Any) -> None:
    def versions(writer: Any, name: str) -> Callable[[], None]:
        def write() -> None:
            for n in range(8):
                chunks = [chunk("a.pptx", i, text=f"{name}{n}") for i in range(1, 4)]
                facts = [fact("a.pptx", float(n))]
                writer.replace_document(record("a.pptx", f"{name}{n}"), facts, [], [], chunks)

        return write

    _together(versions(store, "x"), versions(second_store, "y"))

    doc = store.get_document("a.pptx")
    assert doc is not None
    assert {c.text for c in store.list_chunks()} == {doc.content_hash}
    assert len(store.list_chunks()) == 3 and store.count_facts() == 1


def test_copies_written_at_once_end_at_one_level(store: Any, second_store: Any) -> None:
    for n in range(4):
        content = f"same-{n}"
        public = record(f"public/{n}.pptx", content)
        secret = dataclasses.replace(record(f"vault/{n}.pptx", content), sensitivity="RESTRICTED")
        _together(
            functools.partial(store.replace_document, public, [], [], []),
            functools.partial(second_store.replace_document, secret, [], [], []),
        )
        levels = {store.get_document(d.doc_id).sensitivity for d in (public, secret)}
        assert levels == {"RESTRICTED"}, n


def test_a_decision_on_an_item_decided_meanwhile_is_refused(store: Any) -> None:
    """A decision is taken on the state its caller read: one arriving after another decided
    the item is refused, and the audit keeps the one decision made."""
    suspicious = ReviewItem("a.pptx", "slide=1,notes", SUSPICIOUS_INSTRUCTION, "ignore rules")
    store.replace_document(record("a.pptx"), [], [], [suspicious], [chunk("a.pptx", 1)])
    (item,) = store.list_review()
    review.reject(store, item.item_id)

    with pytest.raises(ReviewError, match="meanwhile"):
        store.resolve_review(item.item_id, ReviewState.APPROVED, note="passage released")

    assert [e.action for e in store.audit_log(item.item_id)] == ["rejected"]
    assert store.get_review(item.item_id).state is ReviewState.REJECTED


def test_racing_contradictory_decisions_leave_one_winner(store: Any, second_store: Any) -> None:
    items = [
        ReviewItem("a.pptx", f"slide={n},notes", SUSPICIOUS_INSTRUCTION, "ignore rules")
        for n in range(1, 7)
    ]
    chunks = [chunk("a.pptx", n) for n in range(1, 7)]
    store.replace_document(record("a.pptx"), [], [], items, chunks)
    made: list[tuple[int, str]] = []

    def decide(decision: Callable[[], object], item_id: int, state: str) -> Callable[[], None]:
        def run() -> None:
            try:
                decision()
            except ReviewError:
                return
            made.append((item_id, state))

        return run

    for item in store.list_review():
        n = item.item_id
        _together(
            decide(functools.partial(review.approve, store, n), n, "approved"),
            decide(functools.partial(review.reject, second_store, n), n, "rejected"),
        )

    for item in store.list_review(None):
        ((_, winner),) = [m for m in made if m[0] == item.item_id]
        assert [e.action for e in store.audit_log(item.item_id)] == [winner]
        assert item.state.value == winner
