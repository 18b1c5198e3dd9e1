"""The per-split baseline: what a run would set, regressions against it (scores, counts and each
case's pass/fail, by id or, held out, by count), and the ratchet."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, Source
from ragspine.errors import UsageError
from ragspine.eval.baseline import (
    baseline_of,
    check_baseline,
    default_baseline_path,
    load_baseline,
    ratchet_baseline,
)
from ragspine.eval.cases import Split, load_golden
from ragspine.eval.pins import case_digest
from ragspine.eval.report import EvalRun, GoldenReport, build_report
from ragspine.eval.scoring import GATE_REFUSAL, GATES, CaseScore, score_case
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


def scored(cid: str, answer: AgentResult, **expect: Any) -> CaseScore:
    return score_case(case(cid, **expect), answer)


def perfect_report() -> GoldenReport:
    good = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    refusal = result(NOT_FOUND_2019, kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    return build_report(
        [
            scored("a", good, values=(HK_2024,), refuse=False, mode=ClarifyMode.NONE),
            scored("b", refusal, refuse=True),
        ]
    )


def worse_report() -> GoldenReport:
    """The perfect report plus a case that answers where it should refuse: refusal 2/3."""
    wrong = result("2850 USD_M", tool_results=[found()], periods=[FY2024])
    return build_report([*perfect_report().scores, scored("c", wrong, refuse=True)])


def run_of(dev: GoldenReport, regression: GoldenReport | None = None) -> EvalRun:
    return EvalRun({"dev": dev, "regression": regression or dev})


def write(path: Path, baseline: dict[str, Any]) -> Path:
    path.write_text(json.dumps(baseline), encoding="utf-8")
    return path


def baseline_for(run: EvalRun) -> dict[str, dict[str, Any]]:
    return {
        split: baseline_of(report, held_out=split in run.held_out)
        for split, report in run.reports.items()
    }


def refusals(*outcomes: bool, known: str = "") -> GoldenReport:
    """Cases ``x0``, ``x1``, … expecting a refusal: refused where True, answered where False."""
    refused = result(NOT_FOUND_2019, kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    answered = result("2850 USD_M", tool_results=[found()], periods=[FY2024])
    return build_report(
        score_case(case(f"x{i}", known_issue=known, refuse=True), refused if ok else answered)
        for i, ok in enumerate(outcomes)
    )


# --------------------------------------------------------------------------- what a run sets


def test_a_runs_baseline_holds_its_own_scores_and_counts() -> None:
    assert baseline_of(perfect_report()) == {
        "gates": dict.fromkeys(GATES, 1.0),
        "narrative": {"k": 5, "recall_at_k": 1.0, "mrr": 1.0},
        "min_scored_cases": 2,
        "max_fabrication": 0,
        "max_forbidden": 0,
        "cases": {"failing": []},
    }


def test_scores_are_floored_so_a_baseline_never_exceeds_its_run(tmp_path: Path) -> None:
    two_of_three = build_report(
        [
            scored(str(i), result("…", kind=kind), refuse=True)
            for i, kind in enumerate([AnswerKind.NOT_FOUND, AnswerKind.NOT_FOUND, AnswerKind.FOUND])
        ]
    )
    base = baseline_of(two_of_three)
    assert base["gates"][GATE_REFUSAL] == 0.6666
    assert set(base["gates"]) == set(GATES)
    run = EvalRun({"dev": two_of_three})
    assert check_baseline(run, write(tmp_path / "b.json", {"dev": base})) == []


# --------------------------------------------------------------------------- regressions


def test_the_runs_own_baseline_passes(tmp_path: Path) -> None:
    run = run_of(perfect_report(), worse_report())
    assert check_baseline(run, write(tmp_path / "b.json", baseline_for(run))) == []


def test_each_kind_of_regression_is_reported_with_its_split(tmp_path: Path) -> None:
    stricter = baseline_of(perfect_report())
    stricter["min_scored_cases"] = 3
    stricter["narrative"]["k"] = 10
    lying = result(NOT_FOUND_2019 + " 约 7。", kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    weaker = build_report([*worse_report().scores, scored("d", lying, refuse=True)])
    path = write(tmp_path / "b.json", {"dev": stricter})
    problems = check_baseline(EvalRun({"dev": weaker}), path)
    assert problems == [
        "dev: refusal_appropriateness: 0.7500 is below the baseline 1.0000",
        "dev: narrative recall measured at k=5, the baseline is at k=10",
        "dev: fabrication: 1 is above the baseline 0",
        "dev: case c fails; the baseline pins it as passing",
        "dev: case d fails; the baseline pins it as passing",
    ]
    fewer = check_baseline(EvalRun({"dev": build_report(perfect_report().scores[:1])}), path)
    assert "dev: cases gated: 1 is below the baseline 3 (cases removed or marked known_issue)" in (
        fewer
    )


def test_a_narrative_regression_is_reported(tmp_path: Path) -> None:
    base = baseline_of(perfect_report())
    base["narrative"]["recall_at_k"] = 1.0
    other = Source("memos/x.md", "p=1")
    miss = result(f"见 {other.doc} · {other.locator}", kind=AnswerKind.NARRATIVE, sources=[other])
    report = build_report([*perfect_report().scores, scored("n", miss, narrative_docs=("m.md",))])
    problems = check_baseline(EvalRun({"dev": report}), write(tmp_path / "b.json", {"dev": base}))
    assert problems == [
        "dev: narrative recall_at_k: 0.0000 is below the baseline 1.0000",
        "dev: narrative mrr: 0.0000 is below the baseline 1.0000",
    ]


def test_each_split_is_judged_against_its_own_entry(tmp_path: Path) -> None:
    """The regression split may sit lower than dev; neither borrows the other's floor."""
    run = run_of(perfect_report(), worse_report())
    path = write(tmp_path / "b.json", baseline_for(run))
    assert check_baseline(run, path) == []
    swapped = run_of(worse_report(), perfect_report())
    assert check_baseline(swapped, path) == [
        "dev: refusal_appropriateness: 0.6666 is below the baseline 1.0000",
        "dev: case c fails; the baseline pins it as passing",
        "regression: cases gated: 2 is below the baseline 3 (cases removed or marked known_issue)",
    ]


