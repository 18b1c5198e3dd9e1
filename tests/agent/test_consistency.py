"""Cross-channel consistency: prose that restates a stored fact with another value loses."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.consistency import FactCheck
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from ragspine.retrieval.protocol import Snippet
from tests.agent.helpers import CountingStore, ScriptedProvider, text
from tests.agent.test_narrative import ListRetriever

REF = date(2026, 11, 26)  # ACME_HK FY2025 REVENUE is 2480 USD_M in the standard facts


@pytest.fixture
def check(tmp_path: Path) -> FactCheck:
    return FactCheck(CountingStore(tmp_path / "f.db"), load_profile(), REF, DEFAULT_CLEARANCE)


@pytest.mark.parametrize(
    "sentence",
    [
        "ACME HK revenue in FY2025 was US$2,480m.",
        "香港FY2025收入为2,480百万美元。",
        "香港FY2025收入为24.8亿美元。",
        "Hong Kong revenue in FY2025 reached US$2.48bn [2].",
        "Hong Kong revenue grew 12.2% in FY2025.",  # a percentage is no amount of revenue
        "Hong Kong revenue rose to 2,480 in FY2025 from 2,210.5.",
        "Revenue was 9,999 in FY2025.",  # no entity named: nothing to compare
        "Hong Kong revenue was 9,999.",  # no period named
        "ACME HK new business value in FY2025 was 9,999.",  # no such fact stored
    ],
)
def test_consistent_or_uncheckable_sentences_stand(check: FactCheck, sentence: str) -> None:
    assert not check.contradicts(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "ACME HK revenue in FY2025 was US$9,999m.",
        "香港FY2025收入为9999百万美元。",
        "香港FY2025收入为30亿美元 [1]。",
        "Hong Kong revenue in FY2025 was 2,490.",
    ],
)
def test_a_different_value_for_a_stored_key_contradicts(check: FactCheck, sentence: str) -> None:
    assert check.contradicts(sentence)


def test_a_scripted_model_stating_a_wrong_value_loses_that_sentence(tmp_path: Path) -> None:
    passage = Snippet(
        "c1",
        "hk_memo.md",
        "section=1,para=1",
        "Hong Kong revenue in FY2025 was US$9,999m. Agency sales drove Hong Kong revenue.",
    )
    model = ScriptedProvider(
        [
            text(
                "Hong Kong revenue in FY2025 was US$9,999m [1]. "
                "Agency sales drove Hong Kong revenue [1]."
            )
        ]
    )
    result = answer_question(
        "Why did Hong Kong revenue grow in FY2025?",
        CountingStore(tmp_path / "f.db"),
        model,
        reference_date=REF,
        narrative_retriever=ListRetriever([passage]),
    )
    assert "9,999" not in result.answer and "9999" not in result.answer
    assert "Agency sales drove Hong Kong revenue" in result.answer
    assert "US$ 2,480 m" in result.answer  # the structured fact stands
    assert result.trace["facts_contradicted"] == 1
    assert fabricated_numbers(result) == []


def test_when_every_model_sentence_is_refuted_the_passages_are_quoted_instead(
    tmp_path: Path,
) -> None:
    """The model says only the refuted value: the answer falls back to quoting the passages'
    on-topic sentences (screened the same way), not to an empty "figures removed" note."""
    passage = Snippet(
        "c1",
        "hk_memo.md",
        "section=1,para=1",
        "Hong Kong revenue in FY2025 was US$9,999m. Agency sales drove Hong Kong revenue.",
    )
    model = ScriptedProvider([text("Hong Kong revenue in FY2025 was US$9,999m [1].")])
    result = answer_question(
        "Why did Hong Kong revenue grow in FY2025?",
        CountingStore(tmp_path / "f.db"),
        model,
        reference_date=REF,
        narrative_retriever=ListRetriever([passage]),
    )
    assert "9,999" not in result.answer and "9999" not in result.answer
    assert "Agency sales drove Hong Kong revenue" in result.answer
    assert "do not support" not in result.answer
    assert result.trace["facts_contradicted"] == 2  # the model's sentence, then the quote's
    assert fabricated_numbers(result) == []
