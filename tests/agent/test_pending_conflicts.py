"""A pending restatement is disclosed: the demo's HK FY2024 revenue has 2,880 waiting in review."""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.consistency import FactCheck
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, NarrativeSection
from ragspine.demo.corpus import generate_corpus
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.ingestion.pipeline import ingest
from ragspine.ingestion.review import approve
from ragspine.ingestion.tables import ReviewReason
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.retriever import open_retriever
from ragspine.storage.documents import ReviewState
from ragspine.workspace import Workspace

REF = date(2026, 11, 26)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("pending")
    generate_corpus(root / "corpus")
    ws = Workspace.create(root / "ws")
    with ws.fact_store() as store:
        ingest([root / "corpus"], store, ws.profile())
    return ws


def ask(ws: Workspace, question: str, clearance: Sensitivity = DEFAULT_CLEARANCE) -> AgentResult:
    with ws.fact_store() as store:
        return answer_question(
            question,
            store,
            MockProvider(),
            reference_date=REF,
            narrative_retriever=open_retriever(ws),
            profile=ws.profile(),
            clearance=clearance,
        )


def restatement(ws: Workspace) -> tuple[int, str, str]:
    with ws.fact_store() as store:
        (item,) = [
            i
            for i in store.list_review(ReviewState.OPEN)
            if i.reason == ReviewReason.CONFLICT and i.proposed and i.proposed["value"] == 2880
        ]
    return item.item_id, item.doc_id, item.locator


def test_the_growth_answer_discloses_the_pending_restatement(workspace: Workspace) -> None:
    result = ask(workspace, "为什么香港FY2025收入增长")
    _, doc, locator = restatement(workspace)
    structured = result.answer.split("归因分析")[0]
    assert "2,850" in structured and "+255" in structured
    assert f"2,880 百万美元（来源：{doc} · {locator}" in structured
    assert "暂定" in structured.splitlines()[-2]  # the change line is provisional
    assert [(p.value, p.doc_id, p.locator) for p in result.pending] == [(2880, doc, locator)]
    # The narrative's restated figure is a disclosed restatement, not a contradiction.
    assert "2,880" in result.answer.split("归因分析")[1]
    assert result.trace["facts_contradicted"] == 0
    assert fabricated_numbers(result) == []


def test_an_answer_without_a_pending_value_says_nothing_of_it(workspace: Workspace) -> None:
    result = ask(workspace, "What was ACME HK revenue in FY2025?")
    assert result.pending == [] and "pending" not in result.answer
    assert "provisional" not in result.answer


def test_an_undisclosed_pending_value_counts_as_fabricated(workspace: Workspace) -> None:
    result = ask(workspace, "What was ACME HK revenue in FY2024?")
    assert "US$ 2,880 m" in result.answer and "provisional" not in result.answer
    assert fabricated_numbers(result) == []
    result.pending = []
    assert "2,880" in [f.number for f in fabricated_numbers(result)]


def test_the_eval_counts_a_sentence_contradicting_a_stored_fact(workspace: Workspace) -> None:
    result = ask(workspace, "为什么香港FY2025收入增长")
    wrong = "香港FY2025收入为9,999百万美元。"
    assert result.narrative is not None
    result.narrative = NarrativeSection(wrong, body=wrong)
    result.answer += wrong
    with workspace.fact_store() as store:
        check = FactCheck(store, workspace.profile(), REF, DEFAULT_CLEARANCE)
        counted = [f.number for f in fabricated_numbers(result, facts=check)]
    assert "9,999" in counted


def test_approving_the_restatement_ends_the_disclosure(workspace: Workspace) -> None:
    item_id, _, _ = restatement(workspace)
    with workspace.fact_store() as store:
        approve(store, item_id)
    result = ask(workspace, "为什么香港FY2025收入增长")
    assert result.pending == [] and "暂定" not in result.answer
    assert "2,880 百万美元" in result.answer.split("归因分析")[0]
