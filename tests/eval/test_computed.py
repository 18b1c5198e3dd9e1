"""The fabrication check's recomputation of computed answers: sums, means, rates, positions —
from the allowed values only, and only for an answer the intent marks as computed."""

from __future__ import annotations

from dataclasses import replace

from ragspine.agent.types import (
    AgentResult,
    Analysis,
    AnalysisOp,
    ClarificationResult,
    ClarifyMode,
    ParsedIntent,
    Ratio,
    Route,
    Slots,
)
from ragspine.eval.computed import Allowed, computed_values, ratio_values, sum_groups
from ragspine.eval.fabrication import Fabrication, asked_slots, fabricated_numbers
from ragspine.profile.periods import Period

FY2023, FY2024, FY2025 = (Period(year, "FY") for year in (2023, 2024, 2025))
REGIONS = ("ACME_HK", "ACME_CN", "ACME_MO")


def intent(analysis: Analysis | None, *periods: Period) -> ParsedIntent:
    return ParsedIntent(
        "q",
        Route.STRUCTURED,
        metric="REVENUE",
        entity=REGIONS[0],
        period=periods[0] if periods else FY2024,
        metrics=("REVENUE",),
        entities=REGIONS,
        periods=periods or (FY2024,),
        language="en",
        analysis=analysis,
    )


def check(answer: str, allowed: list[float], parsed: ParsedIntent) -> list[Fabrication]:
    result = AgentResult(answer, Route.STRUCTURED, ClarificationResult(ClarifyMode.NONE))
    result.intent = parsed
    return fabricated_numbers(result, allowed_values=allowed)


TOTAL = Analysis(AnalysisOp.TOTAL, REGIONS, "ACME_GROUP")


def test_a_sum_is_allowed_only_in_a_computed_answer() -> None:
    line = "Total REVENUE FY2024: 4580 USD_M, the sum of ACME_HK, ACME_CN, ACME_MO."
    values = [2850.0, 1320.0, 410.0]
    assert check(line, values, intent(TOTAL)) == []
    assert check(line, values, intent(None)) == [Fabrication("4580", "structured")]


def test_a_sum_of_values_not_allowed_counts() -> None:
    line = "REVENUE FY2024 excluding ACME_HK: 1730 USD_M."
    exclude = Analysis(AnalysisOp.EXCLUDE, REGIONS[1:], "ACME_GROUP", ("ACME_HK",))
    assert check(line, [2850.0, 1320.0, 410.0, 4580.0], intent(exclude)) == []
    # another year's figure for one unit: neither its sums nor the whole minus a sum give 1730
    assert check(line, [2850.0, 1300.0, 410.0, 4600.0], intent(exclude)) == [
        Fabrication("1730", "structured")
    ]


def test_a_mean_is_recomputed_and_read_at_one_decimal() -> None:
    average = Analysis(AnalysisOp.AVERAGE)
    periods = (FY2023, FY2024, FY2025)
    values = [4260.0, 4580.0, 4987.0]
    assert check("Average: 4609 USD_M", values, intent(average, *periods)) == []
    values = [3948.0, 4260.0, 4580.0]
    assert check("Average: 4262.7 USD_M", values, intent(average, *periods)) == []
    assert check("Average: 4262.9 USD_M", values, intent(average, *periods)) != []


def test_a_cagr_is_recomputed_over_the_years_the_question_spans() -> None:
    cagr = Analysis(AnalysisOp.CAGR)
    values = [2690.0, 3105.0]
    assert check("CAGR: +7.4% a year.", values, intent(cagr, FY2023, FY2025)) == []
    assert check("CAGR: +9.1% a year.", values, intent(cagr, FY2023, FY2025)) != []


def test_ranking_positions_stop_at_the_number_of_units() -> None:
    rank = Analysis(AnalysisOp.RANK, REGIONS)
    line = "1. ACME_HK 2850 USD_M\n2. ACME_CN 1320 USD_M\n3. ACME_MO 410 USD_M"
    assert check(line, [2850.0, 1320.0, 410.0], intent(rank)) == []
    assert check(line + "\n4. ACME_XX", [2850.0, 1320.0, 410.0], intent(rank)) == [
        Fabrication("4", "structured")
    ]


def test_many_values_allow_only_their_full_sum() -> None:
    values = [float(v) for v in range(1, 13)]
    found = computed_values(values, intent(Analysis(AnalysisOp.CUMULATIVE)))
    allowed = Allowed(found)
    assert allowed.holds("78")  # 1 + ... + 12
    assert not allowed.holds("77.5")


def test_allowed_reads_separators_and_rounding() -> None:
    allowed = Allowed([1320.0, 4262.666667])
    assert allowed.holds("1,320") and allowed.holds("4262.7") and allowed.holds("4262.666667")
    assert not allowed.holds("1321") and not allowed.holds("1.2.3")


def test_a_derived_ratio_is_recomputed_from_the_values_of_its_own_key_only() -> None:
    margin = Analysis(AnalysisOp.DERIVED, ratios=(Ratio("OPERATING_MARGIN", "OP", "REVENUE"),))
    parsed = replace(
        intent(margin),
        metric="OPERATING_MARGIN",
        metrics=("OPERATING_MARGIN",),
        entities=REGIONS[:2],
    )
    truth = {("OP", "ACME_HK"): [968.0], ("REVENUE", "ACME_HK"): [2850.0]}
    truth |= {("OP", "ACME_CN"): [301.0], ("REVENUE", "ACME_CN"): [1320.0]}
    asked = asked_slots(parsed)
    assert Slots("REVENUE", "ACME_CN", FY2024, "TOTAL") in asked  # operands are inputs shown
    found = ratio_values(parsed, asked, lambda s: truth.get((s.metric, s.entity), []))
    assert sorted(round(v, 2) for v in found) == [22.8, 33.96]  # 301/1320, 968/2850
    allowed = Allowed(found)
    assert allowed.holds("33.96") and not allowed.holds("73.33")  # 968/1320: two keys
    assert ratio_values(intent(TOTAL), asked, lambda s: [1.0]) == []  # no derived metric asked


def test_sums_are_drawn_from_one_group_at_a_time() -> None:
    """A flow's years add up, a balance's two units at one period end too; a balance's period
    ends never do, though their mean stays a computed value."""
    keyed = [("SALES", "FY2024", 100.0), ("SALES", "FY2025", 120.0)]
    keyed += [("ASSETS", "FY2024", 900.0), ("ASSETS", "FY2025", 950.0), ("ASSETS", "FY2025", 40.0)]
    groups = sum_groups(keyed, lambda metric: metric == "SALES")
    found = Allowed(computed_values([v for *_, v in keyed], intent(TOTAL), groups))
    assert found.holds("220") and found.holds("990") and found.holds("925")
    assert not found.holds("1850") and not found.holds("1890")
