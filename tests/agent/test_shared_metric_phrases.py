"""A short phrase that two metrics' names hold equally is asked about, never answered with one
of them (``agent.row_choice``: ``LongerLabels.holding``).

Kestrel Mutual (``profile/data/kestrel.toml``) has "Claims incurred" (code ``CLAIMS``) and "Net
claims incurred" (``NET_CLAIMS``): "Claims" writes the first one's code, yet names neither row
more than the other. A phrase that is a metric's own name or alias answers with that metric.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.intent import clarify_scope, parse_intent
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.row_choice import longer_labels
from ragspine.agent.types import AnswerKind, ClarifyMode, ClarifyReason, ParsedIntent
from ragspine.demo import kestrel
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.fact_store import FactStore
from tests.facts import fact
from tests.profiles import solo

REF = date(2026, 11, 26)
# The two rows "claims" / "赔款" lies inside, as the profile names them.
BOTH_EN = ("Claims incurred (CLAIMS)", "Net claims incurred (NET_CLAIMS)")
BOTH_ZH = ("已发生赔款（CLAIMS）", "已发生赔款净额（NET_CLAIMS）")


@pytest.fixture(scope="module")
def profile() -> DomainProfile:
    return load_profile(kestrel.profile_path())


def parse(question: str, profile: DomainProfile) -> ParsedIntent:
    return parse_intent(question, REF, profile=profile)


@pytest.mark.parametrize(
    ("question", "phrase", "options"),
    [
        ("Claims FY2025", "Claims", BOTH_EN),
        ("What were claims in FY2025?", "claims", BOTH_EN),
        ("Net Claims FY2025", "Claims", BOTH_EN),
        ("Gross claims FY2024", "claims", BOTH_EN),
        ("2025财年的赔款是多少", "赔款", BOTH_ZH),
        ("2024财年赔款", "赔款", BOTH_ZH),
    ],
)
def test_a_phrase_two_metrics_names_hold_is_asked_about_offering_both(
    profile: DomainProfile, question: str, phrase: str, options: tuple[str, ...]
) -> None:
    intent = parse(question, profile)
    assert intent.metrics == ()
    assert (intent.unknown_metrics, intent.unknown_entities) == ((phrase,), ())
    verdict = clarify_scope(intent, REF, profile=profile)
    assert (verdict.mode, verdict.reason) == (ClarifyMode.ASK_FIRST, ClarifyReason.MISSING_METRIC)
    assert verdict.narrowing_options == options
    assert verdict.question is not None and all(o in verdict.question for o in options)


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("Net claims incurred FY2025", "NET_CLAIMS"),
        ("Claims incurred FY2025", "CLAIMS"),
        ("Claims Incurred FY2025", "CLAIMS"),
        ("2025财年已发生赔款净额是多少", "NET_CLAIMS"),
        ("2025财年已发生赔款是多少", "CLAIMS"),
        # A metric's own name answers even where a longer row's name holds it.
        ("Depreciation FY2025", "DEPRECIATION"),
        ("2025财年折旧是多少", "DEPRECIATION"),
        # The sheet's heading beside a full row name: the row it names.
        ("Premiums and Claims: Claims Incurred FY2025", "CLAIMS"),
        ("Claims: net claims incurred FY2025", "NET_CLAIMS"),
    ],
)
def test_a_metrics_own_name_answers(profile: DomainProfile, question: str, metric: str) -> None:
    intent = parse(question, profile)
    assert intent.metrics == (metric,)
    assert (intent.unknown_metrics, intent.unknown_entities) == ((), ())
    assert clarify_scope(intent, REF, profile=profile).mode is ClarifyMode.NONE


def test_a_code_only_one_metrics_names_hold_still_answers() -> None:
    # Pinecrest has "Claims incurred" (CLAIMS) and no other claims row: nothing to choose.
    intent = parse("Claims FY2024", solo())
    assert (intent.metrics, intent.unknown_metrics) == (("CLAIMS",), ())


def test_a_code_another_metrics_name_holds_is_asked_about() -> None:
    # "Sales" is the code of the metric named "Revenue" and a word of "Net sales".
    profile = DomainProfile.model_validate(
        {
            "company": {"name": "Harbour Line", "home_entity": "HL"},
            "defaults": {"channel": "TOTAL"},
            "entities": [
                {"code": "HL", "name_zh": "海港", "name_en": "Harbour Line", "geography": "G"}
            ],
            "metrics": [
                {"code": "SALES", "name_zh": "收入", "name_en": "Revenue", "unit": "USD_M"},
                {
                    "code": "NET_SALES",
                    "name_zh": "销售净额",
                    "name_en": "Net sales",
                    "unit": "USD_M",
                },
            ],
            "channels": [{"code": "TOTAL", "name_zh": "合计", "name_en": "Total"}],
        }
    )
    intent = parse("Sales FY2024", profile)
    assert (intent.metrics, intent.unknown_metrics) == ((), ("Sales",))
    verdict = clarify_scope(intent, REF, profile=profile)
    assert verdict.narrowing_options == ("Revenue (SALES)", "Net sales (NET_SALES)")
    assert parse("Revenue FY2024", profile).metrics == ("SALES",)


@pytest.mark.parametrize(
    ("phrase", "codes"),
    [
        ("claims", ("CLAIMS", "NET_CLAIMS")),
        ("Claims incurred", ("CLAIMS", "NET_CLAIMS")),
        ("赔款", ("CLAIMS", "NET_CLAIMS")),
        ("premiums", ("GWP", "NET_PREMIUMS")),
        ("depreciation", ("OPEX_EX_DEP", "DEPRECIATION")),
        ("claim", ()),  # whole words only
        ("Reinsurance recoveries", ()),
    ],
)
def test_holding_lists_the_metrics_whose_names_hold_a_phrase(
    profile: DomainProfile, phrase: str, codes: tuple[str, ...]
) -> None:
    assert longer_labels(profile).holding(phrase) == codes


# Kestrel Mutual's FY2025 claims rows, as its workbook prints them (kestrel.EXPECTED_FACTS).
CLAIMS_FY2025 = {"CLAIMS": 2847.0, "NET_CLAIMS": 2472.0}


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    facts = FactStore(tmp_path / "kestrel.db")
    facts.init_schema()
    facts.upsert_facts(
        [
            fact(code, "KESTREL", "FY", "2025", value, geography="HK", unit="HKD_M")
            for code, value in CLAIMS_FY2025.items()
        ]
    )
    return facts


@pytest.mark.parametrize("question", ["Claims FY2025", "2025财年的赔款是多少"])
def test_neither_row_answers_a_phrase_both_hold(
    profile: DomainProfile, store: FactStore, question: str
) -> None:
    result = answer_question(question, store, MockProvider(), reference_date=REF, profile=profile)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert not [v for v in CLAIMS_FY2025.values() if f"{v:,.0f}" in result.answer]


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("Net claims incurred FY2025", "NET_CLAIMS"),
        ("Claims incurred FY2025", "CLAIMS"),
        ("2025财年已发生赔款净额是多少", "NET_CLAIMS"),
    ],
)
def test_the_named_row_answers_end_to_end(
    profile: DomainProfile, store: FactStore, question: str, metric: str
) -> None:
    result = answer_question(question, store, MockProvider(), reference_date=REF, profile=profile)
    assert result.answer_kind is AnswerKind.FOUND, result.answer
    assert f"{CLAIMS_FY2025[metric]:,.0f}" in result.answer
    other = next(v for code, v in CLAIMS_FY2025.items() if code != metric)
    assert f"{other:,.0f}" not in result.answer
