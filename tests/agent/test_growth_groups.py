"""A change asked of several figures at once: each figure against its own earlier period.

"revenue and net profit growth in FY2025", "香港和中国内地FY2025收入同比", "revenue and net profit,
FY2024 vs FY2025": every series gets its own change line, named by the series when there are
several, and a series whose figure or base is missing says so without borrowing another's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.compare import grouped_changes, yearly_changes
from ragspine.agent.messages import en, zh
from ragspine.agent.types import FoundFact, Slots, Source
from ragspine.profile.periods import Period
from tests.agent.helpers import CountingStore, ask_offline
from tests.facts import fact
from tests.profiles import acme

FY2024, FY2025 = Period(2024, "FY"), Period(2025, "FY")

FACTS = [
    fact("REVENUE", "ACME_HK", "FY", "2024", 100),
    fact("REVENUE", "ACME_HK", "FY", "2025", 120),
    fact("NET_PROFIT", "ACME_HK", "FY", "2024", 40),
    fact("NET_PROFIT", "ACME_HK", "FY", "2025", 30),
    fact("REVENUE", "ACME_CN", "FY", "2024", 80),
]


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db", FACTS)


ask = ask_offline


@pytest.mark.parametrize(
    "question",
    [
        "Hong Kong revenue and net profit growth in FY2025",
        "Hong Kong revenue and net profit YoY FY2025",
    ],
)
def test_a_change_of_two_metrics_gives_each_its_own_change(
    store: CountingStore, question: str
) -> None:
    result = ask(question, store)
    lines = result.answer.splitlines()
    assert [r.slots.period for r in result.tool_results] == [FY2025, FY2024, FY2025, FY2024]
    assert lines[-2:] == [
        "Hong Kong Revenue — Change (FY2025 vs FY2024): +US$ 20 m (+20.00%)",
        "Hong Kong Net profit — Change (FY2025 vs FY2024): -US$ 10 m (-25.00%)",
    ]
    assert "base period" not in result.answer


def test_a_unit_whose_figure_is_missing_gets_no_change_and_borrows_none(
    store: CountingStore,
) -> None:
    result = ask("香港和中国内地FY2025收入同比", store)
    lines = result.answer.splitlines()
    assert "香港 收入——变化（FY2025 较 FY2024）：+20 百万美元（+20.00%）" in lines
    assert any(line.startswith("查不到：收入 / 中国内地 / FY2025") for line in lines)
    # its base (80) is shown as found, but no change is computed for it or in its name
    assert not any(line.startswith("中国内地 收入——") for line in lines)
    assert "+40" not in result.answer and "-40" not in result.answer


def test_two_metrics_over_two_years_give_each_series_its_change(store: CountingStore) -> None:
    result = ask("Hong Kong revenue and net profit, FY2024 vs FY2025", store)
    lines = result.answer.splitlines()
    assert "Hong Kong Revenue — Change (FY2025 vs FY2024): +US$ 20 m (+20.00%)" in lines
    assert "Hong Kong Net profit — Change (FY2025 vs FY2024): -US$ 10 m (-25.00%)" in lines


def _found(metric: str, period: Period, value: float) -> FoundFact:
    return FoundFact(
        Slots(metric, "ACME_HK", period, "TOTAL"), value, "USD_M", Source("a.xlsx", "x")
    )


def test_only_a_change_built_on_a_figure_pending_review_is_provisional() -> None:
    facts = [
        _found("REVENUE", FY2025, 120),
        _found("REVENUE", FY2024, 100),
        _found("NET_PROFIT", FY2025, 30),
        _found("NET_PROFIT", FY2024, 40),
    ]
    tasks = [f.slots for f in facts]
    held = {facts[1].slots}  # last year's revenue has another value waiting in review
    grouped = grouped_changes(tasks, facts, 2, held, acme(), en, "en")
    yearly = yearly_changes(facts, acme(), zh, "zh", held)
    assert [
        line.endswith("(provisional: a figure it uses is pending review)") for line in grouped
    ] == [
        True,
        False,
    ]
    assert [line.endswith("（暂定：所依据的数值有待复核）") for line in yearly] == [True, False]
