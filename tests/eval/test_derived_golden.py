"""The golden cases of derived metrics, dev and held-out, expect what the ground truth gives,
recomputed here: each percentage a case expects is its numerator's truth value over its
denominator's (by the profile's ``[[derived]]`` rule) at two decimals, at the case's clearance,
for every unit and period the case lists an operand of; a case expecting no percentage lists an
operand of a key whose other operand the truth does not hold for that clearance; a ranking's
places are in the truth order; a ratio the docs say is never combined (averaged, added) expects
a refusal and no figure.

Nothing here asks the engine. A held-out case's id never reaches a failure message: a check
over the held-out split asserts on a count, as ``test_golden.py`` does."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from ragspine.eval.cases import GoldenCase, Split, load_golden
from ragspine.eval.oracle import demo_truth
from ragspine.profile.sensitivity import Sensitivity
from tests.profiles import acme

_PERCENT = re.compile(r"(\d+\.\d+)%")
# A ranking's place line ("1. Hong Kong: 33.96%"); other lines (a unit "not ranked") say why.
_PLACE = re.compile(r"^(\d+)\. ")


def derived_cases(split: Split = Split.DEV) -> list[GoldenCase]:
    return [c for c in load_golden(split=split) if "derived" in c.tags]


def shown(split: Split, wrong: list[str]) -> list[str] | int:
    """What a failure may show: the case ids of an open split, only their number for a held-out
    one (so a passing check compares to ``[]`` or ``0``)."""
    return len(wrong) if split.held_out else wrong


def truth_ratios(case: GoldenCase) -> tuple[set[str], set[tuple[str, str, str]]]:
    """The ratios the truth gives each key the case lists an operand of (as answers print
    them), and the keys one of whose operands the truth lacks at the case's clearance."""
    table = demo_truth()
    profile = acme()
    ratios: set[str] = set()
    missing: set[tuple[str, str, str]] = set()
    for rule in profile.derived:
        operands = (rule.numerator, rule.denominator)
        keys = {
            (v.entity, v.period_label, v.channel)
            for v in case.expect.values
            if v.metric in operands
        }
        for entity, period, channel in keys:
            tops = table.values((rule.numerator, entity, period, channel), case.clearance)
            bottoms = table.values((rule.denominator, entity, period, channel), case.clearance)
            if not tops or not bottoms:
                missing.add((entity, period, channel))
            ratios |= {f"{t / b * 100:.2f}" for t in tops for b in bottoms if b}
    return ratios, missing


def wrong_ratios(cases: list[GoldenCase]) -> list[str]:
    """Ids of the cases whose expected percentages are not the truth ratios of their keys, or
    whose missing operand the truth in fact holds."""
    wrong: list[str] = []
    for case in cases:
        expected = {n for text in case.expect.derived for n in _PERCENT.findall(text)}
        ratios, missing = truth_ratios(case)
        if expected:
            if expected != ratios or missing:
                wrong.append(case.id)
        elif case.expect.values and (ratios or not missing):
            wrong.append(case.id)
    return wrong


def misranked(cases: list[GoldenCase]) -> list[str]:
    """Ids of the ranking cases whose places are not numbered 1..N or not highest first."""
    wrong: list[str] = []
    for case in (c for c in cases if "rank" in c.tags):
        places = [text for text in case.expect.derived if _PLACE.match(text)]
        shown_ratios = [float(_PERCENT.findall(text)[0]) for text in places]
        positions = [int(text.split(".")[0]) for text in places]
        if (
            not places
            or shown_ratios != sorted(shown_ratios, reverse=True)
            or positions != list(range(1, len(places) + 1))
        ):
            wrong.append(case.id)
    return wrong


def figures_for_a_combined_ratio(cases: list[GoldenCase]) -> list[str]:
    """Ids of the ``unsupported`` cases (a total or average of a ratio) that do not expect a
    refusal, or expect a figure."""
    return [
        c.id
        for c in cases
        if "unsupported" in c.tags
        and (c.expect.refuse is not True or c.expect.values or c.expect.derived)
    ]


SPLITS = [pytest.param(Split.DEV, id="dev"), pytest.param(Split.HELDOUT, id="heldout")]


@pytest.mark.parametrize("split", SPLITS)
def test_there_are_derived_cases_in_both_languages_and_of_every_kind(split: Split) -> None:
    tags = {t for c in derived_cases(split) for t in c.tags}
    assert {"zh", "en", "rank", "not_found", "unsupported"} <= tags
    if split.held_out:  # written with kind tags throughout, and probed below full clearance
        assert {"heldout", "found", "restricted"} <= tags


@pytest.mark.parametrize("split", SPLITS)
def test_every_expected_ratio_is_the_truth_ratio_of_the_case_keys(split: Split) -> None:
    wrong = shown(split, wrong_ratios(derived_cases(split)))
    assert wrong in ([], 0)


@pytest.mark.parametrize("split", SPLITS)
def test_a_ranking_case_lists_the_units_in_the_truth_order(split: Split) -> None:
    wrong = shown(split, misranked(derived_cases(split)))
    assert wrong in ([], 0)


@pytest.mark.parametrize("split", SPLITS)
def test_a_combined_ratio_expects_a_refusal_and_no_figure(split: Split) -> None:
    wrong = shown(split, figures_for_a_combined_ratio(derived_cases(split)))
    assert wrong in ([], 0)


def test_the_checks_catch_a_wrong_ratio_a_held_operand_and_a_misordered_ranking() -> None:
    """The checks above can fail: a slipped digit, a "missing" operand the truth holds, a
    swapped place, and a ratio hidden by clearance that a case claims."""
    base = derived_cases(Split.DEV)
    by_id = {c.id: c for c in base}
    found, missing, ranking = by_id["derived-001"], by_id["derived-005"], by_id["derived-007"]
    assert wrong_ratios([found, missing, ranking]) == []
    slipped = _with(found, derived=("33.69%",))
    # derived-001's keys with no percentage: the truth holds both operands, so nothing is missing.
    held = _with(found, derived=("no figure was found for Revenue",))
    swapped = _with(ranking, derived=(ranking.expect.derived[1], ranking.expect.derived[0]))
    assert wrong_ratios([slipped, held]) == ["derived-001", "derived-001"]
    assert misranked([swapped]) == ["derived-007"]
    # Hong Kong FY2024 revenue is INTERNAL: a PUBLIC caller has no ratio for that key.
    public = replace(found, clearance=Sensitivity.PUBLIC)
    assert truth_ratios(public) == (set(), {("ACME_HK", "FY2024", "TOTAL")})
    assert wrong_ratios([public]) == ["derived-001"]


def _with(case: GoldenCase, *, derived: tuple[str, ...]) -> GoldenCase:
    return replace(case, expect=replace(case.expect, derived=derived))
