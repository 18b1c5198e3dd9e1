"""A part of a year ("2025年前三季度", "first nine months of 2025", "YTD Q3 2025") is the sum of
its quarters, computed only when every quarter's figure is found and the metric adds up: a
flow, never a balance at a point in time (``profile.metric_nature``).

Found by the probe: such questions were asked back with FY2025 / FY2024 offered, neither the
period asked; a full year's figure must never answer them. Each test writes its own facts, so
the sums are known before the agent runs.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.parse import parse_intent
from ragspine.agent.types import AgentResult, AnalysisOp, AnswerKind
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from ragspine.storage.fact_store import Fact
from tests.agent.test_analyst import ask, numbers
from tests.facts import fact
from tests.profiles import acme, initech

REF = date(2026, 11, 26)
QUARTERS = (("Q1", 750.0), ("Q2", 762.0), ("Q3", 790.0))
FULL_YEAR = 3105.0
Q1_Q3 = tuple(Period(2025, q) for q, _ in QUARTERS)


def hk_revenue(*, without: str = "") -> list[Fact]:
    quarters = [
        fact("REVENUE", "ACME_HK", q, "2025", v, source_locator=f"q={q}")
        for q, v in QUARTERS
        if q != without
    ]
    year = fact("REVENUE", "ACME_HK", "FY", "2025", FULL_YEAR, source_locator="fy")
    return [*quarters, year]


@pytest.mark.parametrize(
    "question",
    [
        "香港2025年前三季度收入",
        "香港2025年1-9月收入",
        "香港2025年第一至第三季度收入",
        "截至2025年9月30日止九个月香港收入",
        "HK revenue in the first three quarters of 2025",
        "Hong Kong revenue for the first nine months of 2025",
        "HK revenue 9M 2025",
        "HK revenue for the nine months ended 30 September 2025",
        "HK revenue YTD Q3 2025",
        "Hong Kong revenue Q1-Q3 2025",
        # Found by a probe: each was answered with FY2025's full-year figure (or, for a month
        # closing the run, with Q2-Q4), the months said being read as nothing.
        "HK revenue nine months 2025",
        "HK revenue 9 months of 2025",
        "HK revenue 9M25",
        "HK revenue for the nine months to September 2025",
        "HK revenue 9 months ended September 2025",
        "截至2025年9月止九个月香港收入",
    ],
)
def test_a_run_of_quarters_is_read_as_its_quarters_to_sum(question: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert intent.periods == Q1_Q3
    assert intent.unknown_periods == ()
    assert intent.analysis is not None and intent.analysis.op is AnalysisOp.CUMULATIVE


@pytest.mark.parametrize(
    "question",
    ["香港2025年前三季度收入是多少", "What was HK revenue in the first three quarters of 2025?"],
)
def test_the_sum_of_the_quarters_answers_never_the_full_year(tmp_path: Path, question: str) -> None:
    result = ask(tmp_path, question, hk_revenue())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(result.answer.splitlines()[0])[-1] == "2302"  # 750 + 762 + 790
    assert "3105" not in numbers(result.answer)
    assert {s.locator for s in result.sources} == {"q=Q1", "q=Q2", "q=Q3"}


def test_a_missing_quarter_is_said_and_nothing_summed(tmp_path: Path) -> None:
    result = ask(tmp_path, "香港2025年前三季度收入", hk_revenue(without="Q1"))
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "2025Q1" in result.answer.splitlines()[0]
    shown = numbers(result.answer)
    assert "1552" not in shown and "3105" not in shown  # neither a partial sum nor the year


def test_a_ratio_over_quarters_is_not_added(tmp_path: Path) -> None:
    margins = [
        fact("NBV_MARGIN", "ACME_HK", q, "2025", 55.0 + i) for i, (q, _) in enumerate(QUARTERS)
    ]
    result = ask(tmp_path, "HK NBV margin for the first three quarters of 2025", margins)
    assert result.answer.startswith("Not computed")
    assert "168" not in numbers(result.answer)  # 55 + 56 + 57


def test_a_change_over_a_part_of_a_year_is_not_computed() -> None:
    intent = parse_intent("香港2025年前三季度收入同比增长", REF, profile=acme())
    assert intent.analysis is not None and intent.analysis.op is AnalysisOp.UNSUPPORTED
    assert intent.unknown_periods == ()


@pytest.mark.parametrize(
    "question",
    [
        "Ferry passenger trips 9M 2025",
        "渡轮2025年前三季度客运人次",
        "Ferry passenger trips YTD Q3 2025",
    ],
)
def test_a_count_declared_a_flow_is_summed_over_its_quarters(tmp_path: Path, question: str) -> None:
    """Passenger trips are made over a period: under a March year end, FY2025's first three
    quarters add up to the trips of April to December 2024, each quarter found."""
    harbour = load_profile(example_profile_path().with_name("harbour.toml"))
    trips = [
        fact("PASSENGERS", "HLH_FERRY", q, "2025", v, unit="COUNT", source_locator=f"q={q}")
        for q, v in (("Q1", 310.0), ("Q2", 325.0), ("Q3", 298.0))
    ]
    result = ask(tmp_path, question, trips, harbour)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert numbers(result.answer.splitlines()[0])[-1] == "933"  # 310 + 325 + 298
    assert {s.locator for s in result.sources} == {"q=Q1", "q=Q2", "q=Q3"}


def test_a_count_declared_a_balance_over_a_part_of_a_year_is_never_summed(tmp_path: Path) -> None:
    """The agents at three quarter ends: shown each with its source, not added, the last
    quarter's named as the count at the end."""
    agents = [
        fact("AGENT_COUNT", "ACME_HK", q, "2025", v, unit="COUNT", source_locator=f"q={q}")
        for q, v in (("Q1", 13400.0), ("Q2", 13650.0), ("Q3", 13900.0))
    ]
    question = "How many agents did Hong Kong have in the first three quarters of 2025?"
    result = ask(tmp_path, question, agents)
    assert result.answer.startswith("Not computed: Agent count is measured"), result.answer
    assert "2025Q3" in result.answer.splitlines()[0]
    assert "40950" not in numbers(result.answer)
    assert {"13400", "13650", "13900"} <= set(numbers(result.answer))


