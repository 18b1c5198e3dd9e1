"""Summaries, reports and a run over several splits, built from hand-made case scores."""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console

from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, Source
from ragspine.eval.report import (
    EvalRun,
    GateScore,
    GoldenReport,
    build_report,
    render_report,
    render_run,
    summarize,
)
from ragspine.eval.scoring import (
    GATE_CITATION,
    GATE_CLARIFICATION,
    GATE_NUMERIC,
    GATE_REFUSAL,
    CaseScore,
    score_case,
)
from tests.eval.answers import (
    FOUND_LINE,
    FY2019,
    FY2024,
    HK_2024,
    NOT_FOUND_2019,
    SOURCE,
    case,
    found,
    result,
)


def scored(cid: str, answer: AgentResult, *, known: str = "", **expect: Any) -> CaseScore:
    return score_case(case(cid, known_issue=known, **expect), answer)


def good_found(cid: str = "a") -> CaseScore:
    answer = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    return scored(cid, answer, values=(HK_2024,), refuse=False, mode=ClarifyMode.NONE)


def good_refusal(cid: str = "b") -> CaseScore:
    answer = result(NOT_FOUND_2019, kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    return scored(cid, answer, refuse=True)


def wrong_refusal(cid: str = "c", known: str = "") -> CaseScore:
    """A refusal was expected; the answer gave a value."""
    answer = result("2850 USD_M", tool_results=[found()], periods=[FY2024])
    return scored(cid, answer, known=known, refuse=True)


def perfect_report() -> GoldenReport:
    return build_report([good_found(), good_refusal()])


def rendered(run: EvalRun) -> str:
    console = Console(file=io.StringIO(), width=250, record=True, highlight=False)
    console.print(render_run(run))
    return console.export_text()


def test_gates_are_passed_over_applicable_and_tags_are_broken_down() -> None:
    report = perfect_report()
    assert {n: (g.passed, g.applicable) for n, g in report.overall.gates.items()} == {
        GATE_NUMERIC: (1, 1),
        GATE_CITATION: (1, 1),
        GATE_REFUSAL: (2, 2),
        GATE_CLARIFICATION: (1, 1),
    }
    assert list(report.by_tag) == ["found", "zh"]
    assert report.by_tag["zh"].gates[GATE_REFUSAL].applicable == 2
    assert report.scored_cases == 2 and report.failures == ()
    assert json.loads(report.to_json())["overall"]["fabrication"] == 0
    assert render_report(report).renderables


def test_a_gate_nothing_applied_to_scores_one() -> None:
    assert GateScore(passed=0, applicable=0).score == 1.0
    assert GateScore(passed=2, applicable=3).to_dict() == {
        "passed": 2,
        "applicable": 3,
        "score": 0.6667,
    }
    summary = summarize([good_refusal()])
    assert summary.gates[GATE_NUMERIC] == GateScore(0, 0)
    assert summary.recall is None and summary.mrr is None and summary.narrative_cases == 0


def test_narrative_recall_and_mrr_are_means_over_narrative_cases() -> None:
    def narrative(cid: str, docs: list[str]) -> CaseScore:
        answer = result("…", kind=AnswerKind.NARRATIVE, sources=[Source(d, "p=1") for d in docs])
        return scored(cid, answer, narrative_docs=("memos/a.md",))

    summary = summarize(
        [narrative("hit", ["memos/a.md"]), narrative("second", ["memos/x.md", "memos/a.md"])]
    )
    assert summary.narrative_cases == 2
    assert summary.recall == 1.0 and summary.mrr == 0.75
    missed = summarize([narrative("miss", ["memos/x.md"]), good_found()])
    assert missed.narrative_cases == 1 and missed.recall == 0.0 and missed.mrr == 0.0


def test_a_known_issue_is_not_gated_but_still_counts_fabrication() -> None:
    lying = result(NOT_FOUND_2019 + " 约 999。", kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    report = build_report([scored("k", lying, known="engine bug", refuse=False)])
    assert report.overall.gates[GATE_REFUSAL].applicable == 0
    assert report.overall.fabrication == 1
    assert report.scored_cases == 0
    assert [s.case.id for s in report.known_issues] == ["k"]
    assert [s.case.id for s in report.failures] == ["k"]


def test_a_known_issue_that_only_fails_a_gate_is_listed_but_not_a_failure() -> None:
    report = build_report([good_found(), wrong_refusal("k", known="answers a missing fact")])
    assert report.failures == ()
    assert [(s.case.id, s.passed) for s in report.known_issues] == [("k", False)]
    assert report.overall.gates[GATE_REFUSAL] == GateScore(passed=1, applicable=1)
    assert (
        json.loads(report.to_json())["known_issues"][0]["known_issue"] == "answers a missing fact"
    )


def test_a_case_that_fails_shows_its_answer_and_reasons() -> None:
    report = build_report([good_found(), wrong_refusal()])
    (failing,) = json.loads(report.to_json())["failures"]
    assert failing["id"] == "c" and failing["passed"] is False
    assert failing["answer"] == "2850 USD_M"
    assert failing["failures"] == ["expected a refusal, got answer kind found"]
    assert failing["gates"][GATE_REFUSAL] is False and failing["gates"][GATE_NUMERIC] is None
    cases = json.loads(report.to_json())["cases"]
    assert [c["id"] for c in cases] == ["a", "c"]
    assert "answer" not in cases[0]


def test_a_run_keeps_each_splits_report_apart() -> None:
    run = EvalRun({"dev": perfect_report(), "regression": build_report([wrong_refusal()])})
    as_dict = json.loads(run.to_json())
    assert list(as_dict) == ["dev", "regression"]
    assert as_dict["dev"]["overall"]["gates"][GATE_REFUSAL]["score"] == 1.0
    assert as_dict["regression"]["overall"]["gates"][GATE_REFUSAL]["score"] == 0.0
    assert [s.case.id for s in run.failures] == ["c"]


def test_the_table_shows_the_splits_side_by_side() -> None:
    run = EvalRun({"dev": perfect_report(), "regression": build_report([wrong_refusal()])})
    text = rendered(run)
    header = next(line for line in text.splitlines() if "dev passed" in line)
    assert header.index("dev score") < header.index("regression passed")
    refusal_row = next(line for line in text.splitlines() if "refusal appropriateness" in line)
    cells = [cell.strip() for cell in refusal_row.split("│")[2:-1]]
    assert cells == ["2/2", "1.000", "0/1", "0.000"]
    assert "dev: 2 cases, 2 gated, 0 known · regression: 1 cases, 1 gated, 0 known" in text
    assert "By tag (dev)" in text and "By tag (regression)" in text
    assert "Failing cases (regression)" in text and "Failing cases (dev)" not in text


def test_every_gate_and_counter_has_a_row() -> None:
    text = rendered(EvalRun({"dev": perfect_report()}))
    labels = [
        "numeric accuracy",
        "citation validity",
        "refusal appropriateness",
        "clarification appropriateness",
        "fabrication (answers with an untraceable number)",
        "restricted leaks / forbidden strings shown",
        "narrative recall@5",
    ]
    assert [label for label in labels if label not in text] == []


# --------------------------------------------------------------------------- a held-out split


def held_out_run() -> EvalRun:
    """A held-out split with a failing case, a known issue and a narrative case."""
    other = Source("memos/x.md", "p=1")
    miss = result("…", kind=AnswerKind.NARRATIVE, sources=[other])
    held = build_report(
        [
            good_found("h-secret-pass"),
            wrong_refusal("h-secret-fail"),
            wrong_refusal("h-secret-known", known="answers a missing fact, described here"),
            scored("h-secret-narr", miss, narrative_docs=("memos/a.md",)),
        ]
    )
    return EvalRun({"dev": perfect_report(), "heldout": held})


def test_a_heldout_split_is_shown_as_aggregates_only() -> None:
    run = held_out_run()
    assert run.held_out == {"heldout"}
    text = rendered(run)
    assert "secret" not in text and "answers a missing fact" not in text
    assert "By tag (heldout)" not in text and "Failing cases (heldout)" not in text
    assert "heldout: 4 cases, 3 gated, 1 known, 2 failing (cases not shown)" in text
    refusal_row = next(line for line in text.splitlines() if "refusal appropriateness" in line)
    assert [cell.strip() for cell in refusal_row.split("│")[2:-1]] == [
        "2/2",
        "1.000",
        "1/2",
        "0.500",
    ]
    assert "By tag (dev)" in text


def test_the_heldout_json_holds_counts_and_scores_only() -> None:
    as_dict = json.loads(held_out_run().to_json())
    heldout = as_dict["heldout"]
    assert "secret" not in json.dumps(heldout)
    assert heldout == {
        "k": 5,
        "scored_cases": 3,
        "known_issue_cases": 1,
        "failing_cases": 2,
        "overall": held_out_run().reports["heldout"].overall.to_dict(),
        "case_detail": "hidden",
    }
    assert heldout["overall"]["narrative_cases"] == 1 and heldout["overall"]["recall_at_k"] == 0.0
    assert [c["id"] for c in as_dict["dev"]["cases"]] == ["a", "b"]


def test_case_detail_is_shown_only_when_asked() -> None:
    run = held_out_run()
    revealed = json.loads(run.to_json(reveal_held_out=True))["heldout"]
    assert [c["id"] for c in revealed["failures"]] == ["h-secret-fail", "h-secret-narr"]
    console = Console(file=io.StringIO(), width=250, record=True, highlight=False)
    console.print(render_run(run, reveal_held_out=True))
    text = console.export_text()
    assert "Failing cases (heldout)" in text and "h-secret-fail" in text
    assert "(cases not shown)" not in text
    assert EvalRun(run.reports, held_out=frozenset()).to_dict()["heldout"] == revealed
