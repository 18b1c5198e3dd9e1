"""The clarification gateway: refuse, ask first, assume and surface, or none — in that order."""

from __future__ import annotations

import re
import tomllib
from datetime import date

import pytest

from ragspine.agent.clarify import REASON_COMPETITOR, REASON_MISSING_METRIC, REASON_UNKNOWN_ENTITY
from ragspine.agent.intent import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_NONE,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    ClarificationResult,
    ParsedIntent,
    clarify_scope,
    parse_intent,
)
from ragspine.agent.types import ClarifyMode, ClarifyReason, Route
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from tests.profiles import INITECH_PATH, acme, initech

REF = date(2026, 11, 26)
ZH_BANNER = re.compile(r"^【假设】.+（如需收窄：.+）$")


def clarify(question: str, day: date = REF) -> ClarificationResult:
    return clarify_scope(parse_intent(question, day, profile=acme()), day, profile=acme())


@pytest.fixture(scope="module")
def march_profile() -> DomainProfile:
    """Initech: an invented company whose fiscal year ends in March."""
    return initech()


class NarrativeParser:
    """A stand-in for an LLM parser that missed the competitor entirely."""

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent:
        return ParsedIntent(raw_question=question, route=Route.NARRATIVE, external_entity=None)


# --- 1. refuse comes first


@pytest.mark.parametrize(
    "question",
    [
        "竞安保险FY2024的收入是多少",
        "中国竞联人寿的收入",
        "竞 安的数据",  # no metric either: refusal still wins
        "为什么环宇保险的收入增长",  # composite
        "新加坡和竞安保险的收入",  # unknown entity too
    ],
)
def test_competitor_is_refused_before_anything_else(question: str) -> None:
    result = clarify(question)
    assert result.mode is CLARIFY_OUT_OF_SCOPE_ENTITY is ClarifyMode.OUT_OF_SCOPE_ENTITY
    assert result.reason is REASON_COMPETITOR is ClarifyReason.COMPETITOR
    assert result.narrowing_options == ("ACME Group",)
    assert result.assumed_slots == {} and result.assumption_note == ""
    assert "ACME Group" in result.question


def test_refusal_names_the_competitor_in_the_question_language() -> None:
    zh = clarify("竞安保险FY2024的收入是多少")
    assert "竞安保险" in zh.question and "抱歉" in zh.question
    en = clarify("What was Jingan revenue in FY2024?")
    assert en.mode is CLARIFY_OUT_OF_SCOPE_ENTITY
    assert "竞安保险" in en.question and "Sorry" in en.question


def test_gate_rescreens_the_raw_question_whatever_the_parser_said() -> None:
    question = "竞安保险FY2024的收入是多少"
    intent = NarrativeParser().parse(question, REF)
    assert intent.external_entity is None and intent.route is Route.NARRATIVE
    result = clarify_scope(intent, REF, profile=acme())
    assert result.mode is CLARIFY_OUT_OF_SCOPE_ENTITY
    assert result.narrowing_options == ("ACME Group",)


def test_a_parser_cannot_plant_a_refusal_either() -> None:
    intent = ParsedIntent(
        raw_question="What is the regulatory impact on ACME HK?",
        route=Route.NARRATIVE,
        external_entity="竞安保险",
        language="en",
    )
    assert clarify_scope(intent, REF, profile=acme()).mode is CLARIFY_NONE


# --- 2. ask first: an unknown entity, then a missing metric


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("新加坡FY2024收入", "新加坡"),
        ("友邦的收入是多少", "友邦"),
        ("What was AIA revenue last year?", "AIA"),
        ("revenue for Prudential last year", "Prudential"),
        ("新加坡FY2024的数据是多少", "新加坡"),  # no metric either: the entity is asked first
    ],
)
def test_unknown_entity_asks_which_entity(question: str, unknown: str) -> None:
    result = clarify(question)
    assert result.mode is CLARIFY_ASK_FIRST
    assert result.reason is REASON_UNKNOWN_ENTITY is ClarifyReason.UNKNOWN_ENTITY
    assert result.assumed_slots == {} and result.assumption_note == ""
    assert unknown in result.question
    codes = [e.code for e in acme().entities]
    assert len(result.narrowing_options) == len(codes)
    for code, option in zip(codes, result.narrowing_options, strict=True):
        assert code in option
        assert option in result.question


