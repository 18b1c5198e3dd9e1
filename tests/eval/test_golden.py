"""The shipped golden set, all three splits: each loads and is large enough to mean something,
every expected value is a ground-truth fact, and the full run on a fresh demo workspace with the
mock provider fabricates nothing and leaks nothing in dev and regression. The dev split passes
all four gates at 1.0; the regression and held-out splits are held to their committed baselines
(honest failures included).

A held-out case's id, question or answer never reaches a failure message: a check over the
held-out split asserts on a count (``shown``), assigned to a plain name first, because pytest
prints the arguments of a call inside an ``assert``. Splits are disjoint and no dev case copies
a held-out one: ``test_cases.py``."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from ragspine.demo import kestrel
from ragspine.demo.corpora import Corpus
from ragspine.demo.corpus import GroundTruth, load_ground_truth
from ragspine.demo.tour import CORPUS_DIR, build_demo_workspace
from ragspine.eval.baseline import check_baseline
from ragspine.eval.cases import GoldenCase, Split, load_golden
from ragspine.eval.report import EvalRun, GoldenReport
from ragspine.eval.runner import ask_with, run_splits
from ragspine.eval.scoring import GATES
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
    # Asked over the trust corpus (``demo.corpora``), or the demo's pending restatement.
    "poisoned_memo",
    "duplicate_files",
    "conflicting_narrative",
    "pending_restatement",
    "irrelevant_passage",
)
LANGUAGES = ("zh", "en", "mixed")
SPLITS = [pytest.param(split, id=split.value) for split in Split]


def shown(split: Split, found: list[str]) -> list[str] | int:
    """What a failure may show: the items of an open split, only their number for a held-out
    one (so a passing check compares to ``[]`` or ``0``)."""
    return len(found) if split.held_out else found


@pytest.fixture(scope="module")
def splits() -> dict[Split, list[GoldenCase]]:
    return {split: load_golden(split=split) for split in Split}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden") / "ws"
    build_demo_workspace(root)
    return root


@pytest.fixture(scope="module")
def truth(workspace: Path) -> GroundTruth:
    return load_ground_truth(workspace / CORPUS_DIR)


@pytest.fixture(scope="module")
def run(workspace: Path) -> EvalRun:
    with ask_with(workspace) as ask:
        return run_splits(ask)


def test_a_follow_up_case_is_asked_with_its_conversation(
    workspace: Path, splits: dict[Split, list[GoldenCase]]
) -> None:
    """The dev follow-ups ("And in FY2023?") take slots from their earlier questions, and
    state their expected figure only when those reach the engine: asked alone, none names a
    figure at all. One expecting a refusal ("And the median value?") is judged by the gates."""
    cases = [c for c in splits[Split.DEV] if c.previous]
    assert {"en", "zh"} <= {t for c in cases for t in c.tags}
    assert any(c.expect.refuse for c in cases) and not all(c.expect.refuse for c in cases)
    with ask_with(workspace) as ask:
        for case in cases:
            assert ask(case).trace["inherited_slots"], case.id
            if case.expect.refuse:
                continue
            wanted = [f"{v.value:,.0f}" for v in case.expect.values]
            assert wanted, case.id
            assert all(w in ask(case).answer for w in wanted), case.id
            alone = ask(replace(case, previous=())).answer
            assert not any(w in alone for w in wanted), case.id


def report_of(run: EvalRun, split: Split) -> GoldenReport:
    return run.reports[split.value]


# --------------------------------------------------------------------------- the splits


def test_the_dev_split_is_large_enough(splits: dict[Split, list[GoldenCase]]) -> None:
    assert len(splits[Split.DEV]) >= 220


def test_the_regression_split_is_large_enough(splits: dict[Split, list[GoldenCase]]) -> None:
    assert len(splits[Split.REGRESSION]) >= 100


def test_the_heldout_split_is_large_enough(splits: dict[Split, list[GoldenCase]]) -> None:
    """Large enough that one case moves a gate by well under a percent."""
    cases = len(splits[Split.HELDOUT])
    assert cases >= 200


def test_every_dev_category_is_covered_in_every_phrasing(
    splits: dict[Split, list[GoldenCase]],
) -> None:
    cases = splits[Split.DEV]
    counts = Counter(tag for c in cases for tag in c.tags)
    assert {tag: counts[tag] for tag in CATEGORIES if counts[tag] < 3} == {}
    assert all(counts[lang] >= 30 for lang in LANGUAGES), {lang: counts[lang] for lang in LANGUAGES}
    mixed_categories = {t for c in cases if "mixed" in c.tags for t in c.tags}
    assert {"found", "comparison", "narrative", "unknown_entity"} <= mixed_categories


@pytest.mark.parametrize("split", [Split.REGRESSION, Split.HELDOUT], ids=lambda s: s.value)
def test_the_other_splits_cover_every_category(
    splits: dict[Split, list[GoldenCase]], split: Split
) -> None:
    tags = {tag for c in splits[split] for tag in c.tags}
    assert [c for c in CATEGORIES if c not in tags] == []
    assert [lang for lang in LANGUAGES if lang not in tags] == []


@pytest.mark.parametrize("split", SPLITS)
def test_each_case_names_exactly_one_language(
    splits: dict[Split, list[GoldenCase]], split: Split
) -> None:
    wrong = shown(split, [c.id for c in splits[split] if sum(t in LANGUAGES for t in c.tags) != 1])
    assert wrong in ([], 0)


@pytest.mark.parametrize("split", SPLITS)
def test_restricted_material_is_probed_with_and_without_clearance(
    splits: dict[Split, list[GoldenCase]], split: Split
) -> None:
    restricted = [c for c in splits[split] if "restricted" in c.tags]
    clearances = sorted(c.clearance.value for c in restricted)
    assert sorted(set(clearances)) == sorted(s.value for s in Sensitivity)
    uncleared = [c for c in restricted if c.clearance is not Sensitivity.RESTRICTED]
    unprobed = shown(
        split, [c.id for c in uncleared if not (c.expect.forbidden or c.expect.values)]
    )
    assert unprobed in ([], 0)


@pytest.mark.parametrize("split", SPLITS)
def test_known_issues_are_rare_and_described(
    splits: dict[Split, list[GoldenCase]], split: Split
) -> None:
    cases = splits[split]
    known, allowed = sum(1 for c in cases if c.known_issue), len(cases) // 20
    assert known <= allowed
    undescribed = shown(split, [c.id for c in cases if c.known_issue and len(c.known_issue) <= 20])
    assert undescribed in ([], 0)


@pytest.mark.parametrize("split", SPLITS)
def test_every_expected_value_is_a_ground_truth_fact(
    splits: dict[Split, list[GoldenCase]], split: Split, truth: GroundTruth
) -> None:
    """Value, unit, document and locator of every expectation, against the truth of the case's
    corpus, visible at the case's clearance: the demo generator's (the restated 2,880 is a
    review item, never a fact), or Kestrel Mutual's hand-written table for the one-entity
    corpus."""
    facts = {Corpus.DEMO: _demo_facts(truth), Corpus.ONE_ENTITY: _kestrel_facts()}
    facts[Corpus.TRUST] = facts[Corpus.DEMO]
    wrong = []
    for case in splits[split]:
        for v in case.expect.values:
            key = (v.metric, v.entity, v.period_label, v.channel, v.doc, v.locator)
            fact = facts[case.corpus].get(key)
            if fact is None or fact[:2] != (v.value, v.unit) or not case.clearance.allows(fact[2]):
                wrong.append(f"{case.id}: {v.key} = {v.value} {v.unit} @ {v.doc} · {v.locator}")
    mismatched = shown(split, wrong)
    assert mismatched in ([], 0)


# metric, entity, period label, channel, document, locator -> value, unit, level
Facts = dict[tuple[str, str, str, str, str, str], tuple[float, str, Sensitivity]]


def _demo_facts(truth: GroundTruth) -> Facts:
    return {
        (f.metric_code, f.entity, _label(f.period_type, f.period), f.channel, f.doc, f.locator): (
            f.value,
            f.unit,
            Sensitivity.parse(f.sensitivity),
        )
        for f in truth.facts
    }


def _kestrel_facts() -> Facts:
    level = Sensitivity.parse(kestrel.SENSITIVITY)
    return {
        (f.metric, f.entity, f.period, f.channel, f.doc, f.locator): (f.value, f.unit, level)
        for f in kestrel.EXPECTED_FACTS
    }


def _label(period_type: str, period: str) -> str:
    return f"FY{period}" if period_type == "FY" else f"{period}{period_type}"


def test_the_one_entity_cases_probe_every_rule_in_both_languages(
    splits: dict[Split, list[GoldenCase]],
) -> None:
    """The dev cases over the one-entity corpus cover each entity rule of issue 27 and the
    longest row label, in Chinese and English; none asks which entity except about a unit the
    profile lacks, and each of those forbids the company's figure."""
    cases = [c for c in splits[Split.DEV] if c.corpus is Corpus.ONE_ENTITY]
    rules = ("date", "acronym", "table_words", "unknown_unit", "longest_label", "assumption")
    tags = Counter(t for c in cases for t in c.tags)
    assert {rule: tags[rule] for rule in rules if tags[rule] == 0} == {}
    assert {rule for c in cases if "zh" in c.tags for rule in c.tags} >= {
        "date",
        "acronym",
        "unknown_unit",
        "longest_label",
    }
    asked_entity = [c for c in cases if c.expect.reason == "unknown_entity"]
    assert {c.id for c in asked_entity} == {c.id for c in cases if "unknown_unit" in c.tags}
    assert all(c.expect.forbidden for c in asked_entity)
    assumed = [c.expect.assumed for c in cases if c.expect.assumed is not None]
    assert assumed and all("entity" not in a for a in assumed)


