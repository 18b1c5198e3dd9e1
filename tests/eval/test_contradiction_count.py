"""The golden eval counts a narrative amount that contradicts a stored fact as fabricated.

The guard drops such sentences, so the answer is built by hand here (as a guard regression
would leave it): grounded in its cited passage, yet at odds with the fact table.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from ragspine.agent.agent import answer_question
from ragspine.agent.consistency import FactCheck
from ragspine.agent.types import AgentResult, Citation, NarrativeSection
from ragspine.eval.cases import parse_case
from ragspine.eval.runner import run_golden_eval
from ragspine.eval.scoring import score_case
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from ragspine.retrieval.protocol import Snippet
from tests.agent.helpers import CountingStore, ScriptedProvider, text
from tests.agent.test_narrative import ListRetriever

REF = date(2026, 11, 26)  # ACME_HK FY2025 REVENUE is 2480 USD_M in the standard facts
PASSAGE = "Hong Kong revenue in FY2025 was US$9,999m. Agency sales drove it."
CASE = parse_case(
    '{"id": "why-hk", "question": "Why did Hong Kong revenue grow in FY2025?", '
    '"reference_date": "2026-11-26", "expect": {"mode": "none", "refuse": false}}'
)


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


def test_a_contradicting_amount_counts_only_with_the_fact_table(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "facts.db")
    result = _poisoned(store)
    assert "9,999" in result.answer
    check = FactCheck(store, load_profile(), REF, DEFAULT_CLEARANCE)
    # Grounded in its passage, so only the fact table shows the number is wrong.
    assert score_case(CASE, result).fabricated == ()
    # The amount only: the period the sentence names is not a stated value.
    assert score_case(CASE, result, facts=check).fabricated == ("9,999 (narrative)",)


def test_the_runner_takes_the_fact_table_from_the_asker(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "facts.db")

    class Asker:
        def __call__(self, case: object) -> AgentResult:
            return _poisoned(store)

        def fact_check(self, case: object) -> FactCheck:
            return FactCheck(store, load_profile(), REF, DEFAULT_CLEARANCE)

    report = run_golden_eval(Asker(), [CASE])
    assert report.overall.fabrication == 1
