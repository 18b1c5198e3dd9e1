"""Each gate, the fabrication and forbidden counters, narrative recall, the report and the
baseline, on hand-made answers (no engine involved)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import AgentResult
from ragspine.agent.clarify import ClarificationResult
from ragspine.agent.intent import ParsedIntent
from ragspine.errors import UsageError
from ragspine.eval.gates import (
    GATE_CITATION,
    GATE_CLARIFICATION,
    GATE_NUMERIC,
    GATE_REFUSAL,
    GATES,
    CaseScore,
    GoldenReport,
    baseline_of,
    build_report,
    check_baseline,
    citation_validity,
    clarification_appropriateness,
    fabricated_digits,
    forbidden_hits,
    narrative_retrieval,
    numeric_accuracy,
    ratchet_baseline,
    refusal_appropriateness,
    render_report,
    score_case,
)
from ragspine.eval.golden import ClarifyMode, Expectation, ExpectedValue, GoldenCase
from ragspine.profile.periods import Period

DOC = "decks/ACME_FY2024_Review.pptx"
LOC = "slide=3,table=1,row=REVENUE,col=FY2024"
HK_2024 = ExpectedValue("REVENUE", "ACME_HK", "FY2024", "TOTAL", 2850.0, "USD_M", DOC, LOC)


def found(value: float = 2850.0, unit: str = "USD_M", period: str = "2024") -> dict[str, object]:
    return {
        "status": "found",
        "value": value,
        "unit": unit,
        "metric_code": "REVENUE",
        "entity": "ACME_HK",
        "period_type": "FY",
        "period": period,
        "period_label": f"FY{period}",
        "channel": "TOTAL",
        "source": {"doc": DOC, "locator": LOC},
    }


def not_found(label: str) -> dict[str, object]:
    return {
        "status": "not_found",
        "normalized": {
            "metric_code": "REVENUE",
            "entity": "ACME_HK",
            "period_type": "FY",
            "period": label.removeprefix("FY"),
            "period_label": label,
            "channel": "TOTAL",
        },
    }


def result(
    answer: str,
    *,
    kind: str = "found",
    mode: str = "none",
    tool_results: Sequence[dict[str, object]] = (),
    sources: Sequence[dict[str, str]] = (),
    periods: Sequence[str] = (),
    trace: dict[str, object] | None = None,
    **clarification: Any,
) -> AgentResult:
    intent = ParsedIntent(
        raw_question="q",
        route="structured",
        periods=tuple(Period(int(p[2:]), "FY") for p in periods),
    )
    return AgentResult(
        answer=answer,
        route="structured",
        clarification=ClarificationResult(mode=mode, **clarification),
        tool_results=list(tool_results),
        sources=list(sources),
        answer_kind=kind,
        intent=intent,
        trace=trace or {},
    )


def case(**expect: Any) -> GoldenCase:
    return GoldenCase(id="c1", question="q", tags=("found", "zh"), expect=Expectation(**expect))


FOUND_LINE = f"ACME_HK FY2024 REVENUE：2850 USD_M（来源：{DOC} · {LOC}）"
SOURCE = {"doc": DOC, "locator": LOC}


# --------------------------------------------------------------------------- numeric accuracy


def test_numeric_passes_when_the_fact_is_found_and_stated_with_its_unit() -> None:
    answer = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, []) is True


def test_numeric_accepts_thousands_separators_in_the_answer() -> None:
    answer = result("香港：2,850 USD_M", tool_results=[found()])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, []) is True


@pytest.mark.parametrize(
    ("text", "tool_result"),
    [
        ("香港：2880 USD_M", found(2880.0)),  # the restated, unapproved figure
        ("香港：2850 CNY_M", found(unit="CNY_M")),  # wrong unit
        ("香港：2850", found()),  # the value without its unit
        ("香港：2850 USD_M", found(period="2023")),  # the fact of another period
        ("香港：2850 USD_M", not_found("FY2024")),
    ],
)
def test_numeric_fails_on_a_wrong_or_unstated_value(
    text: str, tool_result: dict[str, object]
) -> None:
    failures: list[str] = []
    answer = result(text, tool_results=[tool_result])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, failures) is False
    assert failures


def test_numeric_requires_every_derived_string() -> None:
    answer = result(f"{FOUND_LINE}\n变化：+160 USD_M（+5.9%）", tool_results=[found()])
    assert numeric_accuracy(case(values=(HK_2024,), derived=("+160 USD_M", "+5.9%")), answer, [])
    assert not numeric_accuracy(case(derived=("+255 USD_M",)), answer, [])


def test_numeric_does_not_apply_without_values() -> None:
    assert numeric_accuracy(case(refuse=True), result("查不到", kind="not_found"), []) is None


# --------------------------------------------------------------------------- citation validity


def test_citation_needs_the_source_listed_and_named_in_the_answer() -> None:
    good = result(FOUND_LINE, sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), good, []) is True


def test_citation_fails_when_the_source_is_only_in_the_text() -> None:
    failures: list[str] = []
    assert citation_validity(case(values=(HK_2024,)), result(FOUND_LINE), failures) is False
    assert "not in sources" in failures[0]


def test_citation_fails_when_the_source_is_only_listed() -> None:
    answer = result("香港：2850 USD_M", sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_citation_wants_document_and_locator_on_one_line() -> None:
    answer = result(f"香港：2850 USD_M（来源：{DOC}）\n{LOC}", sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_citation_fails_on_any_unnamed_source() -> None:
    extra = {"doc": "memos/x.md", "locator": "section=1,para=1"}
    answer = result(FOUND_LINE, sources=[SOURCE, extra])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_a_narrative_case_must_cite_something() -> None:
    narrative = case(narrative_docs=("memos/HK_Regulatory_Memo.docx",))
    assert citation_validity(narrative, result("未检索到", kind="no_context"), []) is False
    cited = result(
        "RBC 已实施。[1]\n来源：\n[1] memos/x.md · section=2,para=1",
        kind="narrative",
        sources=[{"doc": "memos/x.md", "locator": "section=2,para=1"}],
    )
    assert citation_validity(narrative, cited, []) is True


# --------------------------------------------------------------------------- refusal


@pytest.mark.parametrize(
    ("refuse", "kind", "ok"),
    [
        (True, "not_found", True),
        (True, "refused", True),
        (True, "clarify", True),
        (True, "no_context", True),
        (True, "found", False),
        (True, "partial", False),
        (True, "degraded", False),
        (False, "found", True),
        (False, "partial", True),
        (False, "narrative", True),
        (False, "not_found", False),
        (False, "clarify", False),
    ],
)
def test_refusal_is_judged_in_both_directions(refuse: bool, kind: str, ok: bool) -> None:
    assert refusal_appropriateness(case(refuse=refuse), result("…", kind=kind), []) is ok


def test_refusal_does_not_apply_when_unset() -> None:
    assert refusal_appropriateness(case(), result("…"), []) is None


# --------------------------------------------------------------------------- clarification


def test_clarification_compares_mode_and_reason() -> None:
    wanted = case(mode=ClarifyMode.ASK_FIRST, reason="missing_metric", refuse=True)
    asked = result("请问…", kind="clarify", mode="ask_first", reason="missing_metric")
    assert clarification_appropriateness(wanted, asked, []) is True
    wrong_reason = result("请问…", kind="clarify", mode="ask_first", reason="unknown_entity")
    assert clarification_appropriateness(wanted, wrong_reason, []) is False
    assert clarification_appropriateness(wanted, result("…"), []) is False


def test_an_assumption_must_be_the_expected_one_and_surfaced() -> None:
    note = "【假设】未指定期间，按最近完整财年 FY2025 回答（如需收窄：FY2024 / 2026H1）"
    wanted = case(mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS, assumed={"period": "FY2025"})
    shown = result(
        f"{note}\n…",
        mode="answer_with_assumptions",
        assumed_slots={"period": "FY2025"},
        assumption_note=note,
    )
    assert clarification_appropriateness(wanted, shown, []) is True
    hidden = replace(shown, answer="…")
    assert clarification_appropriateness(wanted, hidden, []) is False
    other = replace(shown, clarification=replace(shown.clarification, assumed_slots={}))
    assert clarification_appropriateness(wanted, other, []) is False


# --------------------------------------------------------------------------- fabrication

NOT_FOUND_2019 = (
    "查不到：REVENUE / ACME_CN / FY2019（渠道 TOTAL）未在事实表中找到。\n"
    "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"
)


def test_the_asked_periods_digits_are_not_fabrication() -> None:
    answer = result(NOT_FOUND_2019, kind="not_found", periods=["FY2019"])
    assert fabricated_digits(answer) == []


def test_a_refusal_with_a_stray_number_counts() -> None:
    answer = result(NOT_FOUND_2019 + " 估计约 1702。", kind="not_found", periods=["FY2019"])
    assert fabricated_digits(answer) == ["1702"]


def test_a_period_nobody_asked_for_counts() -> None:
    answer = result(NOT_FOUND_2019 + " FY2023 为 1205。", kind="not_found", periods=["FY2019"])
    assert fabricated_digits(answer) == ["2023", "1205"]


def test_digits_in_codes_locators_and_sources_do_not_count() -> None:
    text = "查不到：REVENUE_2 / ACME_HK2 / FY2019。参见 sheet=HK,cell=C4 (book_2024.xlsx)"
    answer = result(
        text,
        kind="not_found",
        periods=["FY2019"],
        sources=[{"doc": "book_2024.xlsx", "locator": "sheet=HK,cell=C4"}],
    )
    assert fabricated_digits(answer) == []


def test_the_growth_base_and_the_narrowing_options_are_allowed() -> None:
    note = "【假设】未指定期间，按最近完整财年 FY2025 回答（如需收窄：FY2024 / 2026H1）"
    answer = result(
        f"{note}\n查不到：FY2025 与 FY2024",
        kind="not_found",
        mode="answer_with_assumptions",
        tool_results=[not_found("FY2025"), not_found("FY2024")],
        assumed_slots={"period": "FY2025"},
        assumption_note=note,
        narrowing_options=("FY2024", "2026H1"),
    )
    assert fabricated_digits(answer) == []


def test_the_attribution_section_of_a_composite_answer_is_left_to_the_narrative_guard() -> None:
    text = f"{NOT_FOUND_2019}\n\n归因分析：\n代理人数量增至14,020人。[1]"
    assert fabricated_digits(result(text, kind="not_found", periods=["FY2019"])) == []


def test_answers_that_state_values_are_not_checked_for_fabrication() -> None:
    assert fabricated_digits(result(FOUND_LINE, kind="found")) == []
    assert fabricated_digits(result("部分：2850 USD_M", kind="partial")) == []


# --------------------------------------------------------------------------- forbidden strings


def test_forbidden_strings_are_found_in_answer_and_tool_results() -> None:
    secret = case(forbidden=("北极星", "board_minutes"))
    assert forbidden_hits(secret, result("项目代号“北极星”")) == ["北极星"]
    leaked = result("查不到", tool_results=[{"source": {"doc": "memos/Board_Minutes.docx"}}])
    assert forbidden_hits(secret, leaked) == ["board_minutes"]
    assert forbidden_hits(secret, result("查不到")) == []


# --------------------------------------------------------------------------- narrative recall


def test_narrative_recall_uses_the_retrievers_order_per_document() -> None:
    wanted = case(narrative_docs=("memos/a.md", "memos/b.md"))
    traced = result(
        "…",
        kind="narrative",
        trace={"chunk_ids": ["decks/x.pptx#3", "memos/b.md#2", "memos/b.md#4", "memos/c.md#1"]},
    )
    assert narrative_retrieval(wanted, traced, k=5) == (0.5, 0.5)
    assert narrative_retrieval(wanted, traced, k=1) == (0.0, 0.0)


def test_narrative_recall_falls_back_to_the_sources() -> None:
    wanted = case(narrative_docs=("memos/a.md",))
    cited = result("…", kind="narrative", sources=[{"doc": "memos/a.md", "locator": "p=1"}])
    assert narrative_retrieval(wanted, cited, k=5) == (1.0, 1.0)
    assert narrative_retrieval(case(), cited, k=5) == (None, None)


# --------------------------------------------------------------------------- the report


def scored(cid: str, answer: AgentResult, *, known: str = "", **expect: Any) -> CaseScore:
    golden = GoldenCase(
        id=cid, question="q", tags=("found", "zh"), expect=Expectation(**expect), known_issue=known
    )
    return score_case(golden, answer)


def perfect_report() -> GoldenReport:
    good = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE])
    return build_report(
        [
            scored("a", good, values=(HK_2024,), refuse=False, mode=ClarifyMode.NONE),
            scored("b", result(NOT_FOUND_2019, kind="not_found", periods=["FY2019"]), refuse=True),
        ]
    )


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
    assert json.loads(report.to_json())["overall"]["fabrication"] == 0
    assert render_report(report).renderables


def test_a_known_issue_is_not_gated_but_still_counts_fabrication() -> None:
    lying = result(NOT_FOUND_2019 + " 约 999。", kind="not_found", periods=["FY2019"])
    report = build_report([scored("k", lying, known="engine bug", refuse=False)])
    assert report.overall.gates[GATE_REFUSAL].applicable == 0
    assert report.overall.fabrication == 1
    assert report.scored_cases == 0
    assert [s.case.id for s in report.known_issues] == ["k"]
    assert [s.case.id for s in report.failures] == ["k"]


# --------------------------------------------------------------------------- the baseline


def write(path: Path, baseline: dict[str, Any]) -> Path:
    path.write_text(json.dumps(baseline), encoding="utf-8")
    return path


def test_the_runs_own_baseline_passes(tmp_path: Path) -> None:
    report = perfect_report()
    assert check_baseline(report, write(tmp_path / "b.json", baseline_of(report))) == []


def test_each_kind_of_regression_is_reported(tmp_path: Path) -> None:
    report = perfect_report()
    stricter = baseline_of(report)
    stricter["min_scored_cases"] = 3
    stricter["narrative"]["k"] = 10
    weaker = build_report(
        [
            *report.scores,
            scored("c", result("2850 USD_M", kind="found"), refuse=True),
            scored("d", result(NOT_FOUND_2019 + " 约 7。", kind="not_found"), refuse=True),
        ]
    )
    problems = check_baseline(weaker, write(tmp_path / "b.json", stricter))
    assert [p.split(":")[0] for p in problems] == [
        GATE_REFUSAL,
        "narrative recall measured at k=5, the baseline is at k=10",
        "fabrication",
    ]
    fewer = check_baseline(build_report(report.scores[:1]), write(tmp_path / "c.json", stricter))
    assert any(p.startswith("cases gated: 1 is below the baseline 3") for p in fewer)


def test_the_ratchet_only_tightens(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    good = perfect_report()
    ratchet_baseline(good, path)
    worse = build_report(
        [*good.scores, scored("c", result("2850 USD_M", kind="found"), refuse=True)]
    )
    kept = ratchet_baseline(worse, path)
    assert kept["gates"][GATE_REFUSAL] == 1.0
    assert kept["min_scored_cases"] == 3
    assert check_baseline(worse, path) != []


def test_lowering_needs_allow_lower(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(perfect_report(), path)
    worse = build_report(
        [*perfect_report().scores, scored("c", result("2850 USD_M", kind="found"), refuse=True)]
    )
    lowered = ratchet_baseline(worse, path, allow_lower=True)
    assert lowered["gates"][GATE_REFUSAL] == pytest.approx(0.6666)
    assert check_baseline(worse, path) == []
    assert json.loads(path.read_text(encoding="utf-8")) == lowered


def test_scores_are_floored_so_a_baseline_never_exceeds_its_run(tmp_path: Path) -> None:
    two_of_three = build_report(
        [
            scored(str(i), result("…", kind=kind), refuse=True)
            for i, kind in enumerate(["not_found", "not_found", "found"])
        ]
    )
    base = baseline_of(two_of_three)
    assert base["gates"][GATE_REFUSAL] == 0.6666
    assert set(base["gates"]) == set(GATES)
    assert check_baseline(two_of_three, write(tmp_path / "b.json", base)) == []


def test_the_ratchet_refuses_to_change_k_silently(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(perfect_report(), path)
    other_k = replace(perfect_report(), k=10)
    with pytest.raises(UsageError, match="allow_lower"):
        ratchet_baseline(other_k, path)


def test_a_malformed_baseline_names_its_file(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.json", {"gates": {}})
    with pytest.raises(UsageError, match=r"broken\.json"):
        check_baseline(perfect_report(), path)


def test_reference_date_and_clearance_defaults() -> None:
    default = GoldenCase(id="x", question="q")
    assert default.reference_date == date(2026, 11, 26)
    assert default.clearance.value == "CONFIDENTIAL"
