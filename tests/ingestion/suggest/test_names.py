"""Reading names out of labels: units, periods and footnote marks out, two languages apart."""

from __future__ import annotations

import pytest

from ragspine.ingestion.suggest.names import bilingual, make_code, read_parts
from ragspine.units import UnitKind


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("Turnover 营业额", ("Turnover", "营业额")),
        ("营业额 Turnover", ("Turnover", "营业额")),
        ("销售（Sales）", ("Sales", "销售")),
        ("Sales / 销售", ("Sales", "销售")),
        ("EBITDA利润率", None),  # one name, glued
        ("Sales", None),
        ("销售", None),
        ("A 甲 B", None),  # interleaved scripts are not two names
    ],
)
def test_bilingual_splits_only_names_set_apart(text: str, pair: tuple[str, str] | None) -> None:
    assert bilingual(text) == pair


def test_a_label_loses_its_unit_period_and_footnote_marks() -> None:
    margin = read_parts("Operating margin (%)")
    assert margin.name == "Operating margin"
    assert margin.marker is not None and margin.marker.kind == UnitKind.PERCENT
    sales = read_parts("Sales¹ (HK$ million)")
    assert sales.name == "Sales"
    assert sales.marker is not None and sales.marker.currency == "HKD"
    assert read_parts("销售额（人民币百万元）").name == "销售额"


def test_period_headers_name_their_year_end_month() -> None:
    ended = read_parts("Year ended 31 March 2025")
    assert (ended.name, ended.has_period, ended.ended) == ("", True, (3,))
    assert read_parts("Year ended 31 March 2025").ended == (3,)  # noted again, never cached
    assert read_parts("截至2025年3月31日止年度").ended == (3,)
    assert read_parts("31 Mar 2025").dated == (3,)
    assert read_parts("FY2024/25").has_period
    assert read_parts("Hotels FY2024/25").name == "Hotels"


def test_codes_are_upper_snake_case_and_stable() -> None:
    assert make_code("Operating profit", "M") == "OPERATING_PROFIT"
    assert make_code("2024 target", "M") == "M_2024_TARGET"
    chinese = make_code("门票收入", "M")
    assert chinese == make_code("门票收入", "M") != make_code("餐饮收入", "M")
    assert chinese.startswith("M_") and chinese.isupper()
