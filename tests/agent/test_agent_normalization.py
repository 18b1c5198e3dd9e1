"""Questions with hidden, full-width or spaced characters, and alias spellings, answer right.

Each question reaches the real parser, gate and SQLite store through ``answer_question``; the
expected figures are the test store's own facts (``STANDARD_FACTS``).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, FactNotFound, FoundFact
from ragspine.profile.periods import Period
from tests.agent.helpers import CountingStore

REF = date(2026, 11, 26)


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(question: str, store: CountingStore) -> AgentResult:
    return answer_question(question, store, MockProvider(), reference_date=REF)


@pytest.mark.parametrize(
    ("question", "period", "value"),
    [
        ("香\u200b港FY2025收入是多少", 2025, 2480),
        ("香 港FY2025收入", 2025, 2480),
        ("ＡＣＭＥ ＨＫ revenue in FY2025?", 2025, 2480),
        ("What was HongKong revenue in FY2024?", 2024, 2210.5),
        ("What was HONGKONG revenue in FY2024?", 2024, 2210.5),
        ("what was hong  kong revenue in fy2024?", 2024, 2210.5),
        ("\u202eHK\u202c revenue FY２０２５", 2025, 2480),
    ],
)
def test_the_entity_and_period_are_read_through_the_disguise(
    question: str, period: int, value: float, store: CountingStore
) -> None:
    result = ask(question, store)
    assert result.answer_kind is AnswerKind.FOUND
    assert result.clarification.mode is ClarifyMode.NONE
    (found,) = result.tool_results
    assert isinstance(found, FoundFact)
    assert (found.slots.entity, found.slots.period, found.value) == (
        "ACME_HK",
        Period(period, "FY"),
        value,
    )


def test_full_width_digits_name_the_year_asked(store: CountingStore) -> None:
    result = ask("香港２０２３年收入是多少", store)
    (missing,) = result.tool_results
    assert isinstance(missing, FactNotFound)
    assert (missing.slots.entity, missing.slots.period) == ("ACME_HK", Period(2023, "FY"))
    assert "FY2023" in result.answer and "FY2025" not in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "Ｇｌｏｂｅｘ FY2025 revenue?",
        "竞\u200b安保险FY2025收入是多少",
        "竞 安保险FY2025收入是多少",
        "\u2066Globex\u2069 revenue in FY2025",
    ],
)
def test_a_disguised_competitor_is_refused_before_any_store_call(
    question: str, store: CountingStore
) -> None:
    result = ask(question, store)
    assert result.answer_kind is AnswerKind.REFUSED
    assert result.clarification.mode is ClarifyMode.OUT_OF_SCOPE_ENTITY
    assert result.tool_results == []
    assert store.get_calls == 0


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("aia revenue in fy2025", "aia"),
        ("What was Great Eastern revenue in FY2025?", "Great Eastern"),
    ],
)
def test_an_unknown_company_in_any_case_is_asked_about_as_one_name(
    question: str, unknown: str, store: CountingStore
) -> None:
    result = ask(question, store)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert result.intent is not None and result.intent.unknown_entities == (unknown,)
    assert unknown in result.answer
    assert store.get_calls == 0


def test_the_question_is_kept_as_typed_for_display(store: CountingStore) -> None:
    typed = "香\u200b港FY2025收入是多少"
    result = ask(typed, store)
    assert result.intent is not None and result.intent.raw_question == typed