@pytest.mark.parametrize(
    ("question", "language"),
    [("香港FY2024的数据是多少", "zh"), ("What was the figure for HK in FY2024?", "en")],
)
def test_missing_metric_asks_listing_every_metric(question: str, language: str) -> None:
    result = clarify(question)
    assert result.mode is CLARIFY_ASK_FIRST
    assert result.reason is REASON_MISSING_METRIC is ClarifyReason.MISSING_METRIC
    assert result.assumed_slots == {}
    metrics = acme().all_metrics  # derived metrics can be asked for too
    assert len(result.narrowing_options) == len(metrics)
    for metric, option in zip(metrics, result.narrowing_options, strict=True):
        assert metric.code in option
        assert (metric.name_zh if language == "zh" else metric.name_en) in option
        assert option in result.question


def one_language_names() -> DomainProfile:
    """Initech with Bookings named in Chinese only and Worldwide in English only, as
    ``profile suggest`` drafts a label the documents print in one language."""
    text = INITECH_PATH.read_text(encoding="utf-8")
    for name in ('name_en = "Bookings"', 'name_zh = "全球"'):
        assert name in text
        text = text.replace(name, name.split("=")[0] + '= ""')
    return DomainProfile.model_validate(tomllib.loads(text))


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("What was the figure for Worldwide in FY2025?", "订单额 (BOOKINGS)"),
        ("新加坡FY2025的订单额是多少", "Worldwide（INI_WORLD）"),
    ],
)
def test_an_option_without_a_name_in_the_questions_language_shows_the_other_name(
    question: str, shown: str
) -> None:
    """A label printed in one language only is offered by that name, never as an empty name
    beside its code."""
    profile = one_language_names()
    asked = clarify_scope(parse_intent(question, REF, profile=profile), REF, profile=profile)
    assert shown in asked.narrowing_options
    assert not [o for o in asked.narrowing_options if o.startswith((" (", "（"))]


# --- 3. assume and surface


def test_missing_entity_and_period_are_assumed_and_surfaced() -> None:
    result = clarify("收入是多少")
    assert result.mode is CLARIFY_ANSWER_WITH_ASSUMPTIONS
    assert (result.assumed_entity, result.assumed_period) == ("ACME_GROUP", Period(2025, "FY"))
    assert result.assumed_slots == {"entity": "ACME_GROUP", "period": "FY2025"}
    assert ZH_BANNER.match(result.assumption_note), result.assumption_note
    assert "集团（ACME_GROUP）" in result.assumption_note
    assert "FY2025" in result.assumption_note
    # One-click narrowing: every other entity, and neighbouring periods.
    assert "香港（ACME_HK）" in result.narrowing_options
    assert "集团（ACME_GROUP）" not in result.narrowing_options
    assert "FY2024" in result.narrowing_options
    for option in result.narrowing_options:
        assert option in result.assumption_note


def test_missing_period_only() -> None:
    result = clarify("香港的收入是多少")
    assert result.mode is CLARIFY_ANSWER_WITH_ASSUMPTIONS
    assert (result.assumed_entity, result.assumed_period) == (None, Period(2025, "FY"))
    assert result.assumed_slots == {"period": "FY2025"}
    assert ZH_BANNER.match(result.assumption_note), result.assumption_note
    assert "ACME_GROUP" not in result.assumption_note


