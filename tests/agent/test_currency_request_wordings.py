"""Two wordings of a currency request the parser once did not read (found by an independent
reader of held-out answers; these questions are new wordings, not held-out cases): an English
request closed by the sentence's full stop ("in HK dollars.") and a Chinese one with a question
word after its lead ("折合多少港元"). Unread, a request was dropped silently, which the
unit-request rule forbids ("a request is never silently dropped"), and its words could then be
read as names ("HK" as Hong Kong).

Expected figures are this file's facts times the example profile's declared USD→HKD rate
(7.80 as of 31 December 2024, ``profile/data/acme.toml``), written here by hand."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.types import AgentResult
from ragspine.agent.unit_request import find_unit_request
from ragspine.storage.fact_store import FactStore
from tests.agent.converted import ask_found, fact_store
from tests.facts import fact

REF = date(2026, 11, 26)
FACTS = [
    fact("REVENUE", "ACME_CN", "FY", "2024", 1320),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2850),
    fact("NET_PROFIT", "ACME_CN", "FY", "2024", 240),
    fact("NET_PROFIT", "ACME_HK", "FY", "2024", 610),
]
VALUES = [f.value for f in FACTS]
HK_FIGURES = ("2,850", "610")  # Hong Kong's: never asked below


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    return fact_store(tmp_path / "facts.db", FACTS)


def ask(store: FactStore, question: str) -> AgentResult:
    return ask_found(store, question, VALUES)


# Class 1: an English request closed by the sentence's full stop. ``_read_english`` looks the
# currency phrase up with the token as matched, "dollars." or "hkd." with its period, which no
# spelling equals; the request is dropped (a scale before it is kept: "in billions of HK
# dollars." rescales in US$), and "HK" of "HK dollars" is then read as the Hong Kong entity.
@pytest.mark.parametrize(
    ("question", "currency"),
    [
        ("Mainland China revenue FY2024 in HK dollars.", "HKD"),
        ("Please show Mainland China net profit for FY2024 in HKD.", "HKD"),
        ("Mainland China revenue FY2024 in euros.", "EUR"),
    ],
)
def test_an_english_request_closed_by_a_full_stop_is_read(
    store: FactStore, question: str, currency: str
) -> None:
    request = find_unit_request(question, "USD")
    assert request is not None and request.currency == currency
    result = ask(store, question)
    assert result.intent is not None and result.intent.entities == ("ACME_CN",)
    assert not any(figure in result.answer for figure in HK_FIGURES), result.answer
    if currency == "HKD":
        # 1,320 × 7.80 = 10,296; 240 × 7.80 = 1,872
        assert "HK$ 10,296 m" in result.answer or "HK$ 1,872 m" in result.answer
    else:
        assert "Not converted into EUR" in result.answer


# Class 2: a Chinese request with a question word between its lead and its currency
# ("折合多少港元", "换算成多少港元"). ``_zh_request`` wants the scale or currency right after the
# lead; the lead alone matches nothing and is passed over, so the figures stay in US$ with no
# word about the currency asked.
@pytest.mark.parametrize(
    ("question", "shown"),
    [
        # 1,320 × 7.80 = 10,296
        ("中国内地FY2024收入折合多少港元", "10,296 百万港元"),
        # 240 × 7.80 = 1,872
        ("中国内地2024财年净利润换算成多少港元？", "1,872 百万港元"),
        # 1,320 × 7.80 = 10,296 m = 102.96 亿
        ("中国内地FY2024收入折合多少亿港元", "102.96 亿港元"),
    ],
)
def test_a_chinese_request_with_a_question_word_is_read(
    store: FactStore, question: str, shown: str
) -> None:
    request = find_unit_request(question, "USD")
    assert request is not None and request.currency == "HKD"
    result = ask(store, question)
    assert shown in result.answer, result.answer
