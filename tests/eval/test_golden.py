"""The shipped golden set: it loads, covers every category in three phrasings, states only
ground-truth facts, and the full run on a fresh demo workspace with the mock provider passes
all four gates at 1.0 with no fabrication, no leak and no regression against the baseline."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from ragspine.demo.corpus import GroundTruth, load_ground_truth
from ragspine.demo.tour import CORPUS_DIR, build_demo_workspace
from ragspine.errors import UsageError
from ragspine.eval.gates import GATES, GoldenReport, check_baseline
from ragspine.eval.golden import GoldenCase, ask_with, load_golden, run_golden_eval
from ragspine.profile.sensitivity import Sensitivity

CATEGORIES = (
    "found",
    "relative_period",
    "restated",
    "units",
    "channel",
    "comparison",
    "growth",
    "not_found",
    "unknown_entity",
    "competitor",
    "ask_first",
    "assumption",
    "narrative",
    "composite",
    "restricted",
    "adversarial",
    "number_in_question",
    "injection",
    "false_premise",
)
LANGUAGES = ("zh", "en", "mixed")


@pytest.fixture(scope="module")
def cases() -> list[GoldenCase]:
    return load_golden()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden") / "ws"
    build_demo_workspace(root)
    return root


@pytest.fixture(scope="module")
def truth(workspace: Path) -> GroundTruth:
    return load_ground_truth(workspace / CORPUS_DIR)


@pytest.fixture(scope="module")
def report(workspace: Path, cases: list[GoldenCase]) -> GoldenReport:
    with ask_with(workspace) as ask:
        return run_golden_eval(ask, cases)


# --------------------------------------------------------------------------- the set itself


def test_the_set_is_large_enough(cases: list[GoldenCase]) -> None:
    assert len(cases) >= 220


def test_every_category_is_covered_in_every_phrasing(cases: list[GoldenCase]) -> None:
    counts = Counter(tag for c in cases for tag in c.tags)
    assert {tag: counts[tag] for tag in CATEGORIES if counts[tag] < 3} == {}
    assert all(counts[lang] >= 30 for lang in LANGUAGES), {lang: counts[lang] for lang in LANGUAGES}
    mixed_categories = {t for c in cases if "mixed" in c.tags for t in c.tags}
    assert {"found", "comparison", "narrative", "unknown_entity"} <= mixed_categories


def test_each_case_names_exactly_one_language(cases: list[GoldenCase]) -> None:
    wrong = [c.id for c in cases if sum(tag in LANGUAGES for tag in c.tags) != 1]
    assert wrong == []


def test_restricted_material_is_probed_with_and_without_clearance(cases: list[GoldenCase]) -> None:
    levels = {c.clearance for c in cases if "restricted" in c.tags}
    assert levels == set(Sensitivity)
    uncleared = [
        c for c in cases if "restricted" in c.tags and c.clearance is not Sensitivity.RESTRICTED
    ]
    assert all(c.expect.forbidden or c.expect.values for c in uncleared)


def test_known_issues_are_rare_and_described(cases: list[GoldenCase]) -> None:
    known = [c for c in cases if c.known_issue]
    assert len(known) <= len(cases) // 20
    assert all(len(c.known_issue) > 20 for c in known)


def test_every_expected_value_is_a_ground_truth_fact(
    cases: list[GoldenCase], truth: GroundTruth
) -> None:
    """Value, unit, document and locator of every expectation, against the generator's truth,
    visible at the case's clearance (the restated 2,880 is a review item, never a fact)."""
    facts = {
        (f.metric_code, f.entity, _label(f.period_type, f.period), f.channel, f.doc, f.locator): f
        for f in truth.facts
    }
    wrong = []
    for case in cases:
        for v in case.expect.values:
            fact = facts.get((v.metric, v.entity, v.period_label, v.channel, v.doc, v.locator))
            if (
                fact is None
                or (fact.value, fact.unit) != (v.value, v.unit)
                or not case.clearance.allows(Sensitivity.parse(fact.sensitivity))
            ):
                wrong.append(f"{case.id}: {v.key} = {v.value} {v.unit} @ {v.doc} · {v.locator}")
    assert wrong == []


