""" "The latest quarter" / "最近半年" is the latest such period with figures for what is asked,
said in the answer; never "no period given" answered with the latest full year.

Found by the probe: "What was HK revenue in the latest quarter?" and "香港最近一个季度的新业务价值"
were answered with FY2025's figure. Each test writes its own facts.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.parse import parse_intent
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.storage.fact_store import Fact, FactStore
from tests.agent.test_analyst import ask, numbers
from tests.facts import fact
from tests.profiles import acme

REF = date(2026, 11, 26)
FULL_YEAR = 3105.0


def hk_revenue() -> list[Fact]:
    return [
        fact("REVENUE", "ACME_HK", "Q2", "2025", 762, source_locator="q2"),
        fact("REVENUE", "ACME_HK", "Q3", "2025", 790, source_locator="q3"),
        fact("REVENUE", "ACME_HK", "Q3", "2024", 718, source_locator="q3-2024"),
        fact("REVENUE", "ACME_HK", "H1", "2025", 1512, source_locator="h1"),
        fact("REVENUE", "ACME_HK", "H1", "2024", 1398, source_locator="h1-2024"),
        fact("REVENUE", "ACME_HK", "FY", "2025", FULL_YEAR, source_locator="fy"),
        fact("REVENUE", "ACME_MO", "Q2", "2025", 110, source_locator="mo-q2"),
        fact("REVENUE", "ACME_MO", "FY", "2025", 446, source_locator="mo-fy"),
    ]


@pytest.mark.parametrize(
    ("question", "value", "label"),
    [
        ("What was HK revenue in the latest quarter?", "790", "2025Q3"),
        ("Hong Kong revenue, most recent quarter", "790", "2025Q3"),
        ("香港最近一个季度的收入", "790", "2025Q3"),
        ("香港最新一个季度收入", "790", "2025Q3"),
        ("What was Hong Kong revenue in the most recent half year?", "1512", "2025H1"),
        ("Hong Kong revenue in the latest half year", "1512", "2025H1"),
        ("香港最近半年的收入", "1512", "2025H1"),
        ("香港最新半年度收入", "1512", "2025H1"),
    ],
)
def test_the_latest_quarter_or_half_with_figures_answers(
    tmp_path: Path, question: str, value: str, label: str
) -> None:
    result = ask(tmp_path, question, hk_revenue())
    assert result.answer_kind is AnswerKind.FOUND
    note, figure = result.answer.splitlines()[:2]
    assert label in note and note.startswith(("[Assumption]", "【假设】"))
    assert value in numbers(figure) and label in figure
    assert str(int(FULL_YEAR)) not in numbers(result.answer)
    assert [s.locator for s in result.sources] == [{"2025Q3": "q3", "2025H1": "h1"}[label]]


def test_a_quarter_after_the_reference_date_is_not_the_latest(tmp_path: Path) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(hk_revenue())
    result = answer_question(
        "HK revenue in the latest quarter", store, MockProvider(), reference_date=date(2025, 8, 1)
    )
    assert "762" in numbers(result.answer) and "2025Q2" in result.answer


@pytest.mark.parametrize(
    "question", ["What was Group revenue in the latest quarter?", "集团最近一个季度的收入"]
)
def test_no_quarter_with_figures_is_asked_never_the_year(tmp_path: Path, question: str) -> None:
    facts = [fact("REVENUE", "ACME_GROUP", "FY", "2025", 4987)]
    result = ask(tmp_path, question, facts)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert numbers(result.answer) == []


def test_units_whose_latest_quarters_differ_are_asked_about(tmp_path: Path) -> None:
    result = ask(tmp_path, "Hong Kong and Macau revenue in the latest quarter", hk_revenue())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "2025Q3" in result.answer and "2025Q2" in result.answer
    assert not {"790", "110", "3105", "446"} & set(numbers(result.answer))


@pytest.mark.parametrize(
    "question",
    [
        "HK revenue in the latest quarter of 2025",  # another period beside it
        "香港最近三个季度的收入",  # several periods
        "HK revenue over the last three quarters",
    ],
)
def test_a_latest_period_that_cannot_be_read_alone_is_asked_about(question: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert intent.latest is None
    assert intent.unknown_periods


def test_a_follow_up_for_the_latest_quarter_takes_no_year_from_before(tmp_path: Path) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(hk_revenue())
    for question, previous in [
        ("And Hong Kong in the latest quarter?", "What was Macau revenue in FY2025?"),
        ("那香港最近一个季度呢？", "澳门2025年收入是多少"),
    ]:
        result = answer_question(
            question, store, MockProvider(), reference_date=REF, previous=[previous]
        )
        assert "790" in numbers(result.answer), result.answer
        assert "3105" not in numbers(result.answer)
        assert any("2025Q3" in line for line in result.answer.splitlines()[:2])


@pytest.mark.parametrize(
    ("question", "label"),
    [("What was Group revenue in the latest year?", "FY2025"), ("集团最新一年的收入", "FY2025")],
)
def test_the_latest_year_is_the_latest_complete_fiscal_year(question: str, label: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert [p.label for p in intent.periods] == [label]


def test_a_unit_with_no_such_period_is_not_found_for_the_others_latest(tmp_path: Path) -> None:
    facts = [*hk_revenue(), fact("REVENUE", "ACME_GROUP", "FY", "2025", 4987)]
    result = ask(tmp_path, "Hong Kong and Group revenue in the latest quarter", facts)
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "790" in numbers(result.answer)
    assert not {"3105", "4987"} & set(numbers(result.answer))
    assert "Group" in result.answer and "2025Q3" in result.answer.splitlines()[0]


# Follow-ups to "the latest quarter", and "the latest quarter" as a follow-up. Found by the
# probe: "And Macau?" after "HK revenue in the latest quarter" was answered with Macau's FY2025
# figure, and "那最近一个季度呢？" after a year's figure found no passage.
MACAU_Q3 = fact("REVENUE", "ACME_MO", "Q3", "2025", 120, source_locator="mo-q3")


def follow(tmp_path: Path, facts: list[Fact], question: str, *previous: str) -> AgentResult:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(facts)
    return answer_question(question, store, MockProvider(), reference_date=REF, previous=previous)


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("And Macau?", "What was HK revenue in the latest quarter?"),
        ("澳门呢？", "香港最近一个季度的收入"),
    ],
)
def test_a_follow_up_naming_an_entity_keeps_the_latest_quarter(
    tmp_path: Path, question: str, previous: str
) -> None:
    result = follow(tmp_path, [*hk_revenue(), MACAU_Q3], question, previous)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert "120" in numbers(result.answer) and "446" not in numbers(result.answer)
    assert "2025Q3" in result.answer.splitlines()[-1]
    assert [s.locator for s in result.sources] == ["mo-q3"]


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("And Macau?", "What was HK revenue in the latest quarter?"),
        ("澳门呢？", "香港最近一个季度的收入"),
    ],
)
def test_a_follow_up_whose_latest_quarter_is_another_is_asked(
    tmp_path: Path, question: str, previous: str
) -> None:
    # Macau's latest quarter with figures is 2025Q2, the answer before was for 2025Q3
    result = follow(tmp_path, hk_revenue(), question, previous)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "2025Q3" in result.answer and "2025Q2" in result.answer
    assert not {"110", "446", "790", "3105"} & set(numbers(result.answer))


def test_a_follow_up_with_no_such_period_is_not_found_for_the_one_before(
    tmp_path: Path,
) -> None:
    result = follow(tmp_path, hk_revenue(), "澳门呢？", "香港最近半年的收入")
    assert result.answer_kind is AnswerKind.NOT_FOUND
    assert "2025H1" in result.answer
    assert not {"110", "446", "1512"} & set(numbers(result.answer))


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("and the latest quarter?", "What was HK revenue in FY2025?"),
        ("那最近一个季度呢？", "香港2025年收入是多少"),
        ("最新一个季度呢", "香港2025年收入是多少"),
    ],
)
def test_the_latest_quarter_as_a_follow_up_keeps_the_metric_and_entity(
    tmp_path: Path, question: str, previous: str
) -> None:
    result = follow(tmp_path, hk_revenue(), question, previous)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert "790" in numbers(result.answer) and "3105" not in numbers(result.answer)
    assert any("2025Q3" in line for line in result.answer.splitlines()[:2])


def test_the_latest_quarter_is_carried_over_two_follow_ups(tmp_path: Path) -> None:
    facts = [*hk_revenue(), MACAU_Q3]
    previous = ("What was HK revenue in the latest quarter?", "And Macau?")
    result = follow(tmp_path, facts, "And in the previous quarter?", *previous)
    assert "446" not in numbers(result.answer) and "3105" not in numbers(result.answer)
    result = follow(tmp_path, facts, "And net profit?", *previous)
    assert "446" not in numbers(result.answer)
    assert result.answer_kind is AnswerKind.NOT_FOUND and "2025Q3" in result.answer


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("And the previous quarter?", "What was HK revenue in the latest quarter?"),
        ("上个季度呢？", "香港最近一个季度的收入"),
    ],
)
def test_a_step_back_is_counted_from_the_latest_quarter_answered(
    tmp_path: Path, question: str, previous: str
) -> None:
    # Found by the probe: the step was asked about ("the previous question named no period")
    # although that question had been answered for 2025Q3.
    result = follow(tmp_path, hk_revenue(), question, previous)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert "762" in numbers(result.answer) and "790" not in numbers(result.answer)
    assert [s.locator for s in result.sources] == ["q2"]


def test_a_second_step_is_counted_from_the_first(tmp_path: Path) -> None:
    previous = ("What was HK revenue in the latest quarter?", "And the previous quarter?")
    result = follow(tmp_path, hk_revenue(), "And the quarter before?", *previous)
    # 2025Q1 has no figure here: not found for it, never 2025Q2's or 2025Q3's
    assert result.answer_kind is AnswerKind.NOT_FOUND, result.answer
    assert "2025Q1" in result.answer
    assert not {"762", "790", "3105"} & set(numbers(result.answer))


def test_a_step_after_a_latest_quarter_that_was_asked_back_is_asked(tmp_path: Path) -> None:
    # Hong Kong's latest quarter is 2025Q3, Macau's 2025Q2: the first turn was asked back, so
    # there is no period to count from.
    previous = "What was revenue of Hong Kong and Macau in the latest quarter?"
    result = follow(tmp_path, hk_revenue(), "And the previous quarter?", previous)
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert not {"110", "762", "790"} & set(numbers(result.answer))
