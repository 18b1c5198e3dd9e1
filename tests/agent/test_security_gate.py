"""The security gate: competitor names found, masked and refused from the raw question only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.agent.clarify import CLARIFY_OUT_OF_SCOPE_ENTITY
from ragspine.agent.security_gate import (
    SECURITY_ALLOW,
    SECURITY_REFUSE_OUT_OF_SCOPE,
    SecurityDecision,
    SecurityGate,
)
from ragspine.agent.types import ClarifyMode
from tests.profiles import acme, acme_glossary, initech


@pytest.fixture(scope="module")
def gate() -> SecurityGate:
    return SecurityGate(acme())


@pytest.mark.parametrize(
    ("text", "span", "name"),
    [
        ("中国竞联人寿的收入", (0, 6), "中国竞联人寿"),
        ("竞 安保险FY2024收入", (0, 5), "竞安保险"),
        ("请问竞安的收入", (2, 4), "竞安保险"),
        ("What is China Jinglian Life revenue?", (8, 27), "中国竞联人寿"),
        ("globex  assurance revenue", (0, 17), "环宇保险"),
    ],
)
def test_detect_masks_the_competitor_with_equal_length_spaces(
    gate: SecurityGate, text: str, span: tuple[int, int], name: str
) -> None:
    screen = gate.detect(text)
    start, end = span
    assert screen.hit and screen.hits == (name,)
    assert len(screen.masked_text) == len(text)
    assert screen.masked_text == text[:start] + " " * (end - start) + text[end:]


def test_masking_leaves_no_home_alias_behind(gate: SecurityGate) -> None:
    # "中国" / "China" are home-entity aliases inside a competitor's name.
    for text in ("中国竞联人寿的收入", "China Jinglian Life revenue", "中国 竞联的收入"):
        masked = gate.detect(text).masked_text
        codes = {h.code for h in acme_glossary().terms.finditer(masked)}
        assert "ACME_CN" not in codes, text


def test_detect_lists_every_competitor_once_in_order(gate: SecurityGate) -> None:
    screen = gate.detect("环宇、竞安和竞安保险对比")
    assert screen.hits == ("环宇保险", "竞安保险")
    assert screen.masked_text.strip() == "、" + " " * 2 + "和" + " " * 4 + "对比"


def test_detect_without_a_competitor_changes_nothing(gate: SecurityGate) -> None:
    screen = gate.detect("香港FY2025的收入")
    assert not screen.hit and screen.hits == ()
    assert screen.masked_text == "香港FY2025的收入"


def test_screen_refuses_a_competitor_question(gate: SecurityGate) -> None:
    verdict = gate.screen(raw_question="竞安保险FY2024的收入是多少", metric="REVENUE")
    assert verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE
    assert verdict.decision == SECURITY_REFUSE_OUT_OF_SCOPE == "out_of_scope_entity"
    # One code for both layers: the refusal equals the gateway's mode.
    assert verdict.decision == CLARIFY_OUT_OF_SCOPE_ENTITY == ClarifyMode.OUT_OF_SCOPE_ENTITY
    assert verdict.entity == "竞安保险"
    assert verdict.narrowing_options == ("ACME Group",)


@pytest.mark.parametrize("metric", [None, "REVENUE", "竞安保险", "中国竞联人寿的收入"])
def test_screen_decides_from_the_raw_question_only(gate: SecurityGate, metric: str | None) -> None:
    # Whatever a parser put in the metric field, only the raw question counts.
    assert gate.screen(raw_question="香港FY2025的收入", metric=metric).decision == SECURITY_ALLOW
    refused = gate.screen(raw_question="竞 安 的收入", metric=metric)
    assert refused.decision == SECURITY_REFUSE_OUT_OF_SCOPE


def test_allow_verdict_carries_nothing(gate: SecurityGate) -> None:
    verdict = gate.screen(raw_question="What was HK revenue last year?")
    assert (verdict.decision, verdict.entity, verdict.narrowing_options) == (
        SECURITY_ALLOW,
        None,
        (),
    )


def test_gate_uses_the_profile_competitors_and_home_name() -> None:
    gate = SecurityGate(initech())
    assert gate.home_company_name == "Initech"
    verdict = gate.screen(raw_question="umbrella bookings in FY2025")
    assert verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE
    assert (verdict.entity, verdict.narrowing_options) == ("Umbrella Corp", ("Initech",))
    assert gate.detect("Globex and Umbrella Corp bookings").hits == ("Globex", "Umbrella Corp")
    # The example profile's competitors are not this profile's.
    assert gate.screen(raw_question="竞安保险的收入").decision is SecurityDecision.ALLOW


def test_the_shipped_gate_refuses_its_own_competitors_only() -> None:
    gate = SecurityGate(acme())
    assert gate.home_company_name == "ACME Group"
    assert gate.screen(raw_question="Umbrella revenue").decision is SecurityDecision.ALLOW


_SCREENED = st.sampled_from(
    ["中国竞联人寿的收入", "竞 安保险FY2024收入", "香港收入", "globex  assurance", "", "竞安"]
) | st.text(alphabet="竞安保险香港 ", max_size=6)


@given(st.lists(_SCREENED, max_size=12))
def test_the_remembered_screen_is_only_ever_served_for_its_own_text(texts: list[str]) -> None:
    gate = SecurityGate(acme())
    for text in texts:
        assert gate.detect(text) == SecurityGate(acme()).detect(text)  # a gate that saw nothing
