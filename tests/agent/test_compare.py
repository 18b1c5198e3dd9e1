"""Our own arithmetic on two found facts: changes between periods, gaps between items, units."""

from __future__ import annotations

import pytest

from ragspine.agent.compare import comparison
from ragspine.agent.messages import en, zh
from ragspine.agent.types import FoundFact, Slots, Source
from ragspine.profile.periods import Period
from tests.profiles import acme, initech

FY2023, FY2024, FY2025 = Period(2023, "FY"), Period(2024, "FY"), Period(2025, "FY")


def found(metric: str, entity: str, period: Period, value: float, unit: str = "USD_M") -> FoundFact:
    slots = Slots(metric, entity, period, "TOTAL")
    return FoundFact(slots, value, unit, Source(f"{entity}.xlsx", f"sheet={period.label}"))


def test_a_change_between_periods_is_later_minus_earlier_in_either_order() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 2480)
    earlier = found("REVENUE", "ACME_HK", FY2024, 2210.5)
    line = "变化（FY2025 较 FY2024）：+269.5 百万美元（+12.19%）"
    assert comparison(later, earlier, acme(), zh, "zh") == line
    assert comparison(earlier, later, acme(), zh, "zh") == line
    assert comparison(later, earlier, acme(), en, "en") == (
        "Change (FY2025 vs FY2024): +US$ 269.5 m (+12.19%)"
    )


def test_a_fall_is_signed_and_its_percentage_is_of_the_earlier_value() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 150)
    earlier = found("REVENUE", "ACME_HK", FY2024, 200)
    assert comparison(later, earlier, acme(), en, "en") == (
        "Change (FY2025 vs FY2024): -US$ 50 m (-25.00%)"
    )


def test_a_ratio_changes_in_percentage_points_without_a_percentage() -> None:
    later = found("NBV_MARGIN", "ACME_HK", FY2025, 55.4, "PCT")
    earlier = found("NBV_MARGIN", "ACME_HK", FY2024, 52.0, "PCT")
    assert (
        comparison(later, earlier, acme(), zh, "zh") == "变化（FY2025 较 FY2024）：+3.40 个百分点"
    )
    assert comparison(later, earlier, acme(), en, "en") == (
        "Change (FY2025 vs FY2024): +3.40 percentage points"
    )


def test_a_gap_between_entities_is_first_minus_second() -> None:
    hk = found("OPERATING_PROFIT", "ACME_HK", FY2024, 610)
    cn = found("OPERATING_PROFIT", "ACME_CN", FY2024, 402)
    assert (
        comparison(hk, cn, acme(), zh, "zh")
        == "差值（香港 减 中国内地）：+208 百万美元（相对中国内地 +51.74%）"
    )
    assert comparison(cn, hk, acme(), en, "en") == (
        "Difference (Mainland China minus Hong Kong): -US$ 208 m (-34.10% relative to Hong Kong)"
    )


def test_a_gap_between_ratio_entities_is_in_percentage_points() -> None:
    hk = found("ROE", "ACME_HK", FY2024, 12.5, "PCT")
    cn = found("ROE", "ACME_CN", FY2024, 10, "PCT")
    assert comparison(hk, cn, acme(), en, "en") == (
        "Difference (Hong Kong minus Mainland China): +2.50 percentage points"
    )


def test_a_gap_between_metrics_of_one_unit_names_the_metrics() -> None:
    revenue = found("REVENUE", "ACME_HK", FY2024, 2210.5)
    profit = found("OPERATING_PROFIT", "ACME_HK", FY2024, 610)
    assert comparison(revenue, profit, acme(), en, "en") == (
        "Difference (Revenue minus Operating profit): +US$ 1,600.5 m "
        "(+262.38% relative to Operating profit)"
    )


