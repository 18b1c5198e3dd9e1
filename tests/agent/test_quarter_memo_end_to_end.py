"""A quarterly memo answers a question about its year: written, ingested, retrieved, cited."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from docx import Document

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AnswerKind
from ragspine.ingestion.pipeline import ingest
from ragspine.retrieval.retriever import open_retriever
from ragspine.workspace import Workspace

REF = date(2026, 11, 26)
QUARTER_MEMO = "HK_2024Q4_Review.docx"
OLD_MEMO = "HK_2022_Review.docx"


def write_memo(path: Path, title: str, body: str) -> None:
    document = Document()
    document.add_heading(title, level=1)
    document.add_paragraph(body)
    document.save(str(path))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("quarter")
    corpus = root / "corpus"
    corpus.mkdir()
    write_memo(
        corpus / QUARTER_MEMO,
        "香港 2024年第四季度业务回顾",
        "本季度香港收入增长主要受代理人渠道新业务带动，内地访客保费回升亦有贡献。",
    )
    write_memo(
        corpus / OLD_MEMO,
        "香港 2022年业务回顾",
        "香港收入增长放缓，主要受访客减少影响。",
    )
    ws = Workspace.create(root / "ws")
    with ws.fact_store() as store:
        ingest([corpus], store, ws.profile())
    return ws


def test_the_memo_is_tagged_with_its_quarter_only(workspace: Workspace) -> None:
    with workspace.fact_store() as store:
        periods = {c.periods for c in store.list_chunks(QUARTER_MEMO)}
    assert periods == {("2024Q4",)}


@pytest.mark.parametrize(
    "question", ["为什么香港收入增长", "Why did Hong Kong revenue grow in 2024?"]
)
def test_a_question_about_the_year_finds_the_quarter_memo(
    workspace: Workspace, question: str
) -> None:
    with workspace.fact_store() as store:
        result = answer_question(
            question,
            store,
            MockProvider(),
            reference_date=REF,
            narrative_retriever=open_retriever(workspace),
        )
    assert result.narrative is not None
    assert result.narrative.kind is AnswerKind.NARRATIVE
    cited = {s.doc for s in result.narrative.sources}
    assert cited == {QUARTER_MEMO}
    assert "代理人渠道新业务带动" in result.answer
    # The 2022 memo matches the words but not the years asked (and their base year).
    assert all(not c.startswith(OLD_MEMO) for c in result.trace["chunk_ids"])
