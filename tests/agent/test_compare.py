"""Our own arithmetic on two found facts: changes between periods, gaps between items, units."""

from __future__ import annotations

import pytest

from ragspine.agent.compare import comparison
from ragspine.agent.messages import en, zh
from ragspine.agent.types import FoundFact, Slots, Source
from ragspine.profile.periods import Period
from tests.profiles import acme, initech

FY2024, FY2025 = Period(2024, "FY"), Period(2025, "FY")


def found(metric: str, entity: str, period: Period, value: float, unit: str = "USD_M") -> FoundFact:
    slots = Slots(metric, entity, period, "TOTAL")
    return FoundFact(slots, value, unit, Source(f"{entity}.xlsx", f"sheet={period.label}"))


def test_a_change_between_periods_is_later_minus_earlier_in_either_order() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 2480)
    earlier = found("REVENUE", "ACME_HK", FY2024, 2210.5)
    line = "变化（FY2025 较 FY2024）：+269.5 USD_M（+12.2%）"
    assert comparison(later, earlier, acme(), zh) == line
    assert comparison(earlier, later, acme(), zh) == line
    assert comparison(later, earlier, acme(), en) == (
        "Change (FY2025 vs FY2024): +269.5 USD_M (+12.2%)"
    )


def test_a_fall_is_signed_and_its_percentage_is_of_the_earlier_value() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 150)
    earlier = found("REVENUE", "ACME_HK", FY2024, 200)
    assert comparison(later, earlier, acme(), en) == (
        "Change (FY2025 vs FY2024): -50 USD_M (-25.0%)"
    )


def test_a_ratio_changes_in_percentage_points_without_a_percentage() -> None:
    later = found("NBV_MARGIN", "ACME_HK", FY2025, 55.4, "PCT")
    earlier = found("NBV_MARGIN", "ACME_HK", FY2024, 52.0, "PCT")
    assert comparison(later, earlier, acme(), zh) == "变化（FY2025 较 FY2024）：+3.4 个百分点"
    assert comparison(later, earlier, acme(), en) == (
        "Change (FY2025 vs FY2024): +3.4 percentage points"
    )


def test_a_gap_between_entities_is_first_minus_second() -> None:
    hk = found("OPERATING_PROFIT", "ACME_HK", FY2024, 610)
    cn = found("OPERATING_PROFIT", "ACME_CN", FY2024, 402)
    assert comparison(hk, cn, acme(), zh) == "差值（ACME_HK 减 ACME_CN）：+208 USD_M（+51.7%）"
    assert comparison(cn, hk, acme(), en) == (
        "Difference (ACME_CN minus ACME_HK): -208 USD_M (-34.1%)"
    )


def test_a_gap_between_ratio_entities_is_in_percentage_points() -> None:
    hk = found("ROE", "ACME_HK", FY2024, 12.5, "PCT")
    cn = found("ROE", "ACME_CN", FY2024, 10, "PCT")
    assert comparison(hk, cn, acme(), en) == (
        "Difference (ACME_HK minus ACME_CN): +2.5 percentage points"
    )


def test_a_gap_between_metrics_of_one_unit_names_the_metrics() -> None:
    revenue = found("REVENUE", "ACME_HK", FY2024, 2210.5)
    profit = found("OPERATING_PROFIT", "ACME_HK", FY2024, 610)
    assert comparison(revenue, profit, acme(), en) == (
        "Difference (REVENUE minus OPERATING_PROFIT): +1600.5 USD_M (+262.4%)"
    )


def test_a_zero_base_gives_the_difference_without_a_percentage() -> None:
    later = found("REVENUE", "ACME_HK", FY2025, 40)
    earlier = found("REVENUE", "ACME_HK", FY2024, 0)
    assert comparison(later, earlier, acme(), zh) == "变化（FY2025 较 FY2024）：+40 USD_M"


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
    assert comparison(first, second, acme(), zh) is None


def test_a_metric_the_profile_does_not_know_compares_as_an_amount() -> None:
    later = found("BOOKINGS", "INI_US", FY2025, 12)
    earlier = found("BOOKINGS", "INI_US", FY2024, 10)
    assert comparison(later, earlier, acme(), en) == (
        "Change (FY2025 vs FY2024): +2 USD_M (+20.0%)"
    )
    assert comparison(later, earlier, initech(), en) == comparison(later, earlier, acme(), en)
