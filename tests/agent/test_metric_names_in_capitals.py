"""A metric's name written in capitals is no company (``agent.not_entities``).

"Reinsurance Recoveries FY2025" names a measure the profile lacks, as "reinsurance recoveries"
does: a name that ends in a measure, a line item or the last word of one of the profile's own
metric names (an English noun phrase ends in its head; "赔款" of "已发生赔款" in Chinese) is
asked about as a metric, never as an entity. A real name next to a metric is still asked
about as an entity.
"""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.types import ClarifyMode, ClarifyReason, ParsedIntent
from ragspine.demo import kestrel
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from tests.profiles import lakeside

REF = date(2026, 11, 26)


@pytest.fixture(scope="module")
def profile() -> DomainProfile:
    return load_profile(kestrel.profile_path())


def parse(question: str, profile: DomainProfile) -> ParsedIntent:
    return parse_intent(question, REF, profile=profile)


def verdict(question: str, profile: DomainProfile) -> tuple[ClarifyMode, str]:
    result = clarify_scope(parse(question, profile), REF, profile=profile)
    return result.mode, result.reason


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("Reinsurance Recoveries FY2025", "Reinsurance Recoveries"),
        ("How much were Reinsurance Recoveries in FY2025?", "Reinsurance Recoveries"),
        ("What was Deferred Revenue in FY2025?", "Deferred Revenue"),
        ("Total Reinsurance Recoveries FY2025", "Reinsurance Recoveries"),
        ("2025财年再保险赔款是多少", "再保险赔款"),
        # a participle after the head ("paid", "written") leaves it the head
        ("Dividends Declared FY2025", "Dividends Declared"),
        # the head is a cue word ("premiums", "ratio"): the words before or after it still
        # name the measure, not a company
        ("What were Ceded Premiums in FY2025?", "Ceded Premiums"),
        ("What were Premiums Written in FY2025?", "Premiums Written"),
    ],
)
def test_a_capitalised_metric_name_is_asked_about_as_a_metric(
    profile: DomainProfile, question: str, phrase: str
) -> None:
    intent = parse(question, profile)
    assert (intent.unknown_entities, intent.unknown_metrics) == ((), (phrase,))
    assert verdict(question, profile) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)


def test_a_participle_beside_a_metric_phrase_is_no_name(profile: DomainProfile) -> None:
    # "Claims" is held by several of this profile's metrics (asked which); "Paid" alone names
    # nothing, so no entity "Paid" is asked about.
    question = "What were Claims Paid in FY2025?"
    assert parse(question, profile).unknown_entities == ()
    assert verdict(question, profile) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)


def test_the_last_word_of_the_profiles_own_metric_names_is_a_head() -> None:
    # "Boardings" is no word of the shipped vocabulary: only this profile's metric ends in it.
    profile = DomainProfile.model_validate(
        {
            "company": {"name": "Ferro Rail", "home_entity": "FR"},
            "defaults": {"channel": "TOTAL"},
            "entities": [
                {"code": "FR", "name_zh": "铁路", "name_en": "Ferro Rail", "geography": "G"}
            ],
            "metrics": [
                {
                    "code": "PAX",
                    "name_zh": "旅客登乘人次",
                    "name_en": "Passenger boardings",
                    "unit": "USD_M",
                }
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )
    intent = parse("Freight Boardings FY2024", profile)
    assert (intent.unknown_entities, intent.unknown_metrics) == ((), ("Freight Boardings",))
    assert parse("Atlantis Passenger boardings FY2024", profile).unknown_entities == ("Atlantis",)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Atlantis Claims incurred FY2025", "Atlantis"),
        ("What were Atlantis claims incurred in FY2025?", "Atlantis"),
        ("Healthcare division net premiums earned FY2025", "Healthcare division"),
        ("Summit Holdings Gross Written Premiums FY2025", "Summit Holdings"),
        ("What were Atlantis premiums in FY2025?", "Atlantis"),
        ("Atlantis Premiums FY2025", "Atlantis"),
        ("医疗业务部2025财年的毛承保保费是多少", "医疗业务部"),
    ],
)
def test_a_real_name_beside_a_metric_is_still_asked_about(
    profile: DomainProfile, question: str, name: str
) -> None:
    assert parse(question, profile).unknown_entities == (name,)
    assert verdict(question, profile) == (ClarifyMode.ASK_FIRST, ClarifyReason.UNKNOWN_ENTITY)


def test_a_name_before_a_period_and_a_line_item_is_still_a_name(profile: DomainProfile) -> None:
    assert parse("Atlantis FY2025 revenue", profile).unknown_entities == ("Atlantis",)
    assert parse("Healthcare division FY2024 revenue", lakeside()).unknown_entities == (
        "Healthcare division",
    )