def test_missing_entity_only() -> None:
    result = clarify("FY2024的营运利润是多少")
    assert result.mode is CLARIFY_ANSWER_WITH_ASSUMPTIONS
    assert result.assumed_slots == {"entity": "ACME_GROUP"}
    assert ZH_BANNER.match(result.assumption_note), result.assumption_note


def test_english_banner() -> None:
    result = clarify("What was the revenue?")
    assert result.mode is CLARIFY_ANSWER_WITH_ASSUMPTIONS
    assert result.assumed_slots == {"entity": "ACME_GROUP", "period": "FY2025"}
    note = result.assumption_note
    assert re.match(r"^\[Assumption\] .+ \(to narrow: .+\)$", note), note
    assert "Group (ACME_GROUP)" in note and "FY2025" in note
    assert not re.search(r"[\u4e00-\u9fff【】（）]", note)


@pytest.mark.parametrize(
    ("day", "latest"),
    [
        (date(2026, 11, 26), "FY2025"),
        (date(2026, 1, 1), "FY2025"),
        (date(2026, 12, 31), "FY2025"),
        (date(2027, 1, 1), "FY2026"),
    ],
)
def test_assumed_period_is_the_latest_complete_fiscal_year(day: date, latest: str) -> None:
    assert clarify("香港的收入是多少", day).assumed_slots == {"period": latest}


@pytest.mark.parametrize(
    ("day", "latest"),
    [(date(2026, 3, 31), "FY2025"), (date(2026, 4, 1), "FY2026"), (date(2026, 11, 26), "FY2026")],
)
def test_assumed_period_respects_the_fiscal_year_end(
    march_profile: DomainProfile, day: date, latest: str
) -> None:
    intent = parse_intent("bookings", day, profile=march_profile)
    result = clarify_scope(intent, day, profile=march_profile)
    assert result.assumed_slots == {"entity": "INI_WORLD", "period": latest}
    assert "Worldwide (INI_WORLD)" in result.assumption_note
    assert "United States (INI_US)" in result.narrowing_options


# --- 4. none


@pytest.mark.parametrize(
    "question",
    [
        "What is the regulatory impact on ACME HK?",
        "香港的监管政策有什么变化",
        "新加坡市场的监管趋势",  # narrative needs no slots, known or not
    ],
)
def test_narrative_route_needs_no_clarification(question: str) -> None:
    assert parse_intent(question, REF, profile=acme()).route is Route.NARRATIVE
    assert clarify(question) == ClarificationResult(mode=CLARIFY_NONE)


@pytest.mark.parametrize(
    "question", ["香港FY2025的REVENUE是多少", "What was ACME HK revenue last year?"]
)
def test_fully_specified_question_needs_no_clarification(question: str) -> None:
    intent = parse_intent(question, REF, profile=acme())
    assert intent.route is Route.STRUCTURED
    assert clarify_scope(intent, REF, profile=acme()) == ClarificationResult(mode=CLARIFY_NONE)


def test_assumptions_come_from_the_active_profile(march_profile: DomainProfile) -> None:
    intent = parse_intent("US订单额是多少", REF, profile=march_profile)
    result = clarify_scope(intent, REF, profile=march_profile)
    assert result.mode is CLARIFY_ANSWER_WITH_ASSUMPTIONS
    assert result.assumed_slots == {"period": "FY2026"}
    assert "ACME" not in result.assumption_note + "".join(result.narrowing_options)


def test_refusal_names_the_active_profile_competitor_and_home(march_profile: DomainProfile) -> None:
    intent = parse_intent("Umbrella bookings in FY2025", REF, profile=march_profile)
    result = clarify_scope(intent, REF, profile=march_profile)
    assert (result.mode, result.reason) == (
        ClarifyMode.OUT_OF_SCOPE_ENTITY,
        ClarifyReason.COMPETITOR,
    )
    assert result.narrowing_options == ("Initech",)
    assert "Umbrella Corp" in result.question and "Initech" in result.question
