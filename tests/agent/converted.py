"""What the tests of currency conversion and rescaling share: a fact store of their own facts,
and a question that must be answered with no number its facts (times a declared rate of the
example profile, at the scale asked) do not account for."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.storage.fact_store import FactStore
from ragspine.storage.facts import Fact
from tests.profiles import acme

REF = date(2026, 11, 26)


def fact_store(path: Path, facts: Sequence[Fact]) -> FactStore:
    built = FactStore(path)
    built.init_schema()
    built.upsert_facts(list(facts))
    return built


def ask_found(store: FactStore, question: str, values: Sequence[float]) -> AgentResult:
    """The answer, checked found and free of fabricated numbers against ``values``."""
    result = answer_question(question, store, MockProvider(), reference_date=REF)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    rates = acme().exchange_rates
    assert fabricated_numbers(result, allowed_values=values, exchange_rates=rates) == [], (
        result.answer
    )
    return result
