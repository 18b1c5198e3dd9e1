"""The rule parser: four slots, listed values, route, competitors masked, unknown entities."""

from __future__ import annotations

from dataclasses import MISSING, fields
from datetime import date

import pytest

from ragspine.agent.intent import (
    ROUTE_COMPOSITE,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    IntentParser,
    ParsedIntent,
    RuleIntentParser,
    clarify_scope,
    detect_language,
    parse_intent,
)
from ragspine.agent.types import ClarifyReason, Route
from ragspine.profile.periods import Period
from tests.profiles import acme, initech

REF = date(2026, 11, 26)


def parse(question: str, day: date = REF) -> ParsedIntent:
    return parse_intent(question, day, profile=acme())


def test_four_slots_and_route_of_a_plain_question() -> None:
    intent = parse("香港FY2025代理人渠道的REVENUE是多少")
    assert intent.raw_question == "香港FY2025代理人渠道的REVENUE是多少"
    assert intent.route is ROUTE_STRUCTURED is Route.STRUCTURED
    assert (intent.metric, intent.entity, intent.period, intent.channel) == (
        "REVENUE",
        "ACME_HK",
        Period(2025, "FY"),
        "AGENCY",
    )
    assert intent.metrics == ("REVENUE",)
    assert intent.entities == ("ACME_HK",)
    assert intent.periods == (Period(2025, "FY"),)
    assert intent.external_entity is None
    assert intent.unknown_entities == ()


def test_unstated_slots_stay_empty() -> None:
    intent = parse("收入是多少")
    assert intent.metric == "REVENUE"
    assert (intent.entity, intent.period, intent.channel) == (None, None, None)
    assert (intent.entities, intent.periods) == ((), ())


def test_listed_values_are_kept_in_the_order_asked() -> None:
    intent = parse("澳门、香港和中国内地FY2025和FY2024的营运利润和收入")
    assert intent.entities == ("ACME_MO", "ACME_HK", "ACME_CN")
    assert intent.periods == (Period(2025, "FY"), Period(2024, "FY"))
    assert intent.metrics == ("OPERATING_PROFIT", "REVENUE")
    assert (intent.entity, intent.period, intent.metric) == (
        "ACME_MO",
        Period(2025, "FY"),
        "OPERATING_PROFIT",
    )


def test_listed_values_in_english() -> None:
    intent = parse("Compare revenue and NBV of Hong Kong and Macau in 2025H1 and 2024H1")
    assert intent.metrics == ("REVENUE", "NBV")
    assert intent.entities == ("ACME_HK", "ACME_MO")
    assert intent.periods == (Period(2025, "H1"), Period(2024, "H1"))


def test_a_value_named_twice_is_kept_once() -> None:
    intent = parse("香港 (HK, Hong Kong) FY2025 收入 revenue")
    assert intent.entities == ("ACME_HK",)
    assert intent.metrics == ("REVENUE",)


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("What is the regulatory impact on ACME HK?", ROUTE_NARRATIVE),
        ("为什么香港收入增长", ROUTE_COMPOSITE),
        ("Why did Hong Kong revenue fall in FY2025?", ROUTE_COMPOSITE),
        ("香港FY2025的REVENUE是多少", ROUTE_STRUCTURED),
        ("What was ACME HK revenue last year?", ROUTE_STRUCTURED),
        ("香港FY2024的数据是多少", ROUTE_STRUCTURED),
        ("香港的监管政策有什么变化", ROUTE_NARRATIVE),
        ("中国内地", ROUTE_NARRATIVE),
    ],
)
def test_route(question: str, route: Route) -> None:
    assert parse(question).route is route


def test_a_number_in_the_question_is_not_a_period() -> None:
    intent = parse("REVENUE是9999吗")
    assert intent.metric == "REVENUE"
    assert intent.period is None and intent.periods == ()


def test_relative_periods_use_the_reference_date() -> None:
    assert parse("香港去年上半年的收入").period == Period(2025, "H1")
    assert parse("香港去年的收入", date(2030, 5, 1)).period == Period(2029, "FY")


def test_growth_cue_is_set_only_with_a_metric() -> None:
    assert parse("香港FY2025收入同比增长多少").growth is True
    assert parse("香港FY2025收入是多少").growth is False
    assert parse("香港增长多少").growth is False


# --- competitors are masked before home-entity matching


def test_competitor_containing_a_home_alias_does_not_become_that_entity() -> None:
    intent = parse("中国竞联人寿的收入")
    assert "ACME_CN" not in intent.entities
    assert intent.entity is None
    assert intent.external_entity == "中国竞联人寿"
    assert intent.metric == "REVENUE"


def test_the_home_alias_alone_is_still_the_home_entity() -> None:
    intent = parse("中国FY2024收入")
    assert intent.entity == "ACME_CN"
    assert intent.external_entity is None


def test_english_competitor_name_is_masked_too() -> None:
    intent = parse("China Jinglian Life revenue in FY2024")
    assert intent.entities == ()
    assert intent.external_entity == "中国竞联人寿"