def test_a_split_without_an_entry_is_a_regression_and_a_split_not_run_is_ignored(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "b.json", {"dev": baseline_of(perfect_report())})
    assert check_baseline(run_of(perfect_report()), path) == [
        "regression: the baseline has no entry for this split "
        "(pass --baseline FILE with your own, or --update-baseline to start one)"
    ]
    both = write(tmp_path / "both.json", baseline_for(run_of(perfect_report(), worse_report())))
    assert check_baseline(EvalRun({"dev": perfect_report()}), both) == []


# --------------------------------------------------------------------------- each case's pass/fail


def test_an_open_split_pins_the_shorter_list_of_ids() -> None:
    assert baseline_of(refusals(True, False, True))["cases"] == {"failing": ["x1"]}
    assert baseline_of(refusals(False, True, False))["cases"] == {"passing": ["x1"]}
    assert baseline_of(refusals(True, False, True, known="flaky"))["cases"] == {"failing": []}


def test_a_swap_keeps_every_ratio_and_is_a_regression_by_id(tmp_path: Path) -> None:
    """Pinned as a failing list and as a passing list."""
    for before, after in (
        (refusals(True, False), refusals(False, True)),
        (refusals(True, False, False), refusals(False, True, False)),
    ):
        assert before.overall.gates == after.overall.gates
        path = write(tmp_path / "b.json", {"dev": baseline_of(before)})
        assert check_baseline(EvalRun({"dev": after}), path) == [
            "dev: case x0 fails; the baseline pins it as passing"
        ]


