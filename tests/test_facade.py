from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AnswerKind, Source
from ragspine.demo.fixtures import load_quickstart_facts, quickstart_facts
from ragspine.errors import ProfileError, StoreError, UsageError, WorkspaceNotFoundError
from ragspine.facade import RAGSpine
from ragspine.profile.loader import example_profile_path
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retriever import INDEX_DIR
from ragspine.workspace import Workspace

FOUND_Q = "中国内地FY2024的REVENUE是多少"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = Workspace.create(tmp_path / "ws")
    with ws.fact_store() as store:
        load_quickstart_facts(store)
    return ws.root


def test_ask_answers_with_sources_and_appends_one_trace(workspace: Path) -> None:
    with RAGSpine.open(workspace) as rag:
        result = rag.ask(FOUND_Q)

    assert result.answer_kind is AnswerKind.FOUND
    assert result.sources == [
        Source("ACME_FY2024_Review.pptx", "slide=2,table=1,row=REVENUE,col=FY2024")
    ]
    lines = (workspace / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["request_id"] for line in lines] == [result.request_id]


def test_open_never_creates_a_workspace(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceNotFoundError):
        RAGSpine.open(tmp_path / "missing")
    with pytest.raises(WorkspaceNotFoundError):
        RAGSpine.open(Workspace(tmp_path / "also-missing"))

    assert list(tmp_path.iterdir()) == []


def test_reference_date_sets_the_assumed_year(workspace: Path) -> None:
    with RAGSpine.open(workspace) as rag:
        result = rag.ask("香港的收入是多少", reference_date=date(2025, 11, 26))

    assert result.clarification.assumed_slots == {"period": "FY2024"}
    assert "香港 FY2024 收入：2,480 百万美元" in result.answer


def test_clearance_is_applied_to_every_question(workspace: Path) -> None:
    question = "集团2026H1的营运利润是多少"
    with (
        RAGSpine.open(workspace) as default,
        RAGSpine.open(workspace, clearance="RESTRICTED") as cleared,
    ):
        assert default.ask(question).answer_kind is AnswerKind.NOT_FOUND
        assert cleared.ask(question).answer_kind is AnswerKind.FOUND


def test_unknown_clearance_is_rejected(workspace: Path) -> None:
    with pytest.raises(ValueError, match="valid options"):
        RAGSpine.open(workspace, clearance="SECRET")


def test_given_provider_is_used(workspace: Path) -> None:
    provider = MockProvider()
    with RAGSpine.open(workspace, provider=provider) as rag:
        rag.ask(FOUND_Q)

    assert provider.calls > 0


def test_workspace_profile_replaces_the_example(workspace: Path) -> None:
    text = example_profile_path().read_text(encoding="utf-8")
    (workspace / "profile.toml").write_text(
        text.replace('aliases = ["香港",', 'aliases = ["明珠", "香港",'), encoding="utf-8"
    )

    with RAGSpine.open(workspace) as rag:
        result = rag.ask("明珠FY2025的收入是多少")

    assert result.answer.startswith("香港 FY2025 收入：2,710 百万美元")


def test_malformed_workspace_profile_fails_at_open(workspace: Path) -> None:
    (workspace / "profile.toml").write_text("[company\n", encoding="utf-8")

    with pytest.raises(ProfileError, match=r"profile\.toml"):
        RAGSpine.open(workspace)


def test_close_releases_the_store(workspace: Path) -> None:
    rag = RAGSpine.open(workspace)
    rag.close()

    with pytest.raises(StoreError):
        rag.store.count_facts()


def test_loading_the_quickstart_facts_twice_keeps_one_copy(workspace: Path) -> None:
    with Workspace.open(workspace).fact_store() as store:
        again = load_quickstart_facts(store)
        assert store.count_facts() == again == len(quickstart_facts())


def test_rerank_uses_the_provider_and_falls_back_on_nonsense(tmp_path: Path) -> None:
    from ragspine.demo.tour import build_demo_workspace
    from tests.agent.helpers import ScriptedProvider, text

    ws, _ = build_demo_workspace(tmp_path / "ws")
    judge = ScriptedProvider([text("not a ranking"), text("The memo explains it [1].")])
    with RAGSpine.open(ws.root, provider=judge, rerank=True) as rag:
        result = rag.ask("香港监管动态", reference_date=date(2026, 11, 26))
    assert judge.calls == 2  # one rerank call (malformed → fused order kept), one synthesis
    assert result.sources[0].doc == "memos/HK_Regulatory_Memo.docx"


def test_a_read_only_workspace_answers_and_refuses_to_ingest(
    workspace: Path, tmp_path: Path
) -> None:
    database = (workspace / "ragspine.db").read_bytes()
    memo = tmp_path / "memo.md"
    memo.write_text("# Memo\n\nACME HK grew.\n", encoding="utf-8")

    with RAGSpine.open(workspace, read_only=True) as rag:
        assert rag.ask(FOUND_Q).answer_kind is AnswerKind.FOUND
        with pytest.raises(UsageError, match="read-only"):
            rag.ingest(memo)

    assert (workspace / "ragspine.db").read_bytes() == database


def test_ingest_leaves_the_search_index_current(workspace: Path, tmp_path: Path) -> None:
    memo = tmp_path / "memo.md"
    memo.write_text("# Memo\n\nZanzibar expansion is on hold.\n", encoding="utf-8")

    with RAGSpine.open(workspace) as rag:
        rag.ingest(memo)

    index = LexicalIndex.open_read_only(workspace / INDEX_DIR / "lexical")
    assert index is not None and set(index.doc_versions()) == {"memo.md"}
    assert index.search("zanzibar")
