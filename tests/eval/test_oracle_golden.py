"""The golden eval's fabrication count sees a wrong number: on a fresh demo workspace the
engine's dev answers state only ground-truth numbers, and an engine made to serve the previous
fiscal year's fact under the asked year's label — or a checker that accepted sums — is caught.

These are the targeted tests of the mutants ``last-year-value``, ``unit-scale`` (both change
what the engine states, so the unmodified run below stops fabricating nothing) and
``checker-accepts-sums`` (scripts/mutants.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.types import AgentResult
from ragspine.demo.corpora import Corpus
from ragspine.demo.tour import build_demo_workspace
from ragspine.eval.cases import GoldenCase, Split, load_golden
from ragspine.eval.runner import ask_with, run_golden_eval
from ragspine.facade import RAGSpine
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.facts import DEFAULT_CHANNEL


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("oracle") / "ws"
    build_demo_workspace(root)
    return root


@pytest.fixture(scope="module")
def dev() -> list[GoldenCase]:
    return [c for c in load_golden(split=Split.DEV) if c.corpus is Corpus.DEMO]


@pytest.fixture(scope="module")
def engine_answers(workspace: Path, dev: list[GoldenCase]) -> dict[str, AgentResult]:
    with ask_with(workspace) as ask:
        return {case.id: ask(case) for case in dev}


def test_the_engines_dev_answers_state_only_ground_truth_numbers(
    engine_answers: dict[str, AgentResult], dev: list[GoldenCase]
) -> None:
    report = run_golden_eval(lambda case: engine_answers[case.id], dev)
    fabricated = {s.case.id: s.fabricated for s in report.scores if s.fabricated}
    assert fabricated == {}


class LastYearStore:
    """The workspace store, except that a lookup returns the previous fiscal year's fact."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get_fact(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity,
    ) -> Any:
        earlier = str(int(period) - 1)
        return self.inner.get_fact(
            metric_code, entity, period_type, earlier, channel, clearance=clearance
        )


@pytest.fixture
def last_year_asker(workspace: Path) -> Iterator[Any]:
    opened: dict[Sensitivity, RAGSpine] = {}

    def ask(case: GoldenCase) -> AgentResult:
        rag = opened.get(case.clearance)
        if rag is None:
            rag = opened[case.clearance] = RAGSpine.open(workspace, clearance=case.clearance)
        return answer_question(
            case.question,
            LastYearStore(rag.store),
            rag.provider,
            reference_date=case.reference_date,
            narrative_retriever=rag.retriever,
            profile=rag.profile,
            clearance=case.clearance,
        )

    yield ask
    for rag in opened.values():
        rag.close()


def test_last_years_value_under_this_years_label_is_counted(
    last_year_asker: Any, dev: list[GoldenCase]
) -> None:
    """The audit's demonstration: numeric accuracy falls, and so must the fabrication count —
    also on the cases that expect no value, where fabrication is the only check on numbers."""
    report = run_golden_eval(last_year_asker, dev)
    stated = [s for s in report.scores if s.answer_kind == "found"]
    assert stated and all(s.fabricated for s in stated if s.case.expect.values)
    # A question about a year the corpus does not hold, answered with the year before's value.
    unvalued = {s.case.id for s in stated if s.fabricated and not s.case.expect.values}
    assert {"rel-021", "nf-004"} <= unvalued


def test_a_total_added_to_a_comparison_is_counted(
    engine_answers: dict[str, AgentResult], dev: list[GoldenCase]
) -> None:
    """Each comparison answer with a line stating the sum of its two expected values (figures
    the case itself writes): a sum is no rule an answer names, so every one counts."""
    compared = [c for c in dev if "comparison" in c.tags and len(c.expect.values) == 2]
    assert compared

    def with_total(case: GoldenCase) -> AgentResult:
        answer = engine_answers[case.id]
        first, second = case.expect.values
        total = f"{first.value + second.value:g}"
        text = f"{answer.answer}\n合计：{total} {first.unit}"
        return replace(answer, answer=text)

    report = run_golden_eval(with_total, compared)
    assert report.overall.fabrication == len(compared)
