"""Running golden cases through an asker: every case is asked, known issues are reported apart,
the splits stay apart, and the asker's default channel reaches the fabrication check."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ragspine.agent.messages import zh
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.errors import UsageError
from ragspine.eval.baseline import baseline_of, check_baseline
from ragspine.eval.cases import Expectation, GoldenCase, Split, load_golden
from ragspine.eval.report import EvalRun, GateScore
from ragspine.eval.runner import run_golden_eval, run_splits
from ragspine.eval.scoring import GATE_REFUSAL
from tests.eval.answers import DOC, FY2024, LOC, asking, found, result


def _refusal(answer: str) -> AgentResult:
    return result(answer, kind=AnswerKind.NOT_FOUND)


def test_known_issues_are_run_and_reported_apart(tmp_path: Path) -> None:
    """A known issue that fails is asked and reported but not gated; one that fabricates still
    counts and still fails."""
    wrong = "refuses a fact the store holds"
    lying = "states a number in a refusal"
    cases = [
        GoldenCase("ok", "FY2019收入", expect=Expectation(refuse=True)),
        GoldenCase("wrong", "FY2024收入", expect=Expectation(refuse=False), known_issue=wrong),
        GoldenCase("lying", "FY2018收入", expect=Expectation(refuse=True), known_issue=lying),
    ]
    answers = {
        "ok": _refusal("未找到该数据。"),
        "wrong": _refusal("未找到该数据。"),
        "lying": _refusal("未找到该数据，约 999。"),
    }
    asked: list[str] = []

    def ask(case: GoldenCase) -> AgentResult:
        asked.append(case.id)
        return answers[case.id]

    report = run_golden_eval(ask, cases)
    assert asked == ["ok", "wrong", "lying"]
    assert [(s.case.id, s.passed) for s in report.known_issues] == [
        ("wrong", False),
        ("lying", False),
    ]
    assert report.scored_cases == 1
    assert report.overall.gates[GATE_REFUSAL] == GateScore(passed=1, applicable=1)
    assert report.overall.fabrication == 1
    assert [s.case.id for s in report.failures] == ["lying"]
    listed = json.loads(report.to_json())["known_issues"]
    assert [(c["id"], c["known_issue"]) for c in listed] == [("wrong", wrong), ("lying", lying)]

    # The same answers without the marks: the wrong refusal now fails the gate, and marking
    # a case shows as a regression against the unmarked run's baseline.
    unmarked = run_golden_eval(ask, [replace(c, known_issue="") for c in cases])
    assert unmarked.overall.gates[GATE_REFUSAL] == GateScore(passed=2, applicable=3)
    assert [s.case.id for s in unmarked.failures] == ["wrong", "lying"]
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"dev": baseline_of(unmarked)}), encoding="utf-8")
    assert check_baseline(EvalRun({"dev": report}), baseline) == [
        "dev: cases gated: 1 is below the baseline 3 (cases removed or marked known_issue)"
    ]


def test_no_cases_or_a_bad_k_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no golden cases"):
        run_golden_eval(lambda case: _refusal("…"), [])
    with pytest.raises(UsageError, match="k must be at least 1"):
        run_golden_eval(lambda case: _refusal("…"), [GoldenCase("a", "q")], k=0)


class ChannelAsker:
    """An asker that knows its workspace's default channel, as ``WorkspaceAsker`` does."""

    default_channel = "AGENCY"

    def __call__(self, case: GoldenCase) -> AgentResult:
        # The ground truth's ACME_HK FY2024 NBV through the agency channel.
        agency = found(812.0, metric="NBV", channel="AGENCY")
        return result(
            zh.found("ACME_HK FY2024 NBV", "812 百万美元", DOC, LOC),
            tool_results=[agency],
            intent=asking(FY2024, metrics=("NBV",)),
        )


def test_the_askers_default_channel_decides_what_was_asked() -> None:
    cases = [GoldenCase("a", "香港FY2024新业务价值")]
    assert run_golden_eval(ChannelAsker(), cases).overall.fabrication == 0
    told = run_golden_eval(ChannelAsker(), cases, default_channel="TOTAL")
    assert told.overall.fabrication == 1


def test_run_splits_scores_each_shipped_split_apart() -> None:
    asked: list[str] = []

    def ask(case: GoldenCase) -> AgentResult:
        asked.append(case.id)
        return _refusal("…")

    run = run_splits(ask, [Split.REGRESSION], k=3)
    assert list(run.reports) == ["regression"]
    assert asked == [c.id for c in load_golden(split=Split.REGRESSION)]
    assert run.reports["regression"].k == 3
