"""Profiles declare currencies: a reporting currency, a metric's expected currency, and the old
``unit = "USD_M"`` form, which keeps loading."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragspine.errors import ProfileError
from ragspine.profile.loader import load_profile
from ragspine.units import Unit

BASE = """
[company]
name = "Harbour Ltd"
home_entity = "HARBOUR"
{company}

[[entities]]
code = "HARBOUR"
name_zh = "海港"
name_en = "Harbour"
geography = "HK"

[[metrics]]
code = "SALES"
name_zh = "销售额"
name_en = "Sales"
{metric}

[[channels]]
code = "TOTAL"
"""


def load(tmp_path: Path, *, company: str = "", metric: str = "") -> Any:
    path = tmp_path / "profile.toml"
    path.write_text(BASE.format(company=company, metric=metric), encoding="utf-8")
    return load_profile(path)


def test_an_amount_takes_the_reporting_currency(tmp_path: Path) -> None:
    profile = load(tmp_path, company='reporting_currency = "HKD"', metric='kind = "amount"')
    sales = profile.metric("SALES")
    assert sales.default_unit("HKD") == Unit.parse("HKD_M")
    assert sales.expected_currency("HKD") == "HKD"


def test_a_metric_currency_wins_over_the_reporting_one(tmp_path: Path) -> None:
    profile = load(tmp_path, company='reporting_currency = "HKD"', metric='currency = "EUR"')
    assert profile.metric("SALES").default_unit("HKD") == Unit.parse("EUR_M")


def test_unit_codes_written_before_currencies_keep_loading(tmp_path: Path) -> None:
    profile = load(tmp_path, metric='unit = "USD_M"\nkind = "amount"')
    assert profile.metric("SALES").default_unit(None) == Unit.parse("USD_M")


@pytest.mark.parametrize(
    ("company", "metric", "key"),
    [
        ('reporting_currency = "XYZ"', "", "company.reporting_currency"),
        ("", 'currency = "DOLLARS"', "metrics.0.currency"),
        ("", "", "metrics.0.currency"),  # an amount with no currency anywhere
        ("", 'unit = "PCT"\nkind = "amount"', "metrics.0"),
        ("", 'unit = "USD_M"\ncurrency = "HKD"', "metrics.0"),
        ("", 'unit = "US dollars"', "metrics.0.unit"),
    ],
)
def test_a_wrong_currency_fails_naming_the_key(
    tmp_path: Path, company: str, metric: str, key: str
) -> None:
    with pytest.raises(ProfileError, match=f"key '{key}"):
        load(tmp_path, company=company, metric=metric)
