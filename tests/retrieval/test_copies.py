"""Copies of a passage (the same paragraph in two files) fold into one hit in the retriever,
so they never push a distinct passage out of the top k, and a narrative answer cites each
copy's file once."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.ingestion.pipeline import ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.retriever import open_retriever
from ragspine.workspace import Workspace

GROWTH = "Zanzibar revenue grew because agency sales doubled and bancassurance recovered."
OTHER = "Zanzibar agency headcount reached a record after the recruitment drive."


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("copies")
    docs = root / "docs"
    docs.mkdir()
    for name in ("a_review.md", "b_review_copy.md", "c_review_v2.md"):
        (docs / name).write_text(f"# Zanzibar review\n\n{GROWTH}\n", encoding="utf-8")
    (docs / "d_headcount.md").write_text(f"# Zanzibar people\n\n{OTHER}\n", encoding="utf-8")
    # The same passage in another file (other bytes: an identical file would share the
    # RESTRICTED level with its copies, docs/ingestion.md "Copies share their level").
    (docs / "e_restricted_copy.md").write_text(f"# Zanzibar board\n\n{GROWTH}\n", "utf-8")
    (docs / "e_restricted_copy.md.meta.json").write_text('{"sensitivity": "RESTRICTED"}', "utf-8")
    ws = Workspace.create(root / "ws")
    with ws.fact_store() as store:
        report = ingest([docs], store, ws.profile())
    assert not report.failures
    return ws


def test_copies_take_one_place_in_the_ranking(workspace: Workspace) -> None:
    hits = open_retriever(workspace).retrieve(
        "Why did Zanzibar agency sales grow?", top_k=2, clearance=Sensitivity.CONFIDENTIAL
    )
    assert [h.text.strip() for h in hits] == [GROWTH, OTHER]
    files = {hits[0].doc, *(c.doc for c in hits[0].copies)}
    assert files == {"a_review.md", "b_review_copy.md", "c_review_v2.md"}
    assert not hits[1].copies
    assert all(not c.copies for c in hits[0].copies)


def test_a_near_copy_with_another_number_is_not_folded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Zanzibar\n\nZanzibar revenue was 120 in FY2025.\n", "utf-8")
    (docs / "b.md").write_text("# Zanzibar\n\nZanzibar revenue was 125 in FY2025.\n", "utf-8")
    ws = Workspace.create(tmp_path / "ws")
    with ws.fact_store() as store:
        ingest([docs], store, ws.profile())
    hits = open_retriever(ws).retrieve("Zanzibar revenue", top_k=5)
    assert sorted(h.doc for h in hits) == ["a.md", "b.md"]
    assert all(not h.copies for h in hits)


def test_a_copy_the_caller_may_not_see_is_not_folded_in(workspace: Workspace) -> None:
    def files(clearance: Sensitivity) -> set[str]:
        top = open_retriever(workspace).retrieve(
            "Why did Zanzibar agency sales grow?", top_k=1, clearance=clearance
        )[0]
        return {top.doc, *(c.doc for c in top.copies)}

    assert "e_restricted_copy.md" not in files(Sensitivity.CONFIDENTIAL)
    assert "e_restricted_copy.md" in files(Sensitivity.RESTRICTED)
