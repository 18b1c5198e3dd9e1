from __future__ import annotations

from datetime import date

import pytest

from ragspine.profile.glossary import (
    default_glossary,
    glossary_for,
    normalize_channel,
    normalize_entity,
    normalize_metric,
    normalize_period_code,
)
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period

INITECH = """\
[company]
name = "Initech"
home_entity = "INI_US"

[fiscal]
year_end_month = 3

[[entities]]
code = "INI_US"
name_zh = "美国"
name_en = "United States"
geography = "US"
aliases = ["US", "America"]

[[metrics]]
code = "BOOKINGS"
name_zh = "订单额"
name_en = "Bookings"
unit = "USD_M"

[[channels]]
code = "TOTAL"
aliases = ["all"]
"""


@pytest.fixture(scope="module")
def initech(tmp_path_factory: pytest.TempPathFactory) -> DomainProfile:
    path = tmp_path_factory.mktemp("profile") / "initech.toml"
    path.write_text(INITECH, encoding="utf-8")
    return load_profile(path)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("收入", "REVENUE"),
        ("营业收入", "REVENUE"),
        ("营收", "REVENUE"),
        ("revenue", "REVENUE"),
        ("Revenue", "REVENUE"),
        ("REVENUE", "REVENUE"),
        ("turnover", "REVENUE"),
        ("  revenue ", "REVENUE"),
        ("营运利润", "OPERATING_PROFIT"),
        ("operating profit", "OPERATING_PROFIT"),
        ("Operating  Profit", "OPERATING_PROFIT"),
        ("新业务价值", "NBV"),
        ("NBV", "NBV"),
        ("nbv", "NBV"),
        ("新业务价值利润率", "NBV_MARGIN"),
        ("ROE", "ROE"),
    ],
)
def test_normalize_metric(raw: str, code: str) -> None:
    assert normalize_metric(raw) == code


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("香港", "ACME_HK"),
        ("Hong Kong", "ACME_HK"),
        ("hongkong", "ACME_HK"),
        ("ACME_HK", "ACME_HK"),
        ("acme hk", "ACME_HK"),
        ("中国内地", "ACME_CN"),
        ("中国", "ACME_CN"),
        ("Mainland China", "ACME_CN"),
        ("澳门", "ACME_MO"),
        ("集团", "ACME_GROUP"),
    ],
)
def test_normalize_entity(raw: str, code: str) -> None:
    assert normalize_entity(raw) == code


@pytest.mark.parametrize(
    ("raw", "code"),
    [("代理人渠道", "AGENCY"), ("banca", "BANCA"), ("TOTAL", "TOTAL"), ("合计", "TOTAL")],
)
def test_normalize_channel(raw: str, code: str) -> None:
    assert normalize_channel(raw) == code


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "   ",
        "revenue growth",
        "revenue 2024",
        "收入增长",
        "香港收入",
        "rev",
        "enue",
        "profit",
        "新加坡",
        "Singapore",
        "友邦",
        "竞安保险",
    ],
)
def test_unknown_or_compound_terms_are_none_never_a_guess(raw: str | None) -> None:
    assert normalize_metric(raw) is None
    assert normalize_entity(raw) is None
    assert normalize_channel(raw) is None


def test_each_normalizer_only_answers_for_its_own_kind() -> None:
    assert normalize_metric("香港") is None
    assert normalize_entity("收入") is None
    assert normalize_channel("香港") is None
    assert normalize_metric("代理人渠道") is None


@pytest.mark.parametrize(
    ("raw", "period"),
    [
        ("FY24", Period(2024, "FY")),
        ("2025年上半年", Period(2025, "H1")),
        ("3Q25", Period(2025, "Q3")),
        ("去年", Period(2025, "FY")),
    ],
)
def test_normalize_period_code(raw: str, period: Period) -> None:
    assert normalize_period_code(raw, date(2026, 11, 26)) == period


@pytest.mark.parametrize("raw", [None, "", "9999", "FY2024 revenue", "soon"])
def test_normalize_period_code_is_none_for_anything_else(raw: str | None) -> None:
    assert normalize_period_code(raw, date(2026, 11, 26)) is None


def test_another_profile_has_its_own_vocabulary(initech: DomainProfile) -> None:
    assert normalize_entity("America", initech) == "INI_US"
    assert normalize_metric("订单额", initech) == "BOOKINGS"
    assert normalize_channel("all", initech) == "TOTAL"
    assert normalize_entity("香港", initech) is None
    assert normalize_metric("revenue", initech) is None
    assert normalize_entity("America") is None


def test_period_normalisation_uses_the_profile_fiscal_calendar(initech: DomainProfile) -> None:
    # Initech's fiscal year ends in March: on 1 April 2026 "last year" is FY2026.
    assert normalize_period_code("去年", date(2026, 4, 1), initech) == Period(2026, "FY")
    assert normalize_period_code("去年", date(2026, 4, 1)) == Period(2025, "FY")


def test_glossary_is_built_once_per_profile(initech: DomainProfile) -> None:
    assert glossary_for(initech) is glossary_for(initech)
    assert default_glossary() is glossary_for(load_profile())
    assert glossary_for(initech).profile is initech
    assert glossary_for(initech).calendar.year_end_month == 3


def test_competitors_are_not_terms() -> None:
    glossary = default_glossary()
    assert glossary.terms.lookup("竞安保险") is None
    assert glossary.competitors.lookup("竞安") is not None