@pytest.mark.parametrize("question", ["竞 安保险的收入", "竞安 保险FY2024收入", "竞\u3000安的收入"])
def test_spaced_competitor_name_is_still_caught(question: str) -> None:
    assert parse(question).external_entity == "竞安保险"


def test_competitor_is_not_an_unknown_entity() -> None:
    # The gate refuses it; asking "which entity?" instead would be wrong.
    assert parse("竞安保险FY2024的收入").unknown_entities == ()


# --- unknown companies and regions


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("友邦的收入", "友邦"),
        ("请问友邦去年的收入是多少", "友邦"),
        ("AIA revenue", "AIA"),
        ("What was AIA revenue in FY2024?", "AIA"),
        ("新加坡FY2024收入", "新加坡"),
        ("新加坡和香港FY2025收入", "新加坡"),
        ("Singapore revenue 2024", "Singapore"),
        ("revenue of Singapore", "Singapore"),
        ("revenue for Prudential last year", "Prudential"),
        ("Manulife's NBV in 2024", "Manulife"),
        ("平安人寿FY2025收入", "平安人寿"),
        ("纽约FY2025收入", "纽约"),
    ],
)
def test_unknown_entity_is_reported(question: str, unknown: str) -> None:
    intent = parse(question)
    assert unknown in intent.unknown_entities
    assert intent.external_entity is None


def test_unknown_entity_next_to_a_known_one_keeps_both() -> None:
    intent = parse("友邦香港FY2025的收入")
    assert intent.entities == ("ACME_HK",)
    assert intent.unknown_entities == ("友邦",)


# Ordinary structured questions about known entities: none may report an unknown entity.
ORDINARY = [
    "请问一下香港FY2025的收入是多少呀",
    "帮我查一下中国内地去年的营运利润",
    "香港2024年代理人渠道的新业务价值是多少",
    "澳门今年上半年的营收有多少",
    "集团FY2024的净利润是多少呢",
    "麻烦告诉我香港上季度的收入",
    "我想知道中国内地2025年第三季度的新业务价值",
    "香港银保渠道2025H1的新业务价值是多少",
    "ACME集团去年的股本回报率是多少",
    "请问香港和澳门FY2025的收入分别是多少",
    "中国内地FY2024营业收入同比增长多少",
    "香港前年的内含价值是多少啊",
    "集团整体2025年的代理人数量有多少",
    "内地数字渠道今年的收入",
    "香港去年下半年营收多少",
    "香港FY2025的收入大约是多少",
    "请给出香港FY2025收入",
    "香港FY2025的收入共计多少",
    "中国内地FY2025营业收入为多少亿美元",
    "香港FY2025收入是多少百万美元",
    "香港业务FY2025的收入",
    "香港市场FY2025的收入",
    "请问一下，香港FY2025的收入是多少？谢谢！",
    "Please tell me the revenue of Hong Kong in FY2025",
    "What is the operating profit for Mainland China in 2024?",
    "Tell me the NBV of Macau for H1 2025",
    "Could you show me the group's net profit last year, please?",
    "How much was ACME CN revenue in Q3 2025?",
    "Hong Kong agency channel NBV in 2025H1",
    "Compare revenue of Hong Kong and Macau in FY2025",
    "How many agents did Hong Kong have last year?",
    "What's the NBV margin for HK this year?",
    "Show me Hong Kong's bancassurance NBV for last quarter",
    "Provide Hong Kong FY2025 revenue",
    "Get Hong Kong revenue FY2025",
    "Check HK revenue for FY2025",
    "Now HK revenue FY2025",
    "What Was The Revenue Of Hong Kong In FY2025?",
    "Hi, what is the revenue of Hong Kong in USD million?",
    "Year-to-date revenue of HK",
    "HK的revenue FY2025是多少",
    "香港 operating profit 2024",
    "请问ACME HK去年的NBV是多少",
    "Mainland China 2025年上半年的营收",
]


@pytest.mark.parametrize("question", ORDINARY)
def test_ordinary_questions_have_no_unknown_entity(question: str) -> None:
    intent = parse(question)
    assert intent.unknown_entities == ()
    assert intent.entities and intent.metrics
    assert intent.external_entity is None


def test_battery_is_large_enough() -> None:
    assert len(ORDINARY) >= 25


# --- language, parser seam, profile


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("香港FY2025的收入", "zh"),
        ("HK的revenue", "zh"),
        ("What was HK revenue in FY2025?", "en"),
        ("FY2025", "en"),
    ],
)
def test_language(text: str, language: str) -> None:
    assert detect_language(text) == language
    assert parse(text).language == language


def test_rule_parser_delegates_to_parse_intent() -> None:
    parser: IntentParser = RuleIntentParser(acme())
    question = "香港FY2025的REVENUE是多少"
    assert parser.parse(question, REF) == parse(question)


