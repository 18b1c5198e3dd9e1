"""Entity detection a finance reader accepts (issue 27), over profiles that are not ACME.

Months, dates, accounting standards, measures and table words are not unknown entities; a
unit's short name is its entity; a named unit the profile lacks is asked about and never
answered with the home entity's figure; a workspace with one entity never asks which entity.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AnswerKind, ClarifyMode, ClarifyReason, ParsedIntent
from ragspine.profile.model import DomainProfile
from ragspine.storage.fact_store import FactStore
from tests.facts import fact
from tests.profiles import initech, lakeside, solo

REF = date(2026, 11, 26)


def parse(question: str, profile: DomainProfile | None = None) -> ParsedIntent:
    return parse_intent(question, REF, profile=profile or lakeside())


def mode_of(question: str, profile: DomainProfile | None = None) -> tuple[ClarifyMode, str]:
    profile = profile or lakeside()
    verdict = clarify_scope(parse(question, profile), REF, profile=profile)
    return verdict.mode, verdict.reason


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("Net sales as at June 30, 2024", "FY2024"),
        ("What were net sales for the year ended June 30, 2024?", "FY2024"),
        ("Trailhead net sales, December 31, 2024", "2025H1"),
        ("Net sales in FY2024 (June year end)", "FY2024"),
        ("Net sales FY2024, December quarter", "FY2024"),
        ("Net sales for the twelve months ended 30-Jun-2024", "FY2024"),
        ("Net sales FY2024 (Jul-Jun)", "FY2024"),
    ],
)
def test_months_and_dates_are_not_entities(question: str, period: str) -> None:
    intent = parse(question)
    assert intent.unknown_entities == ()
    assert intent.metrics == ("NET_SALES",)
    assert intent.period is not None and intent.period.label == period


@pytest.mark.parametrize(
    "question",
    [
        "What were net sales in FY2024 under IFRS?",
        "Net sales FY2024 (IFRS 16)",
        "Net sales FY2024 under HKFRS 17",
        "Net sales under US GAAP in FY2024",
        "Net sales FY2024, IAS 36 basis",
        "按国际财务报告准则FY2024销售净额",
    ],
)
def test_accounting_standards_are_not_entities(question: str) -> None:
    intent = parse(question)
    assert (intent.unknown_entities, intent.unknown_metrics) == ((), ())
    assert intent.metrics == ("NET_SALES",)
    assert mode_of(question)[0] is ClarifyMode.ANSWER_WITH_ASSUMPTIONS  # the home entity


def test_a_standard_never_reads_as_the_place_inside_it() -> None:
    # Initech knows "US" as its United States entity: "US GAAP" names no entity at all.
    assert parse("US GAAP bookings FY2025", initech()).entities == ()
    assert parse("US bookings FY2025", initech()).entities == ("INI_US",)


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("What was EBITDA in FY2024?", "EBITDA"),
        ("Trailhead EBIT FY2024", "EBIT"),
        ("Net sales and Dividends FY2024", "Dividends"),
        ("Trailhead Claims FY2024", "Claims"),
        # Words of the profile's own metric labels ("Gross written premiums").
        ("Written FY2024", "Written"),
    ],
)
def test_measures_and_line_items_the_profile_lacks_are_asked_as_metrics(
    question: str, unknown: str
) -> None:
    intent = parse(question)
    assert intent.unknown_entities == ()
    assert intent.unknown_metrics == (unknown,)
    assert mode_of(question) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)


@pytest.mark.parametrize(
    "question",
    [
        "Net sales FY2024 Restated",
        "Net sales FY2024, Note 5",
        "Segment Net Sales FY2024 (Unaudited)",
        "Consolidated Net Sales FY2024",
    ],
)
def test_table_qualifiers_name_nothing(question: str) -> None:
    intent = parse(question)
    assert (intent.unknown_entities, intent.unknown_metrics) == ((), ())
    assert intent.metrics == ("NET_SALES",)


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("Trailhead net sales FY2024", "LKS_TRAIL"),
        ("Trailhead division net sales FY2024", "LKS_TRAIL"),
        ("Marine net sales FY2024", "LKS_MARINE"),
        ("Trailhead Retail segment net sales FY2024", "LKS_TRAIL"),
        # The leading words of the company's name are the home entity.
        ("Lakeside net sales FY2024", "LKS_ALL"),
        ("Lakeside Outfitters net sales FY2024", "LKS_ALL"),
        ("山径零售FY2024销售净额", "LKS_TRAIL"),
    ],
)
def test_a_units_short_name_is_that_unit(question: str, entity: str) -> None:
    intent = parse(question)
    assert intent.unknown_entities == ()
    assert intent.entities == (entity,)
    assert mode_of(question)[0] is ClarifyMode.NONE


def test_a_short_name_two_entities_share_is_asked_about() -> None:
    profile = DomainProfile.model_validate(
        {
            "company": {"name": "Polar Freight", "home_entity": "PF"},
            "defaults": {"channel": "TOTAL"},
            "entities": [
                {"code": "PF", "name_zh": "极地货运", "name_en": "Polar Freight", "geography": "G"},
                {"code": "PF_NA", "name_zh": "北美", "name_en": "North America", "geography": "NA"},
                {"code": "PF_NAS", "name_zh": "北亚", "name_en": "North Asia", "geography": "AS"},
            ],
            "metrics": [
                {"code": "TONNES", "name_zh": "吨数", "name_en": "Tonnes carried", "unit": "USD_M"}
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )
    intent = parse("North tonnes carried FY2024", profile)
    assert intent.entities == ()
    assert intent.unknown_entities == ("North",)
    assert parse("Polar tonnes carried FY2024", profile).entities == ("PF",)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("What was the Healthcare division net sales in FY2026?", "Healthcare division"),
        ("healthcare division net sales fy2026", "healthcare division"),
        ("EMEA region net sales FY2024", "EMEA region"),
        ("Asia Pacific region net sales FY2024", "Asia Pacific"),
        ("Outdoor Apparel segment net sales FY2024", "Outdoor Apparel segment"),
        ("Summit Holdings net sales FY2024", "Summit Holdings"),
        ("医疗事业部FY2024销售净额", "医疗事业部"),
    ],
)
def test_a_unit_the_profile_lacks_is_asked_about(question: str, name: str) -> None:
    intent = parse(question)
    assert intent.unknown_entities == (name,)
    assert intent.entities == ()
    assert mode_of(question) == (ClarifyMode.ASK_FIRST, ClarifyReason.UNKNOWN_ENTITY)


def test_a_unit_the_profile_lacks_is_never_answered_with_the_home_entitys_figure(
    tmp_path: Path,
) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    home = fact("NET_SALES", "LKS_ALL", "FY", "2026", 48213, geography="GLOBAL", channel="ALL")
    store.upsert_facts([home])
    asked = "What was the Healthcare division net sales in FY2026?"
    result = answer_question(asked, store, MockProvider(), reference_date=REF, profile=lakeside())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "48213" not in result.answer and "48,213" not in result.answer
    # The control: the home entity's figure is found when the question asks for it.
    control = answer_question(
        "Lakeside net sales FY2026", store, MockProvider(), reference_date=REF, profile=lakeside()
    )
    assert control.answer_kind is AnswerKind.FOUND
    assert "48,213" in control.answer or "48213" in control.answer


def test_one_entity_workspace_never_asks_or_assumes_which_entity() -> None:
    profile = solo()
    intent = parse("Claims incurred FY2024", profile)
    assert intent.entities == ("PINE",)
    assert mode_of("Claims incurred FY2024", profile)[0] is ClarifyMode.NONE
    # With no period the period is assumed, and no entity is offered or named as assumed.
    verdict = clarify_scope(parse("Claims incurred", profile), REF, profile=profile)
    assert verdict.mode is ClarifyMode.ANSWER_WITH_ASSUMPTIONS
    assert verdict.assumed_entity is None
    assert "Pinecrest" not in " ".join(verdict.narrowing_options)


@pytest.mark.parametrize(
    "question",
    [
        "What were Prudential claims incurred in FY2024?",
        "Claims incurred of the Healthcare division in FY2024",
        "Claims incurred FY2024 for Summit Insurance",
        # A table word inside an organisation's name does not excuse the name.
        "Underwriting Holdings claims incurred FY2024",
    ],
)
def test_one_entity_workspace_still_asks_about_an_organisation_it_lacks(question: str) -> None:
    assert mode_of(question, solo()) == (ClarifyMode.ASK_FIRST, ClarifyReason.UNKNOWN_ENTITY)


def test_one_entity_workspace_reads_table_words_as_no_entity() -> None:
    profile = solo()
    for question in (
        "Net premiums earned as at December 31, 2024",
        "Net premiums earned FY2024 under IFRS 17",
        "Net Premiums Earned FY2024 (Restated)",
        # An insurer's table heading before its row label, as its sheets print it.
        "Underwriting Net premiums earned FY2024",
        "Net premiums earned FY2024 (Underwriting)",
    ):
        intent = parse(question, profile)
        assert (intent.unknown_entities, intent.metrics) == ((), ("PREMIUMS",)), question
        assert mode_of(question, profile)[0] is ClarifyMode.NONE, question


# Pinecrest's figures as a reader of its (invented) report writes them: FY2024 only.
SOLO_FACTS = {"PREMIUMS": 7315.0, "CLAIMS": 5240.0}


@pytest.fixture
def solo_store(tmp_path: Path) -> FactStore:
    store = FactStore(tmp_path / "solo.db")
    store.init_schema()
    store.upsert_facts(
        [
            fact(code, "PINE", "FY", "2024", value, geography="GLOBAL")
            for code, value in SOLO_FACTS.items()
        ]
    )
    return store


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("Claims incurred as at December 31, 2024", "CLAIMS"),
        ("Net premiums earned FY2024 under IFRS 17", "PREMIUMS"),
        ("Consolidated Claims incurred FY2024, Note 7", "CLAIMS"),
        ("松峰互助2024财年的保费是多少", "PREMIUMS"),
    ],
)
def test_one_entity_workspace_answers_its_own_figure_end_to_end(
    solo_store: FactStore, question: str, metric: str
) -> None:
    result = answer_question(
        question, solo_store, MockProvider(), reference_date=REF, profile=solo()
    )
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert f"{SOLO_FACTS[metric]:,.0f}" in result.answer
    other = next(v for code, v in SOLO_FACTS.items() if code != metric)
    assert f"{other:,.0f}" not in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "What were Prudential claims incurred in FY2024?",
        "Claims incurred of the Healthcare division in FY2024",
        "Asia Pacific region net premiums earned FY2024",
    ],
)
def test_one_entity_workspace_never_answers_an_organisation_it_lacks_with_its_own_figure(
    solo_store: FactStore, question: str
) -> None:
    result = answer_question(
        question, solo_store, MockProvider(), reference_date=REF, profile=solo()
    )
    assert result.answer_kind is AnswerKind.CLARIFY
    assert not [v for v in SOLO_FACTS.values() if f"{v:,.0f}" in result.answer]
