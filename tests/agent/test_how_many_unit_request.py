"""A scale or currency asked after "多少", "几" or "how many" ("是多少亿美元", "几亿港元", "how many
billion US dollars") is a request like "以亿美元计" or "in billions": read for every scale and
currency the reader knows, applied to the figure by code, and said when it cannot be. Unread, the
figure stayed in US$ m with no word about the scale asked (a probe's D10).

Expected figures are this file's facts shifted by the asked power of ten, or times the example
profile's declared USD→HKD rate (7.80 as of 31 December 2024, ``profile/data/acme.toml``),
written here by hand."""

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
    fact("EMBEDDED_VALUE", "ACME_HK", "FY", "2024", 12500),
    fact("NET_PROFIT", "ACME_GROUP", "FY", "2024", 1178),
    fact("NBV_MARGIN", "ACME_HK", "FY", "2024", 57.3),
]
VALUES = [f.value for f in FACTS]


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    return fact_store(tmp_path / "facts.db", FACTS)


def ask(store: FactStore, question: str) -> AgentResult:
    return ask_found(store, question, VALUES)


@pytest.mark.parametrize(
    ("question", "scale", "currency"),
    [
        ("香港FY2025内含价值是多少亿美元", 8, "USD"),
        ("集团2025年净利润是多少亿元", 8, None),
        ("澳门收入是多少万港元", 4, "HKD"),
        ("香港2024年营运利润是几亿港元", 8, "HKD"),
        ("集团收入有几十亿", 9, None),
        ("中国内地收入是多少千万人民币", 7, "CNY"),
        ("香港营运利润是多少港元", None, "HKD"),
        ("How many billion US dollars was Hong Kong embedded value in FY2025?", 9, "USD"),
        ("How many millions of HK dollars was Hong Kong operating profit?", 6, "HKD"),
        ("how many thousand euros was Macau revenue", 3, "EUR"),
        ("How many billions was Group revenue in FY2025?", 9, None),
        ("How many trillion yen is that", 12, "JPY"),
        ("How many HK dollars was Hong Kong revenue?", None, "HKD"),
    ],
)
def test_a_scale_or_currency_after_how_many_is_a_request(
    question: str, scale: int | None, currency: str | None
) -> None:
    found = find_unit_request(question, "USD")
    assert found is not None, question
    assert (found.scale, found.currency) == (scale, currency)


@pytest.mark.parametrize(
    "question",
    [
        "How many agents did Hong Kong have in FY2024?",
        "How many times larger was Hong Kong revenue than Macau's?",
        "香港收入增长了多少个百分点",
        "过去几年香港收入",
        "香港收入比澳门多多少",
        "香港2025年收入是多少",
    ],
)
def test_how_many_without_a_scale_or_currency_asks_for_none(question: str) -> None:
    assert find_unit_request(question, "USD") is None


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        # 12,500 m = 125 亿 = 12.5 bn
        ("香港FY2024内含价值是多少亿美元", "125 亿美元"),
        ("How many billion US dollars was Hong Kong embedded value in FY2024?", "US$ 12.5 bn"),
        # 1,178 m = 11.78 亿
        ("集团2024年净利润是多少亿美元", "11.78 亿美元"),
        # 12,500 m × 7.80 = 97,500 m HKD = 975 亿港元
        ("香港FY2024内含价值是几亿港元", "975 亿港元"),
    ],
)
def test_the_figure_is_shown_in_the_scale_asked(
    store: FactStore, question: str, shown: str
) -> None:
    result = ask(store, question)
    assert shown in result.answer, result.answer
    # The request's words are not read as names, and the cited figure keeps its line.
    assert result.intent is not None and not result.intent.unknown_entities
    assert "12,500" in result.answer or "1,178" in result.answer


def test_a_scale_that_does_not_apply_is_said(store: FactStore) -> None:
    result = ask(store, "How many billion US dollars was Hong Kong NBV margin in FY2024?")
    lines = result.answer.splitlines()
    assert "Not rescaled: NBV margin is not an amount of money, so it has no scale." in lines
    zh = ask(store, "香港FY2024新业务价值利润率是多少亿")
    assert "未换算单位：新业务价值利润率 不是金额，没有单位量级可换算。" in zh.answer.splitlines()


def test_a_currency_without_a_rate_is_said(store: FactStore) -> None:
    result = ask(store, "How many billion euros was Hong Kong embedded value in FY2024?")
    assert "Not converted into EUR" in result.answer, result.answer