def test_a_part_of_a_year_follows_the_fiscal_calendar() -> None:
    """Under a March year end, "first six months of FY2025" is FY2025's Q1 and Q2; calendar
    January to September 2025 straddles two fiscal years and is asked about."""
    intent = parse_intent("Bookings for the first six months of FY2025", REF, profile=initech())
    assert intent.periods == (Period(2025, "Q1"), Period(2025, "Q2"))
    intent = parse_intent("2025年1-9月订单额", REF, profile=initech())
    assert intent.periods == ()
    assert intent.unknown_periods == ("2025年1-9月",)


# Amounts the example profile lacks, as a profile author would add them; ``nature`` only where
# a test says so, so the others are read from their names.
BALANCE_SHEET = """
[[metrics]]
code = "TOTAL_ASSETS"
name_zh = "总资产"
name_en = "Total assets"
unit = "USD_M"
{assets}

[[metrics]]
code = "DEPOSITS"
name_zh = "客户存款"
name_en = "Customer deposits"
unit = "USD_M"

[[metrics]]
code = "NET_SALES"
name_zh = "销售净额"
name_en = "Net sales"
unit = "USD_M"
{sales}

[[metrics]]
code = "FLOAT"
name_zh = "浮存金"
name_en = "Policy float"
unit = "USD_M"
"""
BALANCES = (("Q1", 40100.0), ("Q2", 40900.0), ("Q3", 41800.0))
SUMMED = "122800"  # 40100 + 40900 + 41800: a number no document means for a balance


def balance_sheet(tmp_path: Path, assets: str = "", sales: str = "") -> DomainProfile:
    path = tmp_path / "profile.toml"
    text = example_profile_path().read_text(encoding="utf-8")
    path.write_text(text + BALANCE_SHEET.format(assets=assets, sales=sales), encoding="utf-8")
    return load_profile(path)


def quarters_of(metric: str) -> list[Fact]:
    return [fact(metric, "ACME_HK", q, "2025", v, source_locator=f"q={q}") for q, v in BALANCES]


def ask_quarters(tmp_path: Path, question: str, metric: str, profile: DomainProfile) -> AgentResult:
    return ask(tmp_path, question, quarters_of(metric), profile)