def test_rule_parser_reads_its_own_profile() -> None:
    parser = RuleIntentParser(initech())
    intent = parser.parse("US bookings in FY2025", REF)
    assert (intent.entity, intent.metric, intent.period) == (
        "INI_US",
        "BOOKINGS",
        Period(2025, "FY"),
    )
    assert parser.parse("America bookings via partner", REF).channel == "PARTNER"
    assert parser.parse("Globex bookings", REF).external_entity == "Globex"
    assert parser.parse("umbrella bookings", REF).external_entity == "Umbrella Corp"
    # The example profile's vocabulary means nothing here.
    other = parser.parse("香港FY2025的收入是多少", REF)
    assert other.entity is None and other.metric is None


def test_relative_periods_follow_the_profile_fiscal_year() -> None:
    # Initech's fiscal year ends in March: on 2026-11-26 "last year" is FY2026.
    intent = RuleIntentParser(initech()).parse("US bookings last year", REF)
    assert intent.period == Period(2026, "FY")
    assert parse("HK revenue last year").period == Period(2025, "FY")


# --- qualifiers, other metrics and the base of a change ---------------------------------------


def test_home_company_before_a_region_names_that_region_only() -> None:
    intent = parse("What was ACME Mainland China revenue in FY2025?")
    assert intent.entities == ("ACME_CN",)
    assert intent.unknown_entities == ()
    assert parse("ACME香港FY2024收入").entities == ("ACME_HK",)
    assert parse("ACME的收入是多少").entities == ("ACME_GROUP",)


@pytest.mark.parametrize("question", ["香港的净利润率是多少", "HK net profit margin FY2024"])
def test_a_metric_alias_with_a_ratio_suffix_is_not_that_metric(question: str) -> None:
    intent = parse(question)
    assert intent.metrics == ()
    assert intent.route is Route.STRUCTURED
    assert intent.unknown_entities == ()
    assert clarify_scope(intent, REF, profile=acme()).reason is ClarifyReason.MISSING_METRIC


@pytest.mark.parametrize(
    ("question", "periods"),
    [
        ("香港2025年上半年收入较上年增长多少", ["2025H1"]),
        ("香港收入与去年相比增长多少", []),
        ("how much did HK revenue grow vs last year", []),
        ("香港今年和去年的收入对比", ["FY2026", "FY2025"]),
    ],
)
def test_the_base_of_a_change_is_not_a_period_to_look_up(question: str, periods: list[str]) -> None:
    intent = parse(question)
    assert [p.label for p in intent.periods] == periods
    assert intent.growth is (not periods or len(periods) == 1)


@pytest.mark.parametrize(
    "question",
    [
        "内地收入增长的主要原因是什么，2024年收入是多少",
        "中国 banca 渠道 FY2024 sales",
        "香港 agents 数量 2023",
    ],
)
def test_generic_words_next_to_slots_are_not_unknown_entities(question: str) -> None:
    assert parse(question).unknown_entities == ()


_FY2024 = Period(2024, "FY")


@pytest.mark.parametrize(
    ("question", "filled"),
    [
        (
            "新加坡FY2024收入是多少",
            {"metrics": ("REVENUE",), "periods": (_FY2024,), "unknown_entities": ("新加坡",)},
        ),
        ("香港的综合成本率是多少", {"entities": ("ACME_HK",), "unknown_metrics": ("综合成本率",)}),
        (
            "香港代理人渠道和银保渠道2024年收入",
            {
                "metrics": ("REVENUE",),
                "entities": ("ACME_HK",),
                "periods": (_FY2024,),
                "channels": ("AGENCY", "BANCA"),
            },
        ),
        (
            "香港2001年至2024年的收入",
            {
                "metrics": ("REVENUE",),
                "entities": ("ACME_HK",),
                "long_range": (Period(2001, "FY"), _FY2024),
            },
        ),
        (
            "香港收入同比增长多少",
            {"metrics": ("REVENUE",), "entities": ("ACME_HK",), "growth": True},
        ),
        ("竞安保险的收入", {"metrics": ("REVENUE",), "external_entity": "竞安保险"}),
        (
            "What was Hong Kong revenue in FY2024?",
            {
                "metrics": ("REVENUE",),
                "entities": ("ACME_HK",),
                "periods": (_FY2024,),
                "language": "en",
            },
        ),
    ],
)
def test_each_field_holds_what_its_name_says_and_the_rest_keep_their_defaults(
    question: str, filled: dict[str, object]
) -> None:
    # The parser builds its result positionally: a field read into the wrong place shows here.
    listed = {"metric": "metrics", "entity": "entities", "period": "periods", "channel": "channels"}
    expected = {
        **{f.name: f.default for f in fields(ParsedIntent) if f.default is not MISSING},
        "raw_question": question,
        "route": ROUTE_STRUCTURED,
        "extra": {},
        "language": "zh",
        **filled,
    }
    for single, many in listed.items():
        values = expected[many]
        assert isinstance(values, tuple)
        expected[single] = values[0] if values else None
    assert {f.name: getattr(parse(question), f.name) for f in fields(ParsedIntent)} == expected
