"""The gate screens the question as typed and as normalized: hiding a name does not pass it."""

from __future__ import annotations

import pytest

from ragspine.agent.security_gate import SecurityDecision, SecurityGate
from ragspine.profile.model import CompetitorDef
from tests.profiles import acme, initech


@pytest.mark.parametrize(
    ("question", "competitor"),
    [
        ("竞\u200b安保险FY2025收入是多少", "竞安保险"),  # zero-width space inside the name
        ("竞\u2060安\u200d保险的收入", "竞安保险"),  # word joiner, zero-width joiner
        ("Ｇｌｏｂｅｘ FY2025 revenue?", "环宇保险"),  # full-width letters
        ("G\u200blobex revenue", "环宇保险"),
        ("\u202eGlobex\u202c revenue", "环宇保险"),  # bidi override around the name
    ],
)
def test_a_hidden_competitor_is_refused(question: str, competitor: str) -> None:
    verdict = SecurityGate(acme()).screen(raw_question=question)
    assert verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE
    assert verdict.entity == competitor


def test_the_typed_text_is_screened_too() -> None:
    # A competitor spelled in full-width letters in the profile only shows in the typed text:
    # normalization folds the question's "Ｕｍｂｒｅｌｌａ" to ASCII, which that alias is not.
    profile = initech().model_copy(
        update={"competitors": (CompetitorDef(name="Ｕｍｂｒｅｌｌａ"),)}
    )
    verdict = SecurityGate(profile).screen(raw_question="Ｕｍｂｒｅｌｌａ bookings")
    assert verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE


def test_an_ordinary_question_with_hidden_characters_is_allowed() -> None:
    verdict = SecurityGate(acme()).screen(raw_question="香\u200b港FY2025收入是多少")
    assert verdict.decision is SecurityDecision.ALLOW