def test_a_zero_base_gives_the_difference_without_a_percentage() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 40)
    earlier = found("REVENUE", "ACME_HK", FY2024, 0)
    assert comparison(later, earlier, acme(), zh, "zh") == (
        "变化（FY2025 较 FY2024）：+40 百万美元（基数为零或负数，百分比变化无意义）"
    )


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Change (FY2024 vs FY2023): +US$ 83 m (percentage change not meaningful"),
        ("zh", "变化（FY2024 较 FY2023）：+83 百万美元（基数为零或负数，百分比变化无意义）"),
    ],
)
def test_a_change_from_a_loss_gives_no_percentage(language: str, said: str) -> None:
    # Macau net profit -45 -> 38: "+184.44%" (over the loss's absolute value) means nothing.
    later = found("NET_PROFIT", "ACME_MO", FY2024, 38)
    earlier = found("NET_PROFIT", "ACME_MO", FY2023, -45)
    line = comparison(later, earlier, acme(), en if language == "en" else zh, language)
    assert line is not None and line.startswith(said)
    assert "%" not in line.replace("百分比", "")


def test_a_gap_to_a_loss_making_unit_gives_no_relative_difference() -> None:
    cn = found("NET_PROFIT", "ACME_CN", FY2023, 210)
    mo = found("NET_PROFIT", "ACME_MO", FY2023, -45)
    assert comparison(cn, mo, acme(), en, "en") == (
        "Difference (Mainland China minus Macau): +US$ 255 m "
        "(no relative difference: Macau is zero or negative)"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # Different units never compare.
        (
            found("NBV_MARGIN", "ACME_HK", FY2024, 52.0, "PCT"),
            found("REVENUE", "ACME_HK", FY2024, 2210.5),
        ),
        # Another entity in another period is neither a change nor a gap.
        (found("REVENUE", "ACME_HK", FY2025, 2480), found("REVENUE", "ACME_CN", FY2024, 1320)),
        # Another metric in another period neither.
        (
            found("REVENUE", "ACME_HK", FY2025, 2480),
            found("OPERATING_PROFIT", "ACME_HK", FY2024, 610),
        ),
    ],
)
def test_facts_that_do_not_compare_give_none(first: FoundFact, second: FoundFact) -> None:
    assert comparison(first, second, acme(), zh, "zh") is None


def test_one_figure_in_two_currencies_is_not_compared_and_says_why() -> None:
    """No exchange rate is ever assumed: the line names both currencies and computes nothing."""
    ports = initech().entities[0].code
    later = found("REVENUE", ports, FY2025, 1250, "CNY_M")
    earlier = found("REVENUE", ports, FY2024, 28, "EUR_M")
    for first, second in ((later, earlier), (earlier, later)):
        line = comparison(first, second, acme(), en, "en")
        assert line is not None
        assert "FY2025" in line and "FY2024" in line
        assert not any(ch.isdigit() for ch in line.replace("FY2025", "").replace("FY2024", ""))
    assert comparison(later, earlier, acme(), en, "en") == (
        "No change is computed: FY2025 is in RMB, FY2024 in €; no exchange rate is given."
    )
    gap = comparison(
        found("REVENUE", "ACME_HK", FY2025, 2480, "HKD_M"),
        found("REVENUE", "ACME_CN", FY2025, 1320, "CNY_M"),
        acme(),
        zh,
        "zh",
    )
    assert gap == "不计算变化：香港以港元列示，中国内地以人民币列示，文件未给出汇率。"


def test_one_currency_at_two_scales_is_not_compared_and_no_exchange_rate_is_blamed() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 2480, "USD_M")
    earlier = found("REVENUE", "ACME_HK", FY2024, 2210, "USD_K")
    assert comparison(later, earlier, acme(), en, "en") == (
        "No change is computed: FY2025 is in US$ m, FY2024 in US$ k; no conversion is given."
    )


def test_a_metric_the_profile_does_not_know_compares_as_an_amount() -> None:
    later = found("BOOKINGS", "INI_US", FY2025, 12)
    earlier = found("BOOKINGS", "INI_US", FY2024, 10)
    assert comparison(later, earlier, acme(), en, "en") == (
        "Change (FY2025 vs FY2024): +US$ 2 m (+20.00%)"
    )
    assert comparison(later, earlier, initech(), en, "en") == comparison(
        later, earlier, acme(), en, "en"
    )
