"""A change of one figure against the right base: quarter-on-quarter (环比, sequential) over
the period just before, year-on-year (同比) over the same period a year earlier, both when both
are asked — and, when the base is missing, a line saying so, never the other base instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind, ChangeBase
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.periods import Period
from ragspine.storage.fact_store import Fact, FactStore
from tests.agent.test_analysis_cues import REF, parse
from tests.agent.test_analyst import ask, numbers
from tests.facts import fact

# Hong Kong NBV by quarter: Q3 2025 is 401, the quarter before 381, a year before 352.
QUARTERS = {("2025", "Q3"): 401.0, ("2025", "Q2"): 381.0, ("2024", "Q3"): 352.0}
# Mainland China's: 127 in Q3 2025, 118 the quarter before, 100 a year before.
CN_QUARTERS = {("2025", "Q3"): 127.0, ("2025", "Q2"): 118.0, ("2024", "Q3"): 100.0}


def quarters(**drop: bool) -> list[Fact]:
    return [
        fact("NBV", "ACME_HK", kind, year, value, source_locator=f"{year}{kind}")
        for (year, kind), value in QUARTERS.items()
        if not drop.get(f"q{kind[1]}_{year}")
    ]


def follow(tmp_path: Path, previous: str, question: str, facts: list[Fact]) -> AgentResult:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(facts)
    result = answer_question(
        question, store, MockProvider(), reference_date=REF, previous=[previous]
    )
    assert fabricated_numbers(result, allowed_values=[f.value for f in facts]) == []
    return result


@pytest.mark.parametrize(
    ("period", "before"),
    [
        (Period(2025, "Q3"), Period(2025, "Q2")),
        (Period(2025, "Q1"), Period(2024, "Q4")),
        (Period(2025, "H2"), Period(2025, "H1")),
        (Period(2025, "H1"), Period(2024, "H2")),
        (Period(2025, "FY"), Period(2024, "FY")),
    ],
)
def test_the_preceding_period_is_the_one_just_before_of_the_same_length(
    period: Period, before: Period
) -> None:
    assert period.preceding() == before


@pytest.mark.parametrize(
    ("question", "base"),
    [
        ("Quarter-on-quarter growth of HK NBV in Q3 2025", ChangeBase.PRECEDING),
        ("HK NBV QoQ change in Q3 2025", ChangeBase.PRECEDING),
        ("HK NBV in Q3 2025 vs the previous quarter", ChangeBase.PRECEDING),
        ("香港2025年第三季度新业务价值环比增长", ChangeBase.PRECEDING),
        ("香港2025年第三季度新业务价值较上季度增长多少", ChangeBase.PRECEDING),
        ("香港2025年第三季度新业务价值同比和环比增长", ChangeBase.BOTH),
        ("2025年第三季度香港新业务价值同比增长", ChangeBase.YEAR),
        ("HK NBV growth in Q3 2025", ChangeBase.YEAR),
    ],
)
def test_the_words_name_the_base_of_the_change(question: str, base: ChangeBase) -> None:
    intent = parse(question)
    assert intent.growth
    assert intent.change_base is base
    assert intent.periods == (Period(2025, "Q3"),)  # "the previous quarter" is no period asked


@pytest.mark.parametrize(
    "question",
    [
        "Quarter-on-quarter growth of HK NBV in Q3 2025",
        "HK NBV in Q3 2025 vs the previous quarter",
        "香港2025年第三季度新业务价值环比增长",
        "香港2025年第三季度新业务价值较上季度增长多少",
    ],
)
def test_a_quarter_on_quarter_change_is_over_the_quarter_before(
    tmp_path: Path, question: str
) -> None:
    result = ask(tmp_path, question, quarters())
    assert result.answer_kind is AnswerKind.FOUND
    last = result.answer.splitlines()[-1]
    assert "2025Q2" in last and "2024Q3" not in last
    assert numbers(last)[-2:] == ["20", "5.25"]  # 401 - 381, over 381
    assert "352" not in numbers(result.answer)


def test_a_missing_preceding_quarter_is_said_never_replaced_by_a_year_earlier(
    tmp_path: Path,
) -> None:
    result = ask(tmp_path, "香港2025年第三季度新业务价值环比增长", quarters(q2_2025=True))
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "2025Q2" in result.answer.splitlines()[-1]
    assert not {"49", "13.92", "352"} & set(numbers(result.answer))


def test_both_bases_asked_give_both_changes(tmp_path: Path) -> None:
    result = ask(tmp_path, "香港2025年第三季度新业务价值同比和环比增长", quarters())
    lines = result.answer.splitlines()
    assert "2025Q2" in lines[-2] and numbers(lines[-2])[-2:] == ["20", "5.25"]
    assert "2024Q3" in lines[-1] and numbers(lines[-1])[-2:] == ["49", "13.92"]


def test_a_year_on_year_change_is_over_the_same_quarter_a_year_earlier(tmp_path: Path) -> None:
    result = ask(tmp_path, "2025年第三季度香港新业务价值同比增长", quarters())
    last = result.answer.splitlines()[-1]
    assert "2024Q3" in last and numbers(last)[-2:] == ["49", "13.92"]


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        ("香港2025年第三季度新业务价值是多少", "环比呢？"),
        ("What was HK NBV in Q3 2025?", "and quarter-on-quarter growth?"),
    ],
)
def test_a_follow_up_asking_quarter_on_quarter_is_over_the_quarter_before(
    tmp_path: Path, previous: str, question: str
) -> None:
    result = follow(tmp_path, previous, question, quarters())
    last = result.answer.splitlines()[-1]
    assert "2025Q2" in last and numbers(last)[-2:] == ["20", "5.25"]


def test_a_follow_up_on_another_unit_keeps_the_quarter_on_quarter_base(tmp_path: Path) -> None:
    cn = [
        fact("NBV", "ACME_CN", kind, year, value, source_locator=f"cn{year}{kind}")
        for (year, kind), value in CN_QUARTERS.items()
    ]
    result = follow(tmp_path, "香港2025年第三季度新业务价值环比增长", "那中国内地呢？", cn)
    last = result.answer.splitlines()[-1]
    assert "2025Q2" in last and numbers(last)[-2:] == ["9", "7.63"]  # 127 - 118, over 118
    assert "100" not in numbers(result.answer)
