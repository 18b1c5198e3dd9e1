"""Parses kept per profile (``parse.PARSE_CACHE_SIZE``): the same question on the same day over
the same profile object is parsed once; another day, another profile object or another wording
is parsed again, so a kept parse is never one the question would not get now."""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent import parse as parse_module
from ragspine.agent.parse import forget_parses, parse_intent
from ragspine.agent.types import ParsedIntent
from ragspine.profile.model import DomainProfile
from tests.profiles import initech

DAY = date(2026, 11, 26)
LAST_YEAR = "美国去年的订单额是多少"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, date]]:
    """Every (question, day) the parser itself runs on, in order."""
    seen: list[tuple[str, date]] = []
    real = parse_module._parse

    def counting(question: str, day: date, profile: DomainProfile) -> ParsedIntent:
        seen.append((question, day))
        return real(question, day, profile)

    monkeypatch.setattr(parse_module, "_parse", counting)
    return seen


def test_the_same_question_on_the_same_day_is_parsed_once(
    parsed: list[tuple[str, date]],
) -> None:
    profile = initech()
    first = parse_intent(LAST_YEAR, DAY, profile=profile)
    again = parse_intent(LAST_YEAR, DAY, profile=profile)
    assert parsed == [(LAST_YEAR, DAY)]
    assert again == first
    assert (first.metric, first.entity) == ("BOOKINGS", "INI_US")


def test_another_day_wording_or_profile_is_parsed_again(
    parsed: list[tuple[str, date]],
) -> None:
    profile = initech()
    earlier = parse_intent(LAST_YEAR, DAY, profile=profile)
    a_year_on = date(2027, 11, 26)
    later = parse_intent(LAST_YEAR, a_year_on, profile=profile)
    # "Last year" a year later is the next fiscal year.
    assert earlier.period is not None and later.period is not None
    assert later.period.year == earlier.period.year + 1
    parse_intent("美国去年的订单额是多少？", DAY, profile=profile)
    parse_intent(LAST_YEAR, DAY, profile=initech())  # a profile that changed is a new object
    assert parsed == [
        (LAST_YEAR, DAY),
        (LAST_YEAR, a_year_on),
        ("美国去年的订单额是多少？", DAY),
        (LAST_YEAR, DAY),
    ]


def test_without_a_reference_date_the_parse_follows_today(
    parsed: list[tuple[str, date]], monkeypatch: pytest.MonkeyPatch
) -> None:
    today = [DAY]

    class Clock(date):
        @classmethod
        def today(cls) -> date:
            return today[0]

    monkeypatch.setattr(parse_module, "date", Clock)
    profile = initech()
    before = parse_intent(LAST_YEAR, profile=profile)
    today[0] = date(2027, 11, 26)  # a year passes while the parse is kept
    after = parse_intent(LAST_YEAR, profile=profile)
    assert before.period is not None and after.period is not None
    assert after.period.year == before.period.year + 1
    assert parsed == [(LAST_YEAR, DAY), (LAST_YEAR, date(2027, 11, 26))]


def test_a_forgotten_parse_is_parsed_again(parsed: list[tuple[str, date]]) -> None:
    profile = initech()
    parse_intent(LAST_YEAR, DAY, profile=profile)
    forget_parses(profile)
    parse_intent(LAST_YEAR, DAY, profile=profile)
    forget_parses(initech())  # another profile object's cache: this one's is kept
    parse_intent(LAST_YEAR, DAY, profile=profile)
    assert parsed == [(LAST_YEAR, DAY), (LAST_YEAR, DAY)]
