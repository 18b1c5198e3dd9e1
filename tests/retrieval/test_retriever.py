"""The hybrid retriever on a real demo workspace: filters, RESTRICTED isolation end to end,
index sync after re-ingest, and the dense channel's persistence rule."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.intent import parse_intent
from ragspine.agent.narrative import filters_for
from ragspine.demo.tour import build_demo_workspace
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.lexical import META_FILE, LexicalIndex
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.retrieval.retriever import lexical_path, open_retriever
from ragspine.workspace import Workspace
from tests.agent.helpers import ScriptedProvider, text

REF = date(2026, 11, 26)
SECRET = "北极星"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    ws, _ = build_demo_workspace(tmp_path_factory.mktemp("demo") / "ws")
    return ws


def search(ws: Workspace, query: str, clearance: Sensitivity = Sensitivity.CONFIDENTIAL):
    retriever = open_retriever(ws)
    return retriever.retrieve(
        query,
        top_k=10,
        filters=filters_for(parse_intent(query, REF, profile=ws.profile())),
        clearance=clearance,
    )


def test_the_entity_in_the_question_wins_over_other_regions(workspace: Workspace) -> None:
    hits = search(workspace, "香港监管动态")
    assert hits[0].doc == "memos/HK_Regulatory_Memo.docx"
    assert "memos/CN_Regulation_Update.md" not in {h.doc for h in hits[:3]}


def test_a_chinese_question_finds_english_passages(workspace: Workspace) -> None:
    hits = search(workspace, "2026年战略重点是什么")
    assert "memos/Strategy_2026.md" in {h.doc for h in hits[:5]}


def test_restricted_passages_need_clearance(workspace: Workspace) -> None:
    query = "董事会决议收购东南亚寿险公司"
    assert all(h.sensitivity != "RESTRICTED" for h in search(workspace, query))
    cleared = search(workspace, query, Sensitivity.RESTRICTED)
    assert cleared[0].doc == "memos/board_minutes_2025.docx"


def test_restricted_text_never_reaches_the_model_or_an_uncleared_answer(
    workspace: Workspace,
) -> None:
    retriever = open_retriever(workspace)
    spy = ScriptedProvider([text("The board approved an acquisition [1].")])
    with workspace.fact_store() as store:
        result = answer_question(
            "董事会决议收购了什么公司？",
            store,
            spy,
            reference_date=REF,
            narrative_retriever=retriever,
        )
    seen = json.dumps(
        [spy.prompts, result.answer, [s.to_dict() for s in result.sources], result.trace],
        ensure_ascii=False,
    )
    assert SECRET not in seen and "board_minutes" not in seen
    cleared_spy = ScriptedProvider([text("Approved [1].")])
    with workspace.fact_store() as store:
        answer_question(
            "董事会决议收购了什么公司？",
            store,
            cleared_spy,
            reference_date=REF,
            narrative_retriever=retriever,
            clearance=Sensitivity.RESTRICTED,
        )
    assert SECRET in json.dumps(cleared_spy.prompts, ensure_ascii=False)


def test_reingesting_a_changed_document_updates_the_index(tmp_path: Path) -> None:
    ws, _ = build_demo_workspace(tmp_path / "ws")
    assert not search(ws, "zanzibar")
    memo = ws.root / "corpus" / "memos" / "Strategy_2026.md"
    memo.write_text(
        memo.read_text(encoding="utf-8") + "\n\nZanzibar expansion is on hold.\n", encoding="utf-8"
    )
    with ws.fact_store() as store:
        ingest([ws.root / "corpus"], store, ws.profile())
    hits = search(ws, "zanzibar")
    assert hits and hits[0].doc == "memos/Strategy_2026.md"


def test_dense_channel_never_stores_restricted_vectors(workspace: Workspace) -> None:
    retriever = open_retriever(workspace, dense="hashing")
    assert retriever.dense is not None
    stored = set(retriever.dense.vectors.chunk_ids())
    assert stored and not any(cid.startswith("memos/board_minutes") for cid in stored)
    hits = retriever.retrieve("board acquisition", top_k=10, clearance=Sensitivity.RESTRICTED)
    # A cleared caller still gets the minutes, from the lexical channel alone.
    assert "memos/board_minutes_2025.docx" in {hit.doc for hit in hits}


def test_a_document_reingested_after_the_index_opened_is_left_out_not_mixed(
    tmp_path: Path,
) -> None:
    ws, _ = build_demo_workspace(tmp_path / "ws")
    retriever = open_retriever(ws)  # the index as the ingest left it: the memo's old text
    assert "memos/Strategy_2026.md" in {h.doc for h in retriever.retrieve("2026 strategy")}
    memo = ws.root / "corpus" / "memos" / "Strategy_2026.md"
    memo.write_text("# Strategy 2026\n\nZanzibar expansion is on hold.\n", encoding="utf-8")
    with ws.fact_store() as store:
        ingest([ws.root / "corpus"], store, ws.profile())

    # Ranked by the old text, the memo would be shown with the new one: it is left out.
    assert "memos/Strategy_2026.md" not in {h.doc for h in retriever.retrieve("2026 strategy")}
    notes: list[str] = []
    reopened = open_retriever(ws, notify=notes.append)
    assert reopened.retrieve("zanzibar")[0].doc == "memos/Strategy_2026.md"
    assert len(notes) == 1  # the store is ahead of the index until the next ingest command


def test_an_index_whose_versions_were_lost_at_a_crash_holds_each_chunk_once(
    tmp_path: Path,
) -> None:
    """A writer killed between the index's commit and the saving of its document versions
    leaves chunks no version names; the next refresh must not add them a second time."""
    ws = Workspace.create(tmp_path / "ws")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.md").write_text("# Memo\n\nZanzibar expansion is on hold.\n\nMore text.\n")
    with ws.write_lock(), ws.fact_store() as store:
        ingest([docs], store, ws.profile())
        refresh_indexes(ws, store)
        chunks = len(store.list_chunks())
        meta = lexical_path(ws) / META_FILE
        saved = json.loads(meta.read_text(encoding="utf-8"))
        meta.write_text(json.dumps({**saved, "doc_versions": {}}), encoding="utf-8")
        refresh_indexes(ws, store)
    index = LexicalIndex.open_read_only(lexical_path(ws))
    assert index is not None
    assert chunks > 0 and len(index) == chunks
