"""Acceptance (issue 26): ingesting the unit, currency, calendar, hidden-content and footnote
regression corpus reproduces its hand-written ground truth exactly — every value with its
currency and scale, or a review item with its reason — in every format."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.types import AgentResult, FoundFact
from ragspine.demo import harbour as truth
from ragspine.demo.harbour import ExpectedFact, ExpectedReview
from ragspine.demo.tour import DEMO_REFERENCE_DATE, HARBOUR_QUESTIONS, build_harbour_workspace
from ragspine.eval.answer_values import stated_values
from ragspine.facade import RAGSpine
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteWorkspaceStore:
    root = truth.build(tmp_path_factory.mktemp("harbour"))
    workspace = SQLiteWorkspaceStore(tmp_path_factory.mktemp("ws") / "ws.db")
    workspace.init_schema()
    report = ingest([root], workspace, load_profile(truth.profile_path()))
    assert report.failures == []
    return workspace


def stored_facts(store: SQLiteWorkspaceStore) -> set[ExpectedFact]:
    return {
        ExpectedFact(
            f.source_doc_id,
            f.source_locator,
            f.metric_code,
            f.entity,
            f"FY{f.period}" if f.period_type == "FY" else f"{f.period}{f.period_type}",
            round(f.value, 9),
            f.unit,
        )
        for f in store.list_facts()
    }


def test_every_value_is_stored_with_its_currency_and_scale(store: SQLiteWorkspaceStore) -> None:
    got = stored_facts(store)
    assert sorted(got - truth.EXPECTED_FACTS) == [], "stored but not in the ground truth"
    assert sorted(truth.EXPECTED_FACTS - got) == [], "in the ground truth but not stored"


def test_what_cannot_be_explained_is_reviewed_with_its_reason(
    store: SQLiteWorkspaceStore,
) -> None:
    got = {ExpectedReview(r.doc_id, r.locator, r.reason) for r in store.list_review()}
    assert sorted(got - truth.EXPECTED_REVIEW) == []
    assert sorted(truth.EXPECTED_REVIEW - got) == []


def test_a_footnote_mark_is_never_a_digit(store: SQLiteWorkspaceStore) -> None:
    doc, locator, proposed = truth.FOOTNOTED_PROPOSAL
    item = next(r for r in store.list_review() if (r.doc_id, r.locator) == (doc, locator))
    assert item.proposed is not None
    assert item.proposed["value"] == proposed


def test_the_corpus_covers_every_format(tmp_path: Path) -> None:
    root = truth.build(tmp_path)
    suffixes = {p.suffix for p in root.rglob("*") if p.is_file()}
    assert suffixes == {".xlsx", ".pptx", ".docx", ".pdf", ".md"}
    named = {f.doc for f in truth.EXPECTED_FACTS} | {r.doc for r in truth.EXPECTED_REVIEW}
    assert {Path(d).suffix for d in named} == suffixes


def _truth(metric: str, entity: str, period: str) -> ExpectedFact:
    return next(
        f
        for f in truth.EXPECTED_FACTS
        if (f.metric, f.entity, f.period) == (metric, entity, period)
    )


# Each demo question and the hand-written facts its answer must state, with their sources.
DEMO_ANSWERS = {
    "What was Ferries revenue in FY2024/25?": [("REVENUE", "HLH_FERRY", "FY2025")],
    "港口业务截至2025年3月31日止年度的收入是多少": [("REVENUE", "HLH_PORTS", "FY2025")],
    "What was group operating profit for the year ended 31 March 2024?": [
        ("OPERATING_PROFIT", "HLH_GROUP", "FY2024")
    ],
    "How many passenger trips did the group carry in FY2025?": [
        ("PASSENGERS", "HLH_GROUP", "FY2025")
    ],
    "How much did Ports operating profit grow in FY2025?": [
        ("OPERATING_PROFIT", "HLH_PORTS", "FY2025"),
        ("OPERATING_PROFIT", "HLH_PORTS", "FY2024"),
    ],
}


# The profile's [[derived]] operating margin (operating profit ÷ revenue), asked of the Ports
# segment: in FY2024 its operating profit is in € (the note) and its revenue in RMB (the report),
# in FY2025 both are in RMB. Neither year states a margin for Ports (the workbook's bare 0.168
# goes to review).
MARGIN_QUESTIONS = {
    "What was the operating margin of Ports in FY2024?": "FY2024",
    "港口业务FY2024营运利润率是多少": "FY2024",
    "What was the operating margin of Ports in FY2025?": "FY2025",
    "港口业务截至2025年3月31日止年度的经营利润率": "FY2025",
}


@pytest.fixture(scope="module")
def harbour_answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AgentResult]:
    workspace, report = build_harbour_workspace(tmp_path_factory.mktemp("demo") / "harbour")
    assert report.failures == []
    questions = [q.question for q in HARBOUR_QUESTIONS] + list(MARGIN_QUESTIONS)
    with RAGSpine.open(workspace.root) as rag:
        return {q: rag.ask(q, reference_date=DEMO_REFERENCE_DATE) for q in questions}


def test_the_demo_asks_the_second_company_what_its_truth_answers() -> None:
    assert {q.question for q in HARBOUR_QUESTIONS} == set(DEMO_ANSWERS)


@pytest.mark.parametrize("question", sorted(DEMO_ANSWERS))
def test_the_second_companys_demo_answers_state_its_true_figures(
    harbour_answers: dict[str, AgentResult], question: str
) -> None:
    result = harbour_answers[question]
    assert result.answer_kind == "found"
    found = {
        (r.slots.metric, r.slots.entity, r.slots.period.label): r
        for r in result.tool_results
        if isinstance(r, FoundFact)
    }
    for key in DEMO_ANSWERS[question]:
        expected = _truth(*key)
        fact = found[key]
        assert (fact.value, fact.unit) == (expected.value, expected.unit)
        assert (fact.source.doc, fact.source.locator) == (expected.doc, expected.locator)
        # Read back from the displayed answer ("HK$ 3,480 m") by the eval's own reader.
        stated = [(v.value, v.unit) for v in stated_values(result.answer)]
        assert (expected.value, expected.unit) in stated


def test_a_change_across_two_currencies_is_refused_with_its_reason(
    harbour_answers: dict[str, AgentResult],
) -> None:
    answer = harbour_answers["How much did Ports operating profit grow in FY2025?"].answer
    assert "FY2025 is in RMB, FY2024 in €; no exchange rate is given." in answer
    assert "%" not in answer  # no percentage change was computed


def _found(result: AgentResult) -> dict[tuple[str, str, str], FoundFact]:
    return {
        (r.slots.metric, r.slots.entity, r.slots.period.label): r
        for r in result.tool_results
        if isinstance(r, FoundFact)
    }


@pytest.mark.parametrize("question", sorted(MARGIN_QUESTIONS))
def test_a_derived_margin_is_computed_within_one_currency_and_refused_across_two(
    harbour_answers: dict[str, AgentResult], question: str
) -> None:
    period = MARGIN_QUESTIONS[question]
    profit = _truth("OPERATING_PROFIT", "HLH_PORTS", period)
    revenue = _truth("REVENUE", "HLH_PORTS", period)
    result = harbour_answers[question]
    found = _found(result)
    # both inputs are shown with their true value and source, whatever the outcome
    for expected in (profit, revenue):
        fact = found[(expected.metric, expected.entity, expected.period)]
        assert (fact.value, fact.unit) == (expected.value, expected.unit)
        assert (fact.source.doc, fact.source.locator) == (expected.doc, expected.locator)
    headline = result.answer.splitlines()[0]
    if profit.unit.split("_")[0] == revenue.unit.split("_")[0]:
        margin = f"{profit.value / revenue.value * 100:.2f}%"  # 210 / 1250: 16.80%
        assert result.answer_kind == "found"
        assert margin in headline
        assert {(s.doc, s.locator) for s in result.sources} == {
            (profit.doc, profit.locator),
            (revenue.doc, revenue.locator),
        }
    else:
        assert result.answer_kind == "partial"
        assert "different currencies" in headline or "币种或单位不同" in headline
        assert "%" not in result.answer  # no ratio across € and RMB
