"""The eval's reader of displayed values (``eval.answer_values``)."""

from __future__ import annotations

import pytest

from ragspine.eval.answer_values import legacy_view, stated_values, states_derived

EN = (
    "Hong Kong FY2025 Revenue: US$ 3,105 m (source: deck.pptx · slide=2,table=1,row=3)\n"
    "Change (FY2025 vs FY2024): +US$ 255 m (+8.95%)"
)
ZH = "香港 FY2025 收入：3,105 百万美元（来源：deck.pptx · slide=2）\n变化：-22 百万人民币（-1.50%）"


def test_values_are_read_with_their_unit_codes_and_signs() -> None:
    en = [(s.value, s.unit, s.signed) for s in stated_values(EN)]
    assert (3105.0, "USD_M", False) in en
    assert (255.0, "USD_M", True) in en
    assert (8.95, "PCT", True) in en
    zh = [(s.value, s.unit, s.signed) for s in stated_values(ZH)]
    assert (3105.0, "USD_M", False) in zh
    assert (-22.0, "CNY_M", True) in zh
    assert (-1.5, "PCT", True) in zh


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("RMB 1,250 m", (1250.0, "CNY_M")),
        ("€ 12.5 bn", (12.5, "EUR_B")),
        ("63.80%", (63.8, "PCT")),
        ("12,000", (12000.0, "COUNT")),
        ("3,480 百万港元", (3480.0, "HKD_M")),
        ("8,800 万人民币", (8800.0, "CNY_E4")),
    ],
)
def test_each_display_form_reads_back(text: str, read: tuple[float, str]) -> None:
    assert [(s.value, s.unit) for s in stated_values(f"x：{text}。")] == [read]


def test_the_legacy_view_writes_values_the_way_cases_do() -> None:
    view = legacy_view(EN)
    assert "3105 USD_M" in view and "+255 USD_M" in view and "+8.95%" in view
    assert "slide=2,table=1,row=3" in view  # locators keep their digits


@pytest.mark.parametrize(
    ("derived", "stated"),
    [
        ("+255 USD_M", True),
        ("+8.9%", True),
        ("+8.95%", True),
        ("+9.1%", False),
        ("-255 USD_M", False),
        ("+255 CNY_M", False),
        ("Change (FY2025 vs FY2024)", True),
    ],
)
def test_a_derived_string_is_stated_in_any_display_form(derived: str, stated: bool) -> None:
    assert states_derived(EN, derived) is stated
