"""The shipped finance vocabulary (profile/data/finance_vocabulary.json): the profile always
wins over it, and its short names come from the profile alone."""

from __future__ import annotations

from datetime import date

from ragspine.agent.intent import parse_intent
from ragspine.agent.not_entities import rules_for, vocabulary
from ragspine.profile.model import DomainProfile
from tests.profiles import lakeside

REF = date(2026, 11, 26)


def profile_with(entity_aliases: list[str], metric_aliases: list[str]) -> DomainProfile:
    return DomainProfile.model_validate(
        {
            "company": {"name": "Cobalt Mining", "home_entity": "CM"},
            "defaults": {"channel": "TOTAL"},
            "entities": [
                {"code": "CM", "name_zh": "钴矿", "name_en": "Cobalt Mining", "geography": "G"},
                {
                    "code": "CM_CA",
                    "name_zh": "中亚",
                    "name_en": "Central Asia",
                    "geography": "CA",
                    "aliases": entity_aliases,
                },
            ],
            "metrics": [
                {
                    "code": "EBITDA_ADJ",
                    "name_zh": "调整后息税折旧摊销前利润",
                    "name_en": "Adjusted EBITDA",
                    "unit": "USD_M",
                    "aliases": metric_aliases,
                }
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )


def test_the_vocabulary_loads_every_list() -> None:
    words = vocabulary()
    assert "ifrs" in words.qualifiers and "december" in words.qualifiers
    assert "ebitda" in words.measures and "claims" in words.line_items
    assert "division" in words.unit_words and "事业部" in words.unit_words_zh
    assert any(s == "US GAAP" for s in words.standards)


def test_a_profile_alias_beats_the_vocabulary() -> None:
    # "EBITDA" is a measure the vocabulary knows and "CAS" a standard; here the profile
    # defines both, so they are its metric and its entity.
    profile = profile_with(["CAS"], ["EBITDA"])
    intent = parse_intent("CAS EBITDA FY2024", REF, profile=profile)
    assert (intent.metrics, intent.entities) == (("EBITDA_ADJ",), ("CM_CA",))
    assert (intent.unknown_entities, intent.unknown_metrics) == ((), ())


def test_without_the_alias_the_same_words_name_no_entity() -> None:
    profile = profile_with([], [])
    intent = parse_intent("CAS EBITDA FY2024", REF, profile=profile)
    assert intent.entities == () and intent.unknown_entities == ()
    assert intent.unknown_metrics == ("EBITDA",)  # asked as a metric, never as an entity


def test_short_names_are_words_that_name_one_entity() -> None:
    short = rules_for(lakeside()).short_names
    assert short["trailhead"] == short["retail"] == "LKS_TRAIL"
    assert short["marine"] == short["supplies"] == "LKS_MARINE"
    assert short["lakeside"] == short["lakesideoutfitters"] == "LKS_ALL"
    assert short["山径零售"] == "LKS_TRAIL"  # "山径零售业务" without its unit word
    assert "trailheadretail" not in short  # a whole name is an alias, not a short name
    assert not any(key in short for key in ("group", "the", "holdings"))


def test_the_company_name_names_the_home_entity_even_when_units_repeat_it() -> None:
    profile = DomainProfile.model_validate(
        {
            "company": {"name": "Northwind Holdings", "home_entity": "NW"},
            "defaults": {"channel": "TOTAL"},
            "entities": [
                {"code": "NW", "name_zh": "北风", "name_en": "Northwind Group", "geography": "G"},
                {
                    "code": "NW_LOG",
                    "name_zh": "北风物流",
                    "name_en": "Northwind Logistics",
                    "geography": "L",
                },
                {
                    "code": "NW_SALES",
                    "name_zh": "北风零售",
                    "name_en": "Northwind Sales",
                    "geography": "R",
                },
            ],
            "metrics": [
                {"code": "TURN", "name_zh": "营业额", "name_en": "Turnover", "unit": "USD_M"}
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )
    short = rules_for(profile).short_names
    assert short["northwind"] == "NW"
    assert short["logistics"] == "NW_LOG"
    assert "sales" not in short  # a line item is never a short name
    assert parse_intent("Logistics turnover FY2024", REF, profile=profile).entities == ("NW_LOG",)
    assert parse_intent("Northwind turnover FY2024", REF, profile=profile).entities == ("NW",)
