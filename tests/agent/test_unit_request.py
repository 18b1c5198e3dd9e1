"""Scale and currency on request: a found amount rescaled by code within its currency, with
its source; a conversion refused with the reason; nothing silently ignored. Expected figures
are the test's own facts shifted by the asked power of ten, never the engine's output."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind, FoundFact
from ragspine.agent.unit_request import find_unit_request
from ragspine.eval.answer_values import stated_values
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.display import plain_number
from tests.agent.helpers import CountingStore

REF = date(2026, 11, 26)
HK_2024 = 2210.5  # STANDARD_FACTS: REVENUE / ACME_HK / FY2024, USD_M
HK_2025 = 2480.0


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(store: CountingStore, question: str) -> AgentResult:
    return answer_question(question, store, MockProvider(), reference_date=REF)


def shifted(value: float, power: int) -> str:
    return format(Decimal(repr(value)).scaleb(power).normalize(), "f")


@pytest.mark.parametrize(
    ("question", "scale", "currency"),
    [
        ("What was Hong Kong's revenue in FY2024 in billions?", 9, None),
        ("Hong Kong revenue FY2024, in thousands", 3, None),
        ("Hong Kong revenue FY2024 in USD millions", 6, "USD"),
        ("Hong Kong revenue FY2024 in billions of euros", 9, "EUR"),
        ("What was Hong Kong's revenue in FY2024 in euros?", None, "EUR"),
        ("Hong Kong revenue FY2024 converted to Japanese yen", None, "JPY"),
        ("香港FY2024的收入是多少，以亿元计", 8, None),
        ("香港FY2024收入（以百万元计）", 6, None),
        ("香港FY2024收入以亿欧元计", 8, "EUR"),
        ("香港FY2024收入换算成欧元是多少", None, "EUR"),
        ("Hong Kong revenue FY2024 in billions of euros.", 9, "EUR"),
        ("Macau revenue FY2024 in yen!", None, "JPY"),
        ("澳门FY2024收入换算成几亿欧元", 8, "EUR"),
        ("澳门FY2024收入折合多少日元？", None, "JPY"),
        ("香港FY2024收入，单位：万元", 4, None),
        # Found by a probe: written bare at the end, with no lead word, each was dropped
        # silently (the figure answered in its reported currency and scale, nothing said).
        ("Mainland China net profit 2024 hkd", None, "HKD"),
        ("HK 2025 revenue HK$ bn", 9, "HKD"),
        ("Hong Kong revenue FY2024, EUR", None, "EUR"),
        ("HK revenue FY2025 bn?", 9, None),
        ("香港2025年收入 港元", None, "HKD"),
        ("香港2025年收入（亿港元）", 8, "HKD"),
    ],
)
def test_a_request_is_read_in_either_language(
    question: str, scale: int | None, currency: str | None
) -> None:
    found = find_unit_request(question, "USD")
    assert found is not None
    assert (found.scale, found.currency) == (scale, currency)


@pytest.mark.parametrize(
    "question",
    [
        "What was Hong Kong's revenue in FY2024?",
        "Revenue in Hong Kong in all channels in FY2024",
        "香港FY2024收入以及营运利润",
        "香港FY2024按渠道的新业务价值",
        "What was the top line in FY2024?",
        # A figure stated in the question, not a scale or currency asked for.
        "Was Hong Kong revenue 3.1 bn in FY2025?",
        "香港2025年收入是3105百万美元吗",
        "Hong Kong revenue FY2025 dollars",  # a currency's name, not its code: may be a word
    ],
)
def test_no_request_where_none_is_made(question: str) -> None:
    assert find_unit_request(question, "USD") is None


@pytest.mark.parametrize(
    ("question", "power", "unit"),
    [
        ("What was Hong Kong's revenue in FY2024 in billions?", -3, "USD_B"),
        ("What was Hong Kong's revenue in FY2024 in thousands?", 3, "USD_K"),
        ("香港FY2024的收入是多少，以亿元计", -2, "USD_E8"),
    ],
)
def test_an_amount_is_rescaled_with_its_source(
    store: CountingStore, question: str, power: int, unit: str
) -> None:
    result = ask(store, question)
    assert result.answer_kind is AnswerKind.FOUND
    _, rescaled = result.answer.splitlines()
    (fact,) = result.tool_results
    assert isinstance(fact, FoundFact) and fact.value == HK_2024
    wanted = float(shifted(HK_2024, power))
    assert (wanted, unit) in [(s.value, s.unit) for s in stated_values(rescaled)]
    assert fact.source.doc in rescaled and fact.source.locator in rescaled
    assert fabricated_numbers(result, allowed_values=[HK_2024]) == []
    # The check is not blind: another number in the rescaled line is flagged.
    other = plain_number(float(shifted(HK_2024 + 1, power)))
    tampered = replace(result, answer=result.answer.replace(plain_number(wanted), other))
    assert tampered.answer != result.answer
    assert fabricated_numbers(tampered, allowed_values=[HK_2024]) != []


def test_every_year_of_a_list_is_rescaled(store: CountingStore) -> None:
    result = ask(store, "香港FY2024和FY2025的收入，以十亿元计")
    stated = [(s.value, s.unit) for s in stated_values(result.answer)]
    assert (float(shifted(HK_2024, -3)), "USD_B") in stated
    assert (float(shifted(HK_2025, -3)), "USD_B") in stated
    assert fabricated_numbers(result, allowed_values=[HK_2024, HK_2025]) == []


def test_a_currency_conversion_is_refused_with_the_reason(store: CountingStore) -> None:
    result = ask(store, "What was Hong Kong's revenue in FY2024 in euros?")
    lines = result.answer.splitlines()
    assert lines[-1] == (
        "Not converted into EUR: no exchange rate is declared in the profile, so the figures "
        "stay in USD as reported."
    )
    assert fabricated_numbers(result, allowed_values=[HK_2024]) == []
    zh = ask(store, "香港FY2024收入换算成欧元是多少")
    assert zh.answer.splitlines()[-1].startswith("未换算为 EUR：配置中未声明汇率")


def test_a_request_in_the_reporting_currency_changes_nothing(store: CountingStore) -> None:
    plain = ask(store, "What was Hong Kong's revenue in FY2024?")
    assert ask(store, "What was Hong Kong's revenue in FY2024 in US dollars?").answer == (
        plain.answer
    )


def test_a_percentage_is_not_rescaled_and_says_so(store: CountingStore) -> None:
    result = ask(store, "Hong Kong NBV margin FY2024 in billions")
    assert result.answer.splitlines()[-1] == (
        "Not rescaled: NBV margin is not an amount of money, so it has no scale."
    )


def test_a_currency_code_is_not_read_as_an_unknown_entity(store: CountingStore) -> None:
    result = ask(store, "What was Hong Kong's revenue in FY2024 in EUR?")
    assert result.answer_kind is AnswerKind.FOUND
    assert "Not converted into EUR" in result.answer
