"""A currency asked for, converted at a rate the profile declares: the converted figure beside
the cited one with the rate, its date and its source; refused when every rate of the pair is
dated after the period, or when the pair has none; a computed figure converted once, at the
one rate its inputs take. Expected figures are this file's facts times the example profile's
rates, both written here by hand; never the engine's output."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ragspine.agent.conversion import exchange_rate
from ragspine.agent.types import AgentResult
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.exchange_rates import ExchangeRateDef, PostDated
from ragspine.profile.loader import load_profile
from ragspine.profile.periods import Period
from ragspine.storage.fact_store import FactStore
from tests.agent.converted import ask_found, fact_store
from tests.facts import fact
from tests.profiles import INITECH_PATH, acme

REF = date(2026, 11, 26)
# The example profile's fictional USD→HKD rates (profile/data/acme.toml).
SHEET_2024 = "ACME treasury rate sheet, 31 December 2024 (fictional demo rate)"
SHEET_2025 = "ACME treasury rate sheet, 31 December 2025 (fictional demo rate)"

FACTS = [
    fact("REVENUE", "ACME_HK", "FY", "2023", 2690),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2850),
    fact("REVENUE", "ACME_CN", "FY", "2024", 1320),
    fact("REVENUE", "ACME_MO", "FY", "2024", 410),
    fact("REVENUE", "ACME_GROUP", "FY", "2024", 4580),
    fact("REVENUE", "ACME_HK", "FY", "2025", 3105),
    fact("REVENUE", "ACME_MO", "FY", "2025", 410.55),
    fact("REVENUE", "ACME_HK", "Q1", "2025", 700),
    fact("REVENUE", "ACME_HK", "H1", "2024", 1400),
    fact("NBV_MARGIN", "ACME_HK", "FY", "2024", 52.8),
]
VALUES = [f.value for f in FACTS]


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    return fact_store(tmp_path / "facts.db", FACTS)


def ask(store: FactStore, question: str) -> AgentResult:
    return ask_found(store, question, VALUES)


def line_with(result: AgentResult, part: str) -> str:
    (line,) = [line for line in result.answer.splitlines() if part in line]
    return line


def test_a_figure_is_converted_beside_the_cited_one_in_english(store: FactStore) -> None:
    result = ask(store, "What was Hong Kong revenue in FY2024 in HK dollars?")
    cited, converted = result.answer.splitlines()
    assert cited == (
        "Hong Kong FY2024 Revenue: US$ 2,850 m "
        "(source: ACME_FY2024_Review.pptx · slide=3,table=1,row=REVENUE,col=FY2024)"
    )
    # 2,850 × 7.80 = 22,230
    assert converted == (
        "Hong Kong FY2024 Revenue in HKD: HK$ 22,230 m (= US$ 2,850 m × 7.8 HKD per USD, "
        f"rate as of 2024-12-31, rate source: {SHEET_2024}; "
        "figure source: ACME_FY2024_Review.pptx · slide=3,table=1,row=REVENUE,col=FY2024)"
    )


def test_a_figure_is_converted_in_chinese_at_its_years_rate(store: FactStore) -> None:
    result = ask(store, "香港FY2025收入换算成港元是多少")
    # FY2025 ends 31 December 2025: the rate of that day, 7.78; 3,105 × 7.78 = 24,156.9
    converted = line_with(result, "折合")
    assert converted.startswith(
        "香港 FY2025 收入（折合港元）：24,156.9 百万港元（= 3,105 百万美元 × 7.78，"
    )
    assert f"USD→HKD 汇率，汇率日期 2025-12-31，汇率来源：{SHEET_2025}" in converted


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        # 2,850 × 7.80 = 22,230 m = 22.23 bn = 222.3 亿
        ("Hong Kong revenue FY2024 in billions of HK dollars", "in HKD billions: HK$ 22.23 bn"),
        ("香港FY2024收入以亿港元计", "（折合亿港元）：222.3 亿港元"),
        # 410.55 × 7.78 = 3,194.079 m: two decimals shown; 3.194079 bn → 3.19
        ("Macau revenue FY2025 in HK dollars", "in HKD: HK$ 3,194.08 m"),
        ("Macau revenue FY2025 in billions of HK dollars", "in HKD billions: HK$ 3.19 bn"),
    ],
)
def test_a_scale_asked_with_the_currency_is_applied_to_the_converted_figure(
    store: FactStore, question: str, shown: str
) -> None:
    result = ask(store, question)
    assert shown in result.answer
    assert " in billions: " not in result.answer  # not rescaled in US$ as well


@pytest.mark.parametrize(
    ("question", "rate", "as_of", "figure"),
    [
        # 2025Q1 ends 31 March 2025: the 2024 rate, not the later 2025 one; 700 × 7.80
        ("Hong Kong revenue 2025Q1 in HK dollars", "7.8", "2024-12-31", "HK$ 5,460 m"),
        # FY2025 ends 31 December 2025, the day of the 2025 rate; 3,105 × 7.78
        ("Hong Kong revenue FY2025 in HK dollars", "7.78", "2025-12-31", "HK$ 24,156.9 m"),
    ],
)
def test_the_rate_is_the_latest_on_or_before_the_period_end(
    store: FactStore, question: str, rate: str, as_of: str, figure: str
) -> None:
    converted = line_with(ask(store, question), " × ")
    assert f"{figure} (= " in converted
    assert f"× {rate} HKD per USD, rate as of {as_of}," in converted


@pytest.mark.parametrize(
    ("question", "refusal"),
    [
        (
            "Hong Kong revenue FY2023 in HK dollars",
            "Not converted into HKD: every USD→HKD rate declared in the profile is dated after "
            "the end of FY2023 (the earliest is of 2024-12-31), so those figures stay in USD "
            "as reported.",
        ),
        (
            "香港2024年上半年收入换算成港元",
            "未换算为 HKD：配置中声明的 USD→HKD 汇率均晚于 2024H1 的期末（最早一项为 2024-12-31），"
            "这些数字仍按报告币种 USD 列示。",
        ),
    ],
)
def test_a_rate_dated_after_the_period_is_refused_with_that_reason(
    store: FactStore, question: str, refusal: str
) -> None:
    result = ask(store, question)
    assert result.answer.splitlines()[-1] == refusal
    assert " × " not in result.answer and "HK$" not in result.answer


def test_a_pair_with_no_rate_keeps_todays_refusal(store: FactStore) -> None:
    result = ask(store, "Hong Kong revenue FY2024 in euros")
    assert result.answer.splitlines()[-1] == (
        "Not converted into EUR: no exchange rate is declared in the profile, so the figures "
        "stay in USD as reported."
    )


def test_a_percentage_has_no_currency_to_convert(store: FactStore) -> None:
    result = ask(store, "Hong Kong NBV margin FY2024 in HK dollars")
    assert result.answer.splitlines()[-1] == (
        "Not converted: NBV margin is not an amount of money, so it has no currency."
    )


def test_a_total_is_converted_once_from_its_sum(store: FactStore) -> None:
    result = ask(store, "What was the total revenue of all regions in FY2024 in HK dollars?")
    # (2,850 + 1,320 + 410) × 7.80 = 4,580 × 7.80 = 35,724
    assert line_with(result, "Computed figure") == (
        "Computed figure in HKD: HK$ 35,724 m (= US$ 4,580 m × 7.8 HKD per USD, rate as of "
        f"2024-12-31, rate source: {SHEET_2024}; converted once from the computed figure)"
    )
    # each input too: 1,320 × 7.80 = 10,296; 410 × 7.80 = 3,198
    assert "Mainland China FY2024 Revenue in HKD: HK$ 10,296 m" in result.answer
    assert "Macau FY2024 Revenue in HKD: HK$ 3,198 m" in result.answer


def test_an_exclusion_in_chinese_is_converted_once(store: FactStore) -> None:
    result = ask(store, "除香港以外的FY2024收入是多少，换算成港元")
    # (1,320 + 410) × 7.80 = 13,494
    assert "计算结果折合港元：13,494 百万港元（= 1,730 百万美元 × 7.8，" in result.answer
    assert "由计算结果一次换算" in result.answer


def test_an_average_over_years_of_different_rates_is_not_converted(store: FactStore) -> None:
    result = ask(store, "Average Hong Kong revenue FY2024 to FY2025 in HK dollars")
    assert line_with(result, "Computed figure") == (
        "Computed figure US$ 2,977.5 m not converted into HKD: its inputs take different "
        "USD→HKD rates (as of 2024-12-31, 2025-12-31), so no one rate converts it; each input "
        "is converted on its own line."
    )
    assert "HK$ 22,230 m" in result.answer and "HK$ 24,156.9 m" in result.answer


def test_a_computed_figure_with_a_post_dated_input_is_not_converted(store: FactStore) -> None:
    result = ask(store, "Average Hong Kong revenue FY2023 to FY2024 in HK dollars")
    assert "Computed figure" not in result.answer
    assert "dated after the end of FY2023" in result.answer
    assert "HK$ 22,230 m" in result.answer  # FY2024's own figure is converted


def test_a_ranking_keeps_its_order_and_converts_each_unit(store: FactStore) -> None:
    result = ask(store, "FY2024各地区收入排名，以港币计")
    lines = result.answer.splitlines()
    for line, place in zip(lines[1:4], ("1. 香港 ", "2. 中国内地 ", "3. 澳门 "), strict=True):
        assert line.startswith(place)
    for value in ("22,230", "10,296", "3,198"):
        assert f"：{value} 百万港元（= " in result.answer


def test_the_check_accepts_only_declared_rates_at_their_rounding(store: FactStore) -> None:
    result = ask(store, "Macau revenue FY2025 in billions of HK dollars")
    rates = acme().exchange_rates

    def flagged(answer: str, declared: tuple[ExchangeRateDef, ...] = rates) -> list[str]:
        tampered = replace(result, answer=answer)
        found = fabricated_numbers(tampered, allowed_values=[410.55], exchange_rates=declared)
        return [f.number for f in found]

    assert flagged(result.answer) == []
    # Without the profile's rates, the converted figure and the rate are fabricated.
    assert "3.19" in flagged(result.answer, ())
    # 410.55 × 7.78 = 3.194079 bn: "3.2" is the same figure rounded, "3.18" is not it.
    assert flagged(result.answer.replace("HK$ 3.19 bn", "HK$ 3.2 bn")) == []
    assert flagged(result.answer.replace("HK$ 3.19 bn", "HK$ 3.18 bn")) == ["3.18"]
    # A wrong rate: 410.55 × 7.85 = 3.22 bn is no declared rate's figure.
    wrong = result.answer.replace("HK$ 3.19 bn", "HK$ 3.22 bn").replace("× 7.78", "× 7.85")
    assert sorted(flagged(wrong)) == ["3.22", "7.85"]
    # An undeclared rate: the same answer judged with a profile declaring 7.85 only.
    other = tuple(r.model_copy(update={"rate": Decimal("7.85")}) for r in rates)
    assert "3.19" in flagged(result.answer, other)
    # The right rate of another pair (USD→JPY, HKD→USD) converts nothing into HKD.
    for pair in ({"to_currency": "JPY"}, {"from_currency": "HKD", "to_currency": "USD"}):
        elsewhere = tuple(r.model_copy(update=pair) for r in rates)
        assert "3.19" in flagged(result.answer, elsewhere)


def test_the_period_end_comes_from_the_profiles_fiscal_calendar(tmp_path: Path) -> None:
    # Initech's fiscal year ends in March: FY2025 ends 31 March 2025, its Q3 on 31 December 2024.
    text = INITECH_PATH.read_text(encoding="utf-8") + (
        '\n[[exchange_rates]]\nfrom = "USD"\nto = "EUR"\nrate = 0.92\nas_of = 2025-03-31\n'
        'source = "Initech finance"\n'
    )
    path = tmp_path / "initech.toml"
    path.write_text(text, encoding="utf-8")
    profile = load_profile(path)
    rate = exchange_rate(profile, "USD", "EUR", Period(2025, "FY"))
    assert isinstance(rate, ExchangeRateDef) and str(rate.rate) == "0.92"
    assert exchange_rate(profile, "USD", "EUR", Period(2025, "Q3")) == PostDated(rate)
    assert exchange_rate(profile, "EUR", "USD", Period(2026, "FY")) is None
