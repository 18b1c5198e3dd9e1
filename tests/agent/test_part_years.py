"""A part of a year ("2025年前三季度", "first nine months of 2025", "YTD Q3 2025") is the sum of
its quarters, computed only when every quarter's figure is found and the metric adds up.

Found by the probe: such questions were asked back with FY2025 / FY2024 offered, neither the
period asked; a full year's figure must never answer them. Each test writes its own facts, so
the sums are known before the agent runs.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.parse import parse_intent
from ragspine.agent.types import AnalysisOp, AnswerKind
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


@pytest.mark.parametrize(
    "question",
    [
        "How many agents did Hong Kong have in the first three quarters of 2025?",
        "香港2025年前三季度收入同比增长",
    ],
)
def test_a_count_or_a_change_over_a_part_of_a_year_is_not_computed(question: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert intent.analysis is not None and intent.analysis.op is AnalysisOp.UNSUPPORTED
    assert intent.unknown_periods == ()


def test_a_part_of_a_year_follows_the_fiscal_calendar() -> None:
    """Under a March year end, "first six months of FY2025" is FY2025's Q1 and Q2; calendar
    January to September 2025 straddles two fiscal years and is asked about."""
    intent = parse_intent("Bookings for the first six months of FY2025", REF, profile=initech())
    assert intent.periods == (Period(2025, "Q1"), Period(2025, "Q2"))
    intent = parse_intent("2025年1-9月订单额", REF, profile=initech())
    assert intent.periods == ()
    assert intent.unknown_periods == ("2025年1-9月",)