def test_with_a_failing_list_a_new_case_must_pass(tmp_path: Path) -> None:
    path = write(tmp_path / "b.json", {"dev": baseline_of(refusals(True, False))})
    problems = check_baseline(EvalRun({"dev": refusals(True, False, False)}), path)
    assert "dev: case x2 fails; the baseline pins it as passing" in problems


def test_a_heldout_split_pins_digests_and_reports_a_count(tmp_path: Path) -> None:
    run = EvalRun({"heldout": refusals(True, False, True)})
    entry = baseline_for(run)["heldout"]
    salt = entry["cases"]["salt"]
    assert entry["cases"] == {
        "salt": salt,
        "passing_sha256": sorted(case_digest(salt, cid) for cid in ("x0", "x2")),
    }
    path = write(tmp_path / "b.json", {"heldout": entry})
    assert "x0" not in path.read_text(encoding="utf-8")
    swapped = EvalRun({"heldout": refusals(False, True, False)})
    problems = check_baseline(swapped, path)
    assert problems[-1] == "heldout: 2 held-out case(s) that passed now fail"
    assert not any("x0" in line or "x2" in line for line in problems)


def test_salts_differ_so_digests_cannot_be_matched_across_baselines() -> None:
    first, second = (baseline_of(refusals(True), held_out=True) for _ in range(2))
    assert first["cases"]["salt"] != second["cases"]["salt"]
    assert first["cases"]["passing_sha256"] != second["cases"]["passing_sha256"]


def test_pins_of_the_wrong_kind_are_a_usage_error(tmp_path: Path) -> None:
    readable = write(tmp_path / "ids.json", {"heldout": baseline_of(refusals(True))})
    with pytest.raises(UsageError, match="'heldout': a held-out split pins its cases as digests"):
        check_baseline(EvalRun({"heldout": refusals(True)}), readable)
    digests = write(tmp_path / "digests.json", {"dev": baseline_of(refusals(True), held_out=True)})
    with pytest.raises(UsageError, match="'dev': an open split pins its cases by id"):
        ratchet_baseline(EvalRun({"dev": refusals(True)}), digests)


def test_the_ratchet_keeps_every_pinned_case_and_adds_the_new_passes(tmp_path: Path) -> None:
    for split in ("dev", "heldout"):
        path = tmp_path / f"{split}.json"
        ratchet_baseline(EvalRun({split: refusals(True, False, False)}), path)
        salt = load_baseline(path)[split]["cases"].get("salt")
        swapped = EvalRun({split: refusals(False, True, False)})
        kept = ratchet_baseline(swapped, path)[split]["cases"]
        if salt is None:
            assert kept == {"failing": ["x2"]}
            assert check_baseline(swapped, path) == [
                "dev: case x0 fails; the baseline pins it as passing"
            ]
        else:
            assert kept == {
                "salt": salt,
                "passing_sha256": sorted(case_digest(salt, c) for c in ("x0", "x1")),
            }
            assert check_baseline(swapped, path) == [
                "heldout: 1 held-out case(s) that passed now fail"
            ]
        lowered = ratchet_baseline(swapped, path, allow_lower=True)[split]["cases"]
        assert lowered.get("salt") == salt
        assert check_baseline(swapped, path) == []


# --------------------------------------------------------------------------- the ratchet


