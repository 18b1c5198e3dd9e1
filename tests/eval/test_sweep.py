"""The sweep (``eval.sweep``): a slice of its generated grid, asked of a fresh demo workspace with
the mock provider, fabricates nothing, leaks nothing and answers no question with another key's
figure; the judge counts each of the three when an answer does it; the grid covers every key of
the ground truth. ``scripts/sweep.py`` runs the whole grid (docs/eval.md, "The sweep")."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from ragspine.agent.types import AgentResult, Source
from ragspine.demo.tour import build_demo_workspace
from ragspine.eval.oracle import Oracle, demo_truth
from ragspine.eval.sweep import (
    PROPERTIES,
    SweepJudge,
    SweepOutcome,
    WorkspaceSweepAsker,
    run_sweep,
    sample,
    sweep_questions,
    totals,
)
from ragspine.eval.sweep_grid import SweepQuestion
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity

PROFILE = load_profile()
TRUTH = demo_truth()
JUDGE = SweepJudge(Oracle(PROFILE, PROFILE.defaults.channel), TRUTH)
# Written from the corpus specification (five-year workbook, FY2025 review deck, board minutes).
HK_REVENUE_2025 = ("REVENUE", "ACME_HK", "FY2025", "TOTAL")
CN_REVENUE_2025 = 1436.0
BOARD_MINUTES = "memos/board_minutes_2025.docx"  # RESTRICTED
GROUP_NBV_2025 = "2,165"  # RESTRICTED: the board minutes only
PER_TEMPLATE = 12


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sweep") / "ws"
    build_demo_workspace(root)
    return root


@pytest.fixture(scope="module")
def questions() -> list[SweepQuestion]:
    return sweep_questions(PROFILE, TRUTH)


@pytest.fixture(scope="module")
def outcomes(workspace: Path, questions: list[SweepQuestion]) -> list[SweepOutcome]:
    with WorkspaceSweepAsker(workspace) as ask:
        return run_sweep(ask, sample(questions, PER_TEMPLATE), JUDGE)


def test_the_grid_is_large_and_covers_every_key_of_the_truth(
    questions: list[SweepQuestion],
) -> None:
    assert len(questions) > 20_000
    asked = {key for q in questions if q.template == "plain" for key in q.keys}
    assert set(TRUTH.facts) <= asked
    assert {q.lang for q in questions} == {"en", "zh", "mixed"}
    assert {q.clearance for q in questions} == set(Sensitivity)


def test_a_slice_of_the_sweep_fabricates_nothing_and_leaks_nothing(
    outcomes: list[SweepOutcome], questions: list[SweepQuestion]
) -> None:
    templates = Counter(q.template for q in questions)
    asked = Counter(o.question.template for o in outcomes)
    assert set(asked) == set(templates)
    assert 250 <= len(outcomes) <= PER_TEMPLATE * len(templates)
    # Enough of the slice states values for the checks to bite.
    assert sum(1 for o in outcomes if o.kind in ("found", "partial")) > 40
    failing = {p: [o.question.question for o in outcomes if o.failed(p)] for p in PROPERTIES}
    assert failing == {p: [] for p in PROPERTIES}
    assert totals(outcomes) == {"questions": len(outcomes), **dict.fromkeys(PROPERTIES, 0)}


def plain(question: str, clearance: Sensitivity = Sensitivity.CONFIDENTIAL) -> SweepQuestion:
    return SweepQuestion("plain", "en", question, frozenset({HK_REVENUE_2025}), clearance)


def answer(workspace: Path, q: SweepQuestion) -> AgentResult:
    with WorkspaceSweepAsker(workspace) as ask:
        return ask(q)


def test_the_judge_counts_another_keys_figure(workspace: Path) -> None:
    q = plain("What was Hong Kong revenue in FY2025?")
    result = answer(workspace, q)
    assert JUDGE.judge(q, result).failed("other_key") == ()
    # Mainland China's figure served for the question about Hong Kong, cited and labelled.
    swapped = replace(result, answer=result.answer.replace("3,105", f"{CN_REVENUE_2025:,.0f}"))
    judged = JUDGE.judge(q, swapped)
    assert judged.other_key == ("1,436 (structured)",)
    assert judged.fabrication == ("1,436 (structured)",)


def test_the_judge_counts_a_source_and_a_figure_above_the_callers_clearance(
    workspace: Path,
) -> None:
    q = plain("What was Hong Kong revenue in FY2025?", Sensitivity.INTERNAL)
    result = answer(workspace, q)
    assert JUDGE.judge(q, result).leaks == ()
    minutes = Source(BOARD_MINUTES, "para=3")
    leaked = replace(
        result,
        answer=f"{result.answer}\nGroup NBV: US$ {GROUP_NBV_2025} m ({BOARD_MINUTES} · para=3)",
        sources=[*result.sources, minutes],
    )
    assert JUDGE.judge(q, leaked).leaks == (f"source {BOARD_MINUTES}", f"value {GROUP_NBV_2025}")
    cleared = replace(q, clearance=Sensitivity.RESTRICTED)
    assert JUDGE.judge(cleared, leaked).leaks == ()