def _label(period_type: str, period: str) -> str:
    return f"FY{period}" if period_type == "FY" else f"{period}{period_type}"


# --------------------------------------------------------------------------- the full run


def test_all_four_gates_pass_at_one(report: GoldenReport) -> None:
    failing = {s.case.id: list(s.failures) for s in report.failures}
    assert failing == {}
    assert {name: report.overall.gates[name].score for name in GATES} == dict.fromkeys(GATES, 1.0)
    assert all(report.overall.gates[name].applicable >= 100 for name in GATES)


def test_no_fabrication_and_no_restricted_leak(report: GoldenReport) -> None:
    assert report.overall.fabrication == 0
    assert report.overall.forbidden == 0


def test_the_run_meets_the_committed_baseline(report: GoldenReport) -> None:
    assert check_baseline(report) == []


def test_known_issues_are_run_and_reported_apart(report: GoldenReport) -> None:
    # The shipped set has no open known issues; the mechanism itself is pinned in test_gates.
    known = report.known_issues
    assert all(s.case.known_issue for s in known)
    listed = json.loads(report.to_json())["known_issues"]
    assert [c["id"] for c in listed] == [s.case.id for s in known]


def test_narrative_cases_report_recall_and_mrr(report: GoldenReport) -> None:
    assert report.overall.narrative_cases >= 30
    assert report.overall.recall is not None and report.overall.recall > 0.8
    assert "narrative" in report.by_tag and report.by_tag["narrative"].recall is not None


# --------------------------------------------------------------------------- loading errors


def _write(tmp_path: Path, *lines: Mapping[str, object] | str) -> Path:
    path = tmp_path / "set.jsonl"
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


GOOD: dict[str, object] = {
    "id": "a",
    "question": "香港FY2025收入",
    "expect": {"mode": "none", "refuse": False},
}


def test_defaults_apply_to_a_minimal_case(tmp_path: Path) -> None:
    (case,) = load_golden(_write(tmp_path, {"id": "a", "question": "q"}))
    assert case.clearance is Sensitivity.CONFIDENTIAL
    assert case.reference_date.isoformat() == "2026-11-26"
    assert case.expect.mode is None and case.expect.refuse is None


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({**GOOD, "colour": "red"}, "unknown field"),
        ({**GOOD, "expect": {"mode": "maybe"}}, "valid options: none, ask_first"),
        ({**GOOD, "expect": {"mode": "ask_first", "refuse": False}}, "never answers"),
        ({**GOOD, "expect": {"refuse": True, "derived": ["+1"]}}, "cannot expect values"),
        ({**GOOD, "expect": {"values": [{"metric": "REVENUE"}]}}, "lacks"),
        ({**GOOD, "expect": {"reason": "competitor"}}, "needs 'expect.mode'"),
        ({**GOOD, "reference_date": "26/11/2026"}, "not a YYYY-MM-DD date"),
        ({**GOOD, "clearance": "SECRET"}, "valid options"),
        ("{not json", "not valid JSON"),
    ],
)
def test_errors_name_the_file_and_line(
    tmp_path: Path, bad: Mapping[str, object] | str, message: str
) -> None:
    path = _write(tmp_path, GOOD, bad)
    with pytest.raises(UsageError, match=rf"set\.jsonl:2: .*{message}"):
        load_golden(path)


def test_duplicate_ids_and_empty_sets_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"set\.jsonl:2: duplicate id 'a'"):
        load_golden(_write(tmp_path, GOOD, GOOD))
    with pytest.raises(UsageError, match="holds no records"):
        load_golden(_write(tmp_path, ""))