# --------------------------------------------------------------------------- the full run


def test_the_run_reports_every_split_apart(
    run: EvalRun, splits: dict[Split, list[GoldenCase]]
) -> None:
    assert list(run.reports) == ["dev", "regression", "heldout"]
    assert run.held_out == {"heldout"}
    for split in Split:
        same = [s.case.id for s in report_of(run, split).scores] == [c.id for c in splits[split]]
        assert same, f"{split.value}: the report's cases are not the split's, in order"


def test_the_dev_split_passes_all_four_gates_at_one(run: EvalRun) -> None:
    report = report_of(run, Split.DEV)
    failing = {s.case.id: list(s.failures) for s in report.failures}
    assert failing == {}
    assert {name: report.overall.gates[name].score for name in GATES} == dict.fromkeys(GATES, 1.0)
    assert all(report.overall.gates[name].applicable >= 100 for name in GATES)


@pytest.mark.parametrize("split", [Split.DEV, Split.REGRESSION], ids=lambda s: s.value)
def test_no_fabrication_and_no_restricted_leak(run: EvalRun, split: Split) -> None:
    """The held-out split's counts are held to its baseline, which records them as measured."""
    report = report_of(run, split)
    fabricated = {s.case.id: s.fabricated for s in report.scores if s.fabricated}
    leaked = {s.case.id: s.forbidden_hits for s in report.scores if s.forbidden_hits}
    assert fabricated == {}
    assert leaked == {}
    assert (report.overall.fabrication, report.overall.forbidden) == (0, 0)


@pytest.mark.parametrize("split", SPLITS)
def test_each_split_meets_the_committed_baseline(run: EvalRun, split: Split) -> None:
    """Messages name an open split's cases; a held-out split's say how many, never which."""
    assert check_baseline(EvalRun({split.value: report_of(run, split)})) == []


def test_dev_narrative_cases_report_recall_and_mrr(run: EvalRun) -> None:
    report = report_of(run, Split.DEV)
    assert report.overall.narrative_cases >= 30
    assert report.overall.recall is not None and report.overall.recall > 0.8
    assert "narrative" in report.by_tag and report.by_tag["narrative"].recall is not None
