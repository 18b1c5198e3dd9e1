"""A found fact's wire form is remembered per profile object: the remembered form is the one
written afresh for every field it shows, and each caller gets a copy of its own."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from ragspine.agent.response import displayed
from ragspine.agent.types import FoundFact, Slots, Source
from ragspine.profile.display import Names
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period

FOUND = FoundFact(
    Slots("REVENUE", "ACME_HK", Period(2024, "FY"), "TOTAL"),
    1234.5,
    "HKD_M",
    Source("ACME_5Y.xlsx", "sheet=HK,cell=C7"),
    "Revenue",
)
SLOTS = FOUND.slots
# Each a fact that differs from FOUND in one thing its wire form shows.
VARIANTS = [
    replace(FOUND, value=1234.6),
    replace(FOUND, unit="USD_M"),
    replace(FOUND, source=Source("other.xlsx", "sheet=HK,cell=C7")),
    replace(FOUND, source=Source("ACME_5Y.xlsx", "sheet=HK,cell=C8")),
    replace(FOUND, row_label="Total revenue"),
    replace(FOUND, row_label=None),
    replace(FOUND, slots=replace(SLOTS, metric="NET_PROFIT")),
    replace(FOUND, slots=replace(SLOTS, entity="ACME_CN")),
    replace(FOUND, slots=replace(SLOTS, period=Period(2023, "FY"))),
    replace(FOUND, slots=replace(SLOTS, period=Period(2024, "H1"))),
    replace(FOUND, slots=replace(SLOTS, channel="AGENCY")),
]


@pytest.fixture
def profile() -> DomainProfile:
    """A copy of the shipped profile: one that remembers nothing yet."""
    return load_profile().model_copy()


def _fresh(found: FoundFact, profile: DomainProfile, language: str) -> dict[str, object]:
    """The wire form written by a copy of the profile, which remembers nothing yet."""
    return displayed(found, Names(profile.model_copy(), language))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_remembered_wire_form_is_the_one_written_afresh(
    profile: DomainProfile, variant: FoundFact, language: str
) -> None:
    for found in (FOUND, variant, FOUND):
        for lang in ("zh", "en"):
            displayed(found, Names(profile, lang))
    assert displayed(variant, Names(profile, language)) == _fresh(variant, profile, language)
    assert displayed(FOUND, Names(profile, language)) == _fresh(FOUND, profile, language)


def test_a_found_fact_is_written_once_per_profile_and_language(
    profile: DomainProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[float] = []
    value = Names.value

    def counted(self: Names, amount: float, unit: str, *, signed: bool = False) -> str:
        written.append(amount)
        return value(self, amount, unit, signed=signed)

    monkeypatch.setattr(Names, "value", counted)
    first = displayed(FOUND, Names(profile, "zh"))
    again = displayed(replace(FOUND), Names(profile, "zh"))
    assert again == first
    assert written == [FOUND.value]
    displayed(FOUND, Names(profile, "en"))
    assert written == [FOUND.value, FOUND.value]


def test_each_caller_gets_its_own_wire_form(profile: DomainProfile) -> None:
    names = Names(profile, "zh")
    first = displayed(FOUND, names)
    expected = _fresh(FOUND, profile, "zh")
    first["value_display"] = "tampered"
    source = first["source"]
    assert isinstance(source, dict)
    source["doc"] = "tampered.xlsx"
    assert displayed(FOUND, names) == expected


def test_a_zero_keeps_its_sign(profile: DomainProfile) -> None:
    names = Names(profile, "en")
    displayed(replace(FOUND, value=0.0), names)
    negative = displayed(replace(FOUND, value=-0.0), names)
    value = negative["value"]
    assert isinstance(value, float) and math.copysign(1.0, value) == -1.0
    assert negative == _fresh(replace(FOUND, value=-0.0), profile, "en")
