"""The golden eval counts a narrative amount that contradicts the ground truth as fabricated.

The guard drops such sentences, so the answer is built by hand here (as a guard regression
would leave it): grounded in its cited passage, yet at odds with the truth. The truth is
written here, from the test store's own facts — never read back from the store.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from ragspine.agent.agent import answer_question
from ragspine.agent.types import AgentResult, Citation, NarrativeSection
from ragspine.demo.corpora import Corpus
from ragspine.demo.corpus_truth import FactTruth
from ragspine.eval.cases import parse_case
from ragspine.eval.oracle import Oracle, TruthTable
from ragspine.eval.runner import run_golden_eval
from ragspine.eval.scoring import score_case
from ragspine.profile.loader import load_profile
from ragspine.retrieval.protocol import Snippet
from tests.agent.helpers import CountingStore, ScriptedProvider, text
from tests.agent.test_narrative import ListRetriever

REF = date(2026, 11, 26)
PASSAGE = "Hong Kong revenue in FY2025 was US$9,999m. Agency sales drove it."
CASE = parse_case(
    '{"id": "why-hk", "question": "Why did Hong Kong revenue grow in FY2025?", '
    '"reference_date": "2026-11-26", "expect": {"mode": "none", "refuse": false}}'
)


def _truth(fy2025: float) -> Oracle:
    """An oracle whose truth holds ACME_HK revenue as the test store does, FY2025 aside."""
    facts = [
        FactTruth("REVENUE", "ACME_HK", "TOTAL", "FY", year, value, "USD_M", "d", "l", "INTERNAL")
        for year, value in (("2024", 2210.5), ("2025", fy2025))
    ]
    table = TruthTable.of(facts)
    return Oracle(load_profile(), "TOTAL", {Corpus.DEMO: table, Corpus.TRUST: table})


def _poisoned(store: CountingStore) -> AgentResult:
    """The answer as if the guard had let the contradicting sentence through."""
    snippet = Snippet("c1", "hk_memo.md", "section=1,para=1", PASSAGE)
    result = answer_question(
        CASE.question,
        store,
        ScriptedProvider([text("Agency sales drove it [1].")]),
        reference_date=REF,
        narrative_retriever=ListRetriever([snippet]),
    )
    section = result.narrative
    assert section is not None and section.citations
    body = f"Hong Kong revenue in FY2025 was US$9,999m [1]. {section.body}"
    poisoned = NarrativeSection(
        section.text.replace(section.body, body),
        tuple(Citation(c.number, c.source, c.passage) for c in section.citations),
        kind=section.kind,
        body=body,
    )
    return replace(
        result, answer=result.answer.replace(section.text, poisoned.text), narrative=poisoned
    )


def test_a_contradicting_amount_counts_though_its_passage_states_it(tmp_path: Path) -> None:
    result = _poisoned(CountingStore(tmp_path / "facts.db"))
    assert "9,999" in result.answer and "2,480" in result.answer
    # Grounded in its passage, so only the truth shows the number is wrong; the amount only:
    # the period the sentence names is not a stated value.
    assert score_case(CASE, result, oracle=_truth(2480)).fabricated == ("9,999 (narrative)",)
    # Where the truth agrees with the passage, the sentence is not counted; the structured
    # value the truth does not hold is.
    agreeing = score_case(CASE, result, oracle=_truth(9999)).fabricated
    assert "9,999 (narrative)" not in agreeing and "2,480 (structured)" in agreeing


def test_a_contradiction_is_judged_against_the_truth_the_caller_may_see(tmp_path: Path) -> None:
    result = _poisoned(CountingStore(tmp_path / "facts.db"))
    facts = [
        FactTruth("REVENUE", "ACME_HK", "TOTAL", "FY", "2025", 2480, "USD_M", "d", "l", level)
        for level in ("RESTRICTED",)
    ]
    table = TruthTable.of(facts)
    hidden = Oracle(load_profile(), "TOTAL", {Corpus.DEMO: table})
    # The caller cannot see the key's truth, so the sentence contradicts nothing it may see
    # (and the structured value it was shown is not the caller's to see either).
    assert "9,999 (narrative)" not in score_case(CASE, result, oracle=hidden).fabricated


def test_the_runner_judges_against_the_demo_truth(tmp_path: Path) -> None:
    """Without an oracle of its own the run uses the demo corpus's truth (3105 for ACME_HK
    FY2025 revenue), so the test store's 2480 and the memo's 9,999 both count."""
    store = CountingStore(tmp_path / "facts.db")
    report = run_golden_eval(lambda case: _poisoned(store), [CASE])
    assert report.overall.fabrication == 1
    (score,) = report.scores
    assert "9,999 (narrative)" in score.fabricated and "2,480 (structured)" in score.fabricated
