"""Derived metrics in the profile (``[[derived]]``): read as metrics, refused when unsound."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.errors import ProfileError
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import MetricKind
from tests.profiles import acme, initech

RULE = 'numerator = "OPERATING_PROFIT"\ndenominator = "REVENUE"'


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    """The example profile with ``old`` replaced (its FAQ file left out: it is not copied)."""
    text = example_profile_path().read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, 1).replace('faq_file = "acme_faq.toml"', "")
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path: Path, old: str, new: str) -> str:
    with pytest.raises(ProfileError) as caught:
        load_profile(_variant(tmp_path, old, new))
    return str(caught.value)


def test_a_derived_metric_is_read_as_a_ratio_metric_by_its_names() -> None:
    profile = acme()
    rule = profile.derived_metric("OPERATING_MARGIN")
    assert rule is not None and (rule.numerator, rule.denominator) == (
        "OPERATING_PROFIT",
        "REVENUE",
    )
    metric = profile.metric("OPERATING_MARGIN")
    assert metric is not None and metric.kind is MetricKind.RATIO and metric.unit == "PCT"
    assert "OPERATING_MARGIN" not in {m.code for m in profile.metrics}
    assert [m.code for m in profile.all_metrics][-1] == "OPERATING_MARGIN"
    glossary = glossary_for(profile)
    for alias in ("operating margin", "经营利润率", "OP margin", "营运利润率"):
        assert glossary.normalize_metric(alias) == "OPERATING_MARGIN", alias
    assert glossary.normalize_metric("经营利润") == "OPERATING_PROFIT"  # the operand stays
    assert profile.derived_metric("REVENUE") is None


def test_a_profile_without_derived_metrics_has_only_its_metrics() -> None:
    profile = initech()
    assert profile.derived == ()
    assert profile.all_metrics == profile.metrics


def test_a_derived_code_that_is_a_metric_code_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, 'code = "OPERATING_MARGIN"', 'code = "REVENUE"')
    assert "key 'derived.0.code'" in message
    assert "'REVENUE' is already a metric code" in message


def test_an_unknown_operand_is_refused_naming_the_codes(tmp_path: Path) -> None:
    message = refused(tmp_path, 'denominator = "REVENUE"', 'denominator = "SALES_X"')
    assert "key 'derived.0.denominator'" in message
    assert "'SALES_X' is not one of the metric codes (REVENUE, OPERATING_PROFIT" in message


def test_a_derived_metric_cannot_be_its_own_operand(tmp_path: Path) -> None:
    message = refused(tmp_path, 'numerator = "OPERATING_PROFIT"', 'numerator = "OPERATING_MARGIN"')
    assert "key 'derived.0.numerator'" in message
    assert "OPERATING_MARGIN cannot be its own numerator" in message


def test_the_same_metric_above_and_below_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, 'denominator = "REVENUE"', 'denominator = "OPERATING_PROFIT"')
    assert "always be 100%" in message


def test_a_ratio_operand_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, 'numerator = "OPERATING_PROFIT"', 'numerator = "ROE"')
    assert "key 'derived.0.numerator'" in message
    assert "ROE is a ratio metric" in message


def test_operands_of_different_kinds_are_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, 'denominator = "REVENUE"', 'denominator = "AGENT_COUNT"')
    assert "OPERATING_PROFIT is an amount metric and AGENT_COUNT a count metric" in message


def test_operands_expected_in_different_currencies_are_refused(tmp_path: Path) -> None:
    old = 'code = "REVENUE"\nname_zh = "收入"\nname_en = "Revenue"\nunit = "USD_M"'
    message = refused(tmp_path, old, old.replace("USD_M", "CNY_M"))
    assert "key 'derived.0.denominator'" in message
    assert "a ratio across currencies is never computed" in message


def test_an_operand_that_is_another_derived_metric_is_refused(tmp_path: Path) -> None:
    second = (
        '[[derived]]\ncode = "MARGIN_OF_MARGIN"\nname_zh = "比率之比"\nname_en = "Margin ratio"\n'
        'numerator = "OPERATING_MARGIN"\ndenominator = "REVENUE"\n\n[[channels]]\ncode = "TOTAL"'
    )
    message = refused(tmp_path, '[[channels]]\ncode = "TOTAL"', second)
    assert "key 'derived.1.numerator'" in message
    assert "'OPERATING_MARGIN' is a derived metric" in message


def test_a_derived_alias_already_meaning_a_metric_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, '"OP margin"]', '"OP margin", "op profit"]')
    assert "alias 'op profit' is already used by metrics.1.aliases" in message


def test_a_derived_metric_other_than_a_ratio_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, f'{RULE}\nkind = "ratio"', f'{RULE}\nkind = "amount"')
    assert "key 'derived.0.kind'" in message
    assert "'amount' is not computed" in message
