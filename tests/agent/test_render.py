"""An answer line's subject is remembered per profile object: the remembered subject is the one
named afresh for every slot, default channel and language, and naming it runs once."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragspine.agent.render import subject
from ragspine.agent.types import Slots
from ragspine.profile.display import Names
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period

SLOTS = Slots("REVENUE", "ACME_HK", Period(2024, "FY"), "AGENCY")
# Each names another subject than SLOTS under the default channel TOTAL.
VARIANTS = [
    (replace(SLOTS, metric="NET_PROFIT"), "TOTAL"),
    (replace(SLOTS, entity="ACME_CN"), "TOTAL"),
    (replace(SLOTS, period=Period(2023, "FY")), "TOTAL"),
    (replace(SLOTS, period=Period(2024, "H1")), "TOTAL"),
    (replace(SLOTS, channel="BANCA"), "TOTAL"),
    (replace(SLOTS, channel="TOTAL"), "TOTAL"),
    (SLOTS, "AGENCY"),
]


@pytest.fixture
def profile() -> DomainProfile:
    """A copy of the shipped profile: one that remembers nothing yet."""
    return load_profile().model_copy()


@pytest.mark.parametrize(("slots", "default_channel"), VARIANTS)
@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_remembered_subject_is_the_one_named_afresh(
    profile: DomainProfile, slots: Slots, default_channel: str, language: str
) -> None:
    for lang in ("zh", "en"):
        subject(SLOTS, "TOTAL", Names(profile, lang))
        subject(slots, default_channel, Names(profile, lang))
    fresh = subject(slots, default_channel, Names(profile.model_copy(), language))
    assert subject(slots, default_channel, Names(profile, language)) == fresh
    assert fresh != subject(SLOTS, "TOTAL", Names(profile.model_copy(), language))


def test_a_subject_is_named_once_per_profile_and_language(
    profile: DomainProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    named: list[str] = []
    entity = Names.entity

    def counted(self: Names, code: str) -> str:
        named.append(code)
        return entity(self, code)

    monkeypatch.setattr(Names, "entity", counted)
    first = subject(SLOTS, "TOTAL", Names(profile, "zh"))
    assert subject(replace(SLOTS), "TOTAL", Names(profile, "zh")) == first
    assert named == ["ACME_HK"]
    subject(SLOTS, "TOTAL", Names(profile, "en"))
    assert named == ["ACME_HK", "ACME_HK"]
