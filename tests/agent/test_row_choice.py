"""Which row a question names (issue 27): the longest label wins, a near miss is asked about.

The Lakeside profile has "Cost of sales", "Depreciation" and "Cost of sales excluding
depreciation" as three metrics, so a question about the long row holds both short labels.
"""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.row_choice import longer_labels
from ragspine.agent.types import ClarifyMode, ClarifyReason, ParsedIntent
from ragspine.profile.glossary import glossary_for
from ragspine.profile.model import DomainProfile
from tests.profiles import initech, lakeside

REF = date(2026, 11, 26)


def parse(question: str) -> ParsedIntent:
    return parse_intent(question, REF, profile=lakeside())


@pytest.mark.parametrize(
    "question",
    [
        "What was cost of sales excluding depreciation in FY2024?",
        "Cost of sales (excluding depreciation) FY2024",
        "cost of sales, excluding depreciation, FY2024",
        "Cost-of-sales excluding depreciation FY2024",
        "不含折旧的销售成本FY2024是多少",
    ],
)
def test_the_longer_row_label_wins_over_the_labels_inside_it(question: str) -> None:
    intent = parse(question)
    assert intent.metrics == ("COS_EX_DEP",)
    assert (intent.unknown_metrics, intent.unknown_entities) == ((), ())


@pytest.mark.parametrize(
    ("question", "metrics"),
    [
        ("Depreciation FY2024", ("DEPRECIATION",)),
        ("Cost of sales FY2024", ("COST_OF_SALES",)),
        ("Cost of sales and depreciation FY2024", ("COST_OF_SALES", "DEPRECIATION")),
        ("Depreciation, cost of sales FY2024", ("DEPRECIATION", "COST_OF_SALES")),
    ],
)
def test_a_shorter_label_alone_is_its_own_row(question: str, metrics: tuple[str, ...]) -> None:
    intent = parse(question)
    assert intent.metrics == metrics
    assert intent.unknown_metrics == ()


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("Cost of sales excl. depreciation FY2024", "Cost of sales excl. depreciation"),
        ("cost of sales exc depreciation in FY2024", "cost of sales exc depreciation"),
        ("Cost of sales excluding dep. FY2024", "Cost of sales excluding dep."),
    ],
)
def test_a_longer_label_written_with_shortened_words_is_asked_about(
    question: str, phrase: str
) -> None:
    intent = parse(question)
    assert intent.metrics == ()  # neither short row answers for it
    assert intent.unknown_metrics == (phrase.rstrip("."),)
    verdict = clarify_scope(intent, REF, profile=lakeside())
    assert (verdict.mode, verdict.reason) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("销售成本（不含折旧）FY2024是多少", "销售成本（不含折旧"),
        ("FY2024销售成本不含折旧", "销售成本不含折旧"),
    ],
)
def test_a_chinese_longer_label_written_in_another_order_is_asked_about(
    question: str, phrase: str
) -> None:
    intent = parse(question)
    assert (intent.metrics, intent.unknown_metrics) == ((), (phrase,))


def test_a_reordered_label_never_reaches_across_a_period_or_an_entity() -> None:
    # The characters of 不含折旧的销售成本 are all in the question, but a period lies between.
    intent = parse("销售成本FY2024不含折旧")
    assert intent.metrics == ("COST_OF_SALES", "DEPRECIATION")
    assert parse("折旧和销售成本FY2024").metrics == ("DEPRECIATION", "COST_OF_SALES")


def test_shortened_words_must_be_three_letters_or_more() -> None:
    # "ex" is too short to read as "excluding": the two rows named are the two rows asked.
    assert parse("Cost of sales ex depreciation FY2024").metrics == (
        "COST_OF_SALES",
        "DEPRECIATION",
    )


def test_only_labels_of_other_metrics_inside_a_longer_one_are_indexed() -> None:
    found = longer_labels(lakeside()).by_code
    assert {code: {x.code for x in longer} for code, longer in found.items()} == {
        "COST_OF_SALES": {"COS_EX_DEP"},
        "DEPRECIATION": {"COS_EX_DEP"},
    }
    assert longer_labels(initech()).by_code == {}  # one metric: nothing to choose between


def test_hits_without_a_longer_label_pass_through_unchanged() -> None:
    profile = initech()
    text = "bookings FY2025"
    hits = glossary_for(profile).match_terms(text).hits
    choice = longer_labels(profile).choose(text, hits)
    assert (choice.hits, choice.unclear) == (hits, [])


def test_an_ascii_label_lies_inside_a_longer_one_only_as_whole_words() -> None:
    profile = DomainProfile.model_validate(
        {
            "company": {"name": "Bright Events", "home_entity": "BE"},
            "defaults": {"channel": "TOTAL"},
            "entities": [{"code": "BE", "name_zh": "明亮", "name_en": "Bright", "geography": "G"}],
            "metrics": [
                {
                    "code": "ART",
                    "name_zh": "艺术",
                    "name_en": "Art sales",
                    "unit": "USD_M",
                    "aliases": ["art"],
                },
                {"code": "PARTY", "name_zh": "派对", "name_en": "Party sales", "unit": "USD_M"},
                {"code": "SALES", "name_zh": "销售", "name_en": "Sales", "unit": "USD_M"},
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )
    found = {code: {x.code for x in v} for code, v in longer_labels(profile).by_code.items()}
    # "Sales" lies inside both longer labels; "art" is not inside "Party sales".
    assert found == {"SALES": {"ART", "PARTY"}}
