"""The dev golden cases of derived metrics expect what the ground truth gives, recomputed here:
each percentage a case expects is its numerator's truth value over its denominator's (by the
profile's ``[[derived]]`` rule) at two decimals, for every unit and period the case lists, and a
case expecting no percentage asks for a key whose denominator the truth does not hold."""

from __future__ import annotations

import re

from ragspine.eval.cases import GoldenCase, Split, load_golden
from ragspine.eval.oracle import demo_truth
from tests.profiles import acme

_PERCENT = re.compile(r"(\d+\.\d+)%")


def derived_cases() -> list[GoldenCase]:
    return [c for c in load_golden(split=Split.DEV) if "derived" in c.tags]


def truth_ratios(case: GoldenCase) -> tuple[set[str], set[tuple[str, str, str]]]:
    """The ratios the truth gives each key the case lists a numerator for (as answers print
    them), and the keys whose denominator the truth lacks."""
    table = demo_truth()
    profile = acme()
    ratios: set[str] = set()
    missing: set[tuple[str, str, str]] = set()
    for rule in profile.derived:
        for v in case.expect.values:
            if v.metric != rule.numerator:
                continue
            tops = table.values(
                (rule.numerator, v.entity, v.period_label, v.channel), case.clearance
            )
            bottoms = table.values(
                (rule.denominator, v.entity, v.period_label, v.channel), case.clearance
            )
            if not bottoms:
                missing.add((v.entity, v.period_label, v.channel))
            ratios |= {f"{t / b * 100:.2f}" for t in tops for b in bottoms if b}
    return ratios, missing


def test_there_are_derived_cases_in_both_languages_and_of_every_kind() -> None:
    cases = derived_cases()
    assert {"zh", "en"} <= {t for c in cases for t in c.tags}
    assert {"rank", "not_found", "unsupported"} <= {t for c in cases for t in c.tags}


def test_every_expected_ratio_is_the_truth_ratio_of_the_case_keys() -> None:
    for case in derived_cases():
        expected = {n for text in case.expect.derived for n in _PERCENT.findall(text)}
        ratios, missing = truth_ratios(case)
        if expected:
            assert expected == ratios, case.id
            assert not missing, case.id
        elif case.expect.values:  # a missing operand: the truth has no denominator for it
            assert missing and not ratios, case.id


def test_a_ranking_case_lists_the_units_in_the_truth_order() -> None:
    for case in (c for c in derived_cases() if "rank" in c.tags):
        shown = [float(_PERCENT.findall(text)[0]) for text in case.expect.derived]
        positions = [int(text.split(".")[0]) for text in case.expect.derived]
        assert shown == sorted(shown, reverse=True), case.id
        assert positions == list(range(1, len(shown) + 1)), case.id