@pytest.mark.parametrize(
    ("question", "metric", "opening"),
    [
        ("香港2025年前三季度总资产是多少", "TOTAL_ASSETS", "未计算：总资产是时点指标"),
        (
            "HK total assets 9M 2025",
            "TOTAL_ASSETS",
            "Not computed: Total assets is measured at a point in time",
        ),
        ("香港2025年1-9月客户存款", "DEPOSITS", "未计算：客户存款是时点指标"),
        (
            "Hong Kong customer deposits for the first nine months of 2025",
            "DEPOSITS",
            "Not computed: Customer deposits is measured",
        ),
        ("HK customer deposits YTD Q3 2025", "DEPOSITS", "Not computed: Customer deposits"),
    ],
)
def test_a_balance_over_a_part_of_a_year_is_never_summed(
    tmp_path: Path, question: str, metric: str, opening: str
) -> None:
    """Read from its name, a balance's quarter-end figures are shown, each with its source,
    and not added; the answer names the quarter whose figure is the balance at the end."""
    result = ask_quarters(tmp_path, question, metric, balance_sheet(tmp_path))
    assert result.answer.startswith(opening), result.answer
    assert "2025Q3" in result.answer.splitlines()[0]
    assert SUMMED not in numbers(result.answer)
    assert result.answer_kind is AnswerKind.PARTIAL
    assert {s.locator for s in result.sources} == {"q=Q1", "q=Q2", "q=Q3"}


@pytest.mark.parametrize(
    ("question", "metric", "unit"),
    [
        ("香港2022年至2024年累计内含价值", "EMBEDDED_VALUE", "USD_M"),
        ("cumulative HK embedded value from FY2022 to FY2024", "EMBEDDED_VALUE", "USD_M"),
        ("香港2022年至2024年累计代理人数量", "AGENT_COUNT", "COUNT"),
        ("HK cumulative agent count from FY2022 to FY2024", "AGENT_COUNT", "COUNT"),
    ],
)
def test_a_balance_over_a_range_of_years_is_never_summed(
    tmp_path: Path, question: str, metric: str, unit: str
) -> None:
    """The example profile declares embedded value and the agent count balances (the agents
    at each year end): a cumulative total over years is refused the same way, each year's
    figure shown."""
    figures = ((2022, 10650.0), (2023, 11400.0), (2024, 12500.0))
    years = [fact(metric, "ACME_HK", "FY", str(y), v, unit=unit) for y, v in figures]
    result = ask(tmp_path, question, years)
    assert result.answer.startswith(("未计算", "Not computed")), result.answer
    assert "34550" not in numbers(result.answer)
    assert {"10650", "11400", "12500"} <= set(numbers(result.answer))


def test_a_count_declared_a_flow_is_summed_over_years(tmp_path: Path) -> None:
    harbour = load_profile(example_profile_path().with_name("harbour.toml"))
    trips = [
        fact("PASSENGERS", "HLH_FERRY", "FY", str(y), v, unit="COUNT")
        for y, v in ((2023, 900.0), (2024, 950.0))
    ]
    result = ask(tmp_path, "cumulative ferry passenger trips from FY2023 to FY2024", trips, harbour)
    assert numbers(result.answer.splitlines()[0])[-1] == "1850", result.answer


def test_a_declared_flow_is_summed_whatever_its_name(tmp_path: Path) -> None:
    profile = balance_sheet(tmp_path, assets='nature = "flow"')
    result = ask_quarters(tmp_path, "HK total assets 9M 2025", "TOTAL_ASSETS", profile)
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(result.answer.splitlines()[0])[-1] == SUMMED


def test_a_declared_balance_is_not_summed_whatever_its_name(tmp_path: Path) -> None:
    # Net sales reads as a flow and is summed until the profile says otherwise.
    flow = ask_quarters(
        tmp_path / "a", "香港2025年前三季度销售净额", "NET_SALES", balance_sheet(tmp_path)
    )
    assert numbers(flow.answer.splitlines()[0])[-1] == SUMMED
    profile = balance_sheet(tmp_path, sales='nature = "balance"')
    result = ask_quarters(tmp_path / "b", "香港2025年前三季度销售净额", "NET_SALES", profile)
    assert result.answer.startswith("未计算：销售净额是时点指标"), result.answer
    assert SUMMED not in numbers(result.answer)


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("香港2025年前三季度浮存金", "未计算：配置未说明浮存金"),
        ("HK policy float for the first three quarters of 2025", "Not computed: the profile"),
    ],
)
def test_an_amount_of_unknown_nature_is_not_summed(
    tmp_path: Path, question: str, opening: str
) -> None:
    """Neither a flow word nor a balance word in its names: it may be a balance, so its
    quarters are shown and not added until the profile declares it."""
    result = ask_quarters(tmp_path, question, "FLOAT", balance_sheet(tmp_path))
    assert result.answer.startswith(opening), result.answer
    assert SUMMED not in numbers(result.answer)
