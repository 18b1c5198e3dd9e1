"""A word one typo away from a metric's or an entity's name ("revnue", "operting profit",
"hong kng", "营运利闰") is asked about — "did you mean …?" — never answered with the corrected
name's figure, nor sent to prose that quotes another entity's figures (a probe's D6, D9, D14).
Ordinary words near a name are left alone. The names expected are the example profile's
(``profile/data/acme.toml``) and Initech's (``tests/data/initech.toml``), read by hand."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.messages import en, zh
from ragspine.agent.parse import parse_intent
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode, ClarifyReason
from tests.agent.helpers import CountingStore
from tests.profiles import acme, initech

REF = date(2026, 11, 26)
HK_FIGURES = ("2,210.5", "2,480", "610")  # STANDARD_FACTS: Hong Kong's revenue and OP


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def ask(store: CountingStore, question: str, previous: tuple[str, ...] = ()) -> AgentResult:
    return answer_question(
        question, store, MockProvider(), reference_date=REF, previous=list(previous)
    )


def misses(question: str) -> list[tuple[str, str, tuple[str, ...]]]:
    intent = parse_intent(question, REF, profile=acme())
    return [(m.typed, m.kind, m.codes) for m in intent.near_misses]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("hong kong revnue 2025", [("revnue", "metric", ("REVENUE",))]),
        ("Hong Kong reveune 2025", [("reveune", "metric", ("REVENUE",))]),  # two letters swapped
        ("Hong Kong operting profit 2025", [("operting profit", "metric", ("OPERATING_PROFIT",))]),
        # "value" is a cue word too: written exactly, it still anchors the name
        ("Hong Kong embeded value 2025", [("embeded value", "metric", ("EMBEDDED_VALUE",))]),
        ("香港2025年营运利闰", [("营运利闰", "metric", ("OPERATING_PROFIT",))]),
        ("中国内地2025年营运利闰是多少", [("营运利闰", "metric", ("OPERATING_PROFIT",))]),
        ("香港2025年内含价植", [("内含价植", "metric", ("EMBEDDED_VALUE",))]),
        # the longer name wins: a margin asked, not the profit
        ("香港2025年营运利闰率", [("营运利闰率", "metric", ("OPERATING_MARGIN",))]),
        ("What was Hong Kng revenue in 2025?", [("Hong Kng", "entity", ("ACME_HK",))]),
        (
            "hong kng revnue fy25",
            [("hong kng", "entity", ("ACME_HK",)), ("revnue", "metric", ("REVENUE",))],
        ),
        # one character from 营业收入 and from 营业利润: both are offered
        ("香港2025年营业利入", [("营业利入", "metric", ("REVENUE", "OPERATING_PROFIT"))]),
        # listed beside a metric spelt right: asked about, not dropped
        ("Hong Kong revenue and net proift 2025", [("net proift", "metric", ("NET_PROFIT",))]),
        (
            "Hong Kong operting profit & revenue 2025",
            [("operting profit", "metric", ("OPERATING_PROFIT",))],
        ),
        (
            "Hong Kong revenue, embeded value 2025",
            [("embeded value", "metric", ("EMBEDDED_VALUE",))],
        ),
        ("香港2025年营收和营运利闰", [("营运利闰", "metric", ("OPERATING_PROFIT",))]),
        ("香港2025年营运利闰及营收", [("营运利闰", "metric", ("OPERATING_PROFIT",))]),
    ],
)
def test_a_word_one_typo_from_a_name_is_a_near_miss(
    question: str, expected: list[tuple[str, str, tuple[str, ...]]]
) -> None:
    assert misses(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "香港2025年毛利润",  # another measure than 净利润: a dictionary word
        "香港2025年内含价格",  # "价格" is a word, not a slip for "价值"
        "香港2025年总收益",  # "收益" is a word
        "Hong Kong ROA 2025",  # a name under five letters is never corrected (ROE)
        "What is the target for Hong Kong's agent force in 2026?",  # "agents" in the singular
        "What was HK revenue per agent in 2025?",  # names its metric: not searched for another
        "How did the macro environment affect Hong Kong?",  # names its entity ("Macao")
        "What is the share of profit of Hong Kong in 2025?",  # "of" is no typo of "op"
        "Macao revenue FY2025",  # an alias, written exactly
        "到2026年底香港代理人队伍的目标人数",  # "队伍" is a word: no slip for 代理人数
        "Hong Kong new business volume in FY2025",  # "volume" is two edits from "value"
        "Hong Kong net profits 2025",  # a plural is the metric itself (profile.matching)
        "Hong Kong revenue and revenues 2025",  # listed, but a plural is no typo
        "Hong Kong revenue brand value 2025",  # names its metric, and nothing is listed
    ],
)
def test_an_ordinary_word_near_a_name_is_no_near_miss(question: str) -> None:
    assert misses(question) == []


def test_another_profile_s_names_are_read() -> None:
    intent = parse_intent("Worldwide bokings FY2024", REF, profile=initech())
    assert [(m.typed, m.codes) for m in intent.near_misses] == [("bokings", ("BOOKINGS",))]


@pytest.mark.parametrize(
    ("question", "option", "reason"),
    [
        ("hong kong revnue 2024", "Revenue (REVENUE)", ClarifyReason.MISSING_METRIC),
        ("Hong Kong operting profit 2024", "Operating profit (OPERATING_PROFIT)", None),
        ("香港2024年营运利闰", "营运利润（OPERATING_PROFIT）", None),
        ("What was Hong Kng revenue in FY2024?", "Hong Kong (ACME_HK)", None),
    ],
)
def test_a_near_miss_is_asked_about_and_no_figure_is_shown(
    store: CountingStore, question: str, option: str, reason: ClarifyReason | None
) -> None:
    result = ask(store, question)
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert result.clarification.mode is ClarifyMode.ASK_FIRST
    assert result.clarification.narrowing_options == (option,)
    assert option in result.answer
    if reason is not None:
        assert result.clarification.reason is reason
    assert store.get_calls == 0 and not result.sources
    assert not any(figure in result.answer for figure in HK_FIGURES), result.answer


@pytest.mark.parametrize(
    "question",
    ["What was Hong Kong revenue and net proift in FY2024?", "香港2024年营收和营运利闰是多少？"],
)
def test_a_misspelt_metric_listed_beside_another_is_asked_not_dropped(
    store: CountingStore, question: str
) -> None:
    # Answering the revenue alone would drop the second measure asked for without a word.
    result = ask(store, question)
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert store.get_calls == 0 and not result.sources
    assert not any(figure in result.answer for figure in HK_FIGURES), result.answer


def test_an_entity_near_miss_is_asked_as_an_entity(store: CountingStore) -> None:
    result = ask(store, "What was Hong Kng revenue in FY2024?")
    assert result.clarification.reason is ClarifyReason.UNKNOWN_ENTITY


def test_several_close_names_are_all_offered(store: CountingStore) -> None:
    result = ask(store, "香港2024年营业利入")
    assert result.clarification.narrowing_options == (
        "收入（REVENUE）",
        "营运利润（OPERATING_PROFIT）",
    )
    assert result.answer == (
        "无法识别「营业利入」，未按猜测作答。请问您是指收入（REVENUE）还是营运利润（OPERATING_PROFIT）？"
    )


def test_a_follow_up_with_a_near_miss_asks_instead_of_reusing_the_metric(
    store: CountingStore,
) -> None:
    result = ask(store, "and its operting profit?", ("What was Hong Kong revenue in FY2024?",))
    assert result.answer_kind is AnswerKind.CLARIFY, result.answer
    assert "Operating profit (OPERATING_PROFIT)" in result.answer
    assert store.get_calls == 0


def test_the_question_names_each_word_and_its_names() -> None:
    assert en.did_you_mean([("revnue", ["Revenue (REVENUE)"])]) == (
        'I do not recognise "revnue", so I will not answer with a guess. '
        "Did you mean Revenue (REVENUE)?"
    )
    assert en.did_you_mean([("hong kng", ["Hong Kong (ACME_HK)"]), ("revnu", ["A", "B", "C"])]) == (
        'I do not recognise "hong kng", "revnu", so I will not answer with a guess. '
        'Did you mean Hong Kong (ACME_HK) for "hong kng"; A, B or C for "revnu"?'
    )
    assert zh.did_you_mean([("营运利闰", ["营运利润（OPERATING_PROFIT）"])]) == (
        "无法识别「营运利闰」，未按猜测作答。请问您是指营运利润（OPERATING_PROFIT）吗？"
    )
    assert zh.did_you_mean([("香巷地区", ["香港（ACME_HK）"]), ("营运利闰", ["甲", "乙"])]) == (
        "无法识别「香巷地区」、「营运利闰」，未按猜测作答。"
        "请问「香巷地区」是指香港（ACME_HK）；「营运利闰」是指甲还是乙？"
    )