def test_the_ratchet_only_tightens(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(EvalRun({"dev": perfect_report()}), path)
    worse = EvalRun({"dev": worse_report()})
    kept = ratchet_baseline(worse, path)
    assert kept["dev"]["gates"][GATE_REFUSAL] == 1.0
    assert kept["dev"]["min_scored_cases"] == 3
    assert check_baseline(worse, path) != []


def test_lowering_needs_allow_lower(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(EvalRun({"dev": perfect_report()}), path)
    worse = EvalRun({"dev": worse_report()})
    lowered = ratchet_baseline(worse, path, allow_lower=True)
    assert lowered["dev"]["gates"][GATE_REFUSAL] == pytest.approx(0.6666)
    assert check_baseline(worse, path) == []
    assert json.loads(path.read_text(encoding="utf-8")) == lowered


def test_the_ratchet_keeps_splits_the_run_did_not_cover(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(run_of(perfect_report(), worse_report()), path)
    after = ratchet_baseline(EvalRun({"dev": worse_report()}), path, allow_lower=True)
    assert list(after) == ["dev", "regression"]
    assert after["regression"] == baseline_of(worse_report())
    assert after["dev"]["gates"][GATE_REFUSAL] == 0.6666


def test_a_new_split_enters_the_baseline_at_its_own_scores(tmp_path: Path) -> None:
    path = write(tmp_path / "baseline.json", {"dev": baseline_of(perfect_report())})
    after = ratchet_baseline(run_of(perfect_report(), worse_report()), path)
    assert after["regression"]["gates"][GATE_REFUSAL] == 0.6666


def test_the_ratchet_refuses_to_change_k_silently(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ratchet_baseline(EvalRun({"dev": perfect_report()}), path)
    other_k = EvalRun({"dev": replace(perfect_report(), k=10)})
    with pytest.raises(UsageError, match="allow_lower"):
        ratchet_baseline(other_k, path)


# --------------------------------------------------------------------------- the file


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"gates": {}}, r"split 'gates': a baseline holds exactly cases, gates"),
        ({}, "a baseline maps each split name to its entry"),
        ([1], "a baseline maps each split name to its entry"),
        ({"dev": {**baseline_of(perfect_report()), "gates": {}}}, "'gates' must hold exactly"),
        ({"dev": {**baseline_of(perfect_report()), "cases": ["a"]}}, "'cases' holds exactly one"),
        (
            {"dev": {**baseline_of(perfect_report()), "cases": {"passing": "a"}}},
            "'cases' lists must hold non-empty strings",
        ),
        (
            {"dev": {**baseline_of(perfect_report()), "cases": {"salt": "", "passing_sha256": []}}},
            "'cases.salt' must be a non-empty string",
        ),
        (
            {"dev": {**baseline_of(perfect_report()), "max_fabrication": -1}},
            "non-negative integers",
        ),
        ("{not json", "not valid JSON"),
    ],
)
def test_a_malformed_baseline_names_its_file(tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / "broken.json"
    text = content if isinstance(content, str) else json.dumps(content)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=rf"broken\.json.*{message}"):
        check_baseline(run_of(perfect_report()), path)


def test_a_missing_baseline_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read baseline"):
        load_baseline(tmp_path / "absent.json")


def test_the_shipped_baseline_has_an_entry_per_split() -> None:
    shipped = load_baseline()
    assert default_baseline_path().name == "baseline.json"
    assert set(shipped) == {split.value for split in Split}
    # No split allows a fabricated number or a forbidden string. The held-out split's first
    # figures under the ground-truth oracle were 2 and 1 (docs/eval.md); both classes were
    # fixed, so a case of either kind is a regression again.
    for split in Split:
        assert shipped[split.value]["max_fabrication"] == 0, split
        assert shipped[split.value]["max_forbidden"] == 0, split
    assert shipped["dev"]["gates"] == dict.fromkeys(GATES, 1.0)
    assert shipped["dev"]["cases"] == {"failing": []}


def test_the_shipped_baseline_lists_no_heldout_id() -> None:
    text = default_baseline_path().read_text(encoding="utf-8")
    heldout_ids = [c.id for c in load_golden(split=Split.HELDOUT)]
    readable = sum(1 for cid in heldout_ids if f'"{cid}"' in text)
    assert readable == 0
    assert set(load_baseline()["heldout"]["cases"]) == {"salt", "passing_sha256"}
