"""The glossary: raw terms to codes, one glossary per profile object, compiled on first use."""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.profile import glossary as glossary_module
from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from tests.profiles import acme, acme_glossary, initech


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("收入", "REVENUE"),
        ("营业收入", "REVENUE"),
        ("营收", "REVENUE"),
        ("revenue", "REVENUE"),
        ("Revenue", "REVENUE"),
        ("REVENUE", "REVENUE"),
        ("turnover", "REVENUE"),
        ("  revenue ", "REVENUE"),
        ("营运利润", "OPERATING_PROFIT"),
        ("operating profit", "OPERATING_PROFIT"),
        ("Operating  Profit", "OPERATING_PROFIT"),
        ("新业务价值", "NBV"),
        ("NBV", "NBV"),
        ("nbv", "NBV"),
        ("新业务价值利润率", "NBV_MARGIN"),
        ("ROE", "ROE"),
    ],
)
def test_normalize_metric(raw: str, code: str) -> None:
    assert acme_glossary().normalize_metric(raw) == code


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("香港", "ACME_HK"),
        ("Hong Kong", "ACME_HK"),
        ("hongkong", "ACME_HK"),
        ("ACME_HK", "ACME_HK"),
        ("acme hk", "ACME_HK"),
        ("中国内地", "ACME_CN"),
        ("中国", "ACME_CN"),
        ("Mainland China", "ACME_CN"),
        ("澳门", "ACME_MO"),
        ("集团", "ACME_GROUP"),
    ],
)
def test_normalize_entity(raw: str, code: str) -> None:
    assert acme_glossary().normalize_entity(raw) == code


@pytest.mark.parametrize(
    ("raw", "code"),
    [("代理人渠道", "AGENCY"), ("banca", "BANCA"), ("TOTAL", "TOTAL"), ("合计", "TOTAL")],
)
def test_normalize_channel(raw: str, code: str) -> None:
    assert acme_glossary().normalize_channel(raw) == code


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "   ",
        "revenue growth",
        "revenue 2024",
        "收入增长",
        "香港收入",
        "rev",
        "enue",
        "profit",
        "新加坡",
        "Singapore",
        "友邦",
        "竞安保险",
    ],
)
def test_unknown_or_compound_terms_are_none_never_a_guess(raw: str | None) -> None:
    glossary = acme_glossary()
    assert glossary.normalize_metric(raw) is None
    assert glossary.normalize_entity(raw) is None
    assert glossary.normalize_channel(raw) is None


def test_each_normalizer_only_answers_for_its_own_kind() -> None:
    glossary = acme_glossary()
    assert glossary.normalize_metric("香港") is None
    assert glossary.normalize_entity("收入") is None
    assert glossary.normalize_channel("香港") is None
    assert glossary.normalize_metric("代理人渠道") is None


@pytest.mark.parametrize("profile", [acme(), initech()], ids=["acme", "initech"])
def test_are_codes_agrees_with_the_normalizers_on_every_spelling(profile: DomainProfile) -> None:
    # ``are_codes`` is the normalizers' shortcut for codes: true exactly when each of the
    # three spellings is its own code under its own normalizer.
    glossary = glossary_for(profile)
    spellings = [entry.alias for entry in glossary.terms.entries()] + ["", "nothing", " HK"]
    metrics = [m.code for m in profile.metrics]
    entities = [e.code for e in profile.entities]
    channels = [c.code for c in profile.channels]
    for spelling in spellings:
        for triple in (
            (spelling, entities[0], channels[0]),
            (metrics[0], spelling, channels[0]),
            (metrics[0], entities[0], spelling),
        ):
            metric, entity, channel = triple
            own = (
                glossary.normalize_metric(metric) == metric
                and glossary.normalize_entity(entity) == entity
                and glossary.normalize_channel(channel) == channel
            )
            assert glossary.are_codes(*triple) is own, triple


@pytest.mark.parametrize(
    ("raw", "period"),
    [
        ("FY24", Period(2024, "FY")),
        ("2025年上半年", Period(2025, "H1")),
        ("3Q25", Period(2025, "Q3")),
        ("去年", Period(2025, "FY")),
    ],
)
def test_normalize_period(raw: str, period: Period) -> None:
    assert acme_glossary().normalize_period(raw, date(2026, 11, 26)) == period


@pytest.mark.parametrize("raw", [None, "", "9999", "FY2024 revenue", "soon"])
def test_normalize_period_is_none_for_anything_else(raw: str | None) -> None:
    assert acme_glossary().normalize_period(raw, date(2026, 11, 26)) is None


def test_another_profile_has_its_own_vocabulary() -> None:
    glossary = glossary_for(initech())
    assert glossary.normalize_entity("America") == "INI_US"
    assert glossary.normalize_entity("Worldwide") == "INI_WORLD"
    assert glossary.normalize_metric("订单额") == "BOOKINGS"
    assert glossary.normalize_channel("all") == "TOTAL"
    assert glossary.normalize_channel("partner") == "PARTNER"
    assert glossary.competitors.lookup("Umbrella") is not None
    assert glossary.normalize_entity("香港") is None
    assert glossary.normalize_metric("revenue") is None
    assert glossary.competitors.lookup("竞安") is None


def test_the_example_profile_knows_nothing_of_another() -> None:
    glossary = acme_glossary()
    assert glossary.normalize_entity("America") is None
    assert glossary.normalize_metric("Bookings") is None
    assert glossary.normalize_channel("partner") is None
    assert glossary.competitors.lookup("Umbrella") is None


def test_period_normalisation_uses_the_profile_fiscal_calendar() -> None:
    # Initech's fiscal year ends in March: on 1 April 2026 "last year" is FY2026.
    day = date(2026, 4, 1)
    assert glossary_for(initech()).normalize_period("去年", day) == Period(2026, "FY")
    assert acme_glossary().normalize_period("去年", day) == Period(2025, "FY")


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[DomainProfile]:
    """Every profile a glossary is compiled for, in order, from now on."""
    seen: list[DomainProfile] = []
    build = glossary_module.build_glossary

    def counting(profile: DomainProfile) -> Glossary:
        seen.append(profile)
        return build(profile)

    monkeypatch.setattr(glossary_module, "build_glossary", counting)
    return seen


def test_nothing_is_compiled_until_first_use(builds: list[DomainProfile]) -> None:
    profile = initech()
    assert builds == []
    glossary = glossary_for(profile)
    assert builds == [profile]
    assert glossary.profile is profile
    assert glossary.calendar.year_end_month == 3


def test_the_same_profile_object_gives_the_same_glossary(builds: list[DomainProfile]) -> None:
    profile = initech()
    assert glossary_for(profile) is glossary_for(profile)
    assert len(builds) == 1


def test_each_loaded_profile_gets_its_own_glossary(builds: list[DomainProfile]) -> None:
    # Two loads of one file are two objects: each compiles its own glossary, for itself.
    first, second = initech(), initech()
    assert glossary_for(first) is not glossary_for(second)
    assert glossary_for(second).profile is second
    assert [id(p) for p in builds] == [id(first), id(second)]
    example = load_profile(example_profile_path())
    assert glossary_for(example) is not acme_glossary()
    assert glossary_for(example).profile is example
    assert acme_glossary().profile is acme()


def test_compiling_a_glossary_does_not_change_what_a_profile_equals() -> None:
    used, unused = initech(), initech()
    glossary_for(used)
    assert used == unused


def test_a_copied_profile_compiles_its_own_glossary() -> None:
    # A copy with another fiscal calendar must not be served the original's glossary.
    profile = initech()
    glossary_for(profile)
    copy = profile.model_copy(
        update={"fiscal": profile.fiscal.model_copy(update={"year_end_month": 12})}
    )
    assert glossary_for(copy).profile is copy
    assert glossary_for(copy).calendar.year_end_month == 12
    assert glossary_for(profile).calendar.year_end_month == 3


def test_competitors_are_not_terms() -> None:
    glossary = acme_glossary()
    assert glossary.terms.lookup("竞安保险") is None
    assert glossary.competitors.lookup("竞安") is not None


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("其他收入", [(0, 4)]),
        ("其它营运利润", [(0, 6)]),
        ("Other revenue", [(0, 13)]),
        ("other" + " " * 5_000 + "revenue", [(0, 5_012)]),
        ("收入率", [(0, 3)]),
        # "non-operating profit" is not the operating profit (it was answered with it)
        ("non-operating profit", [(0, 20)]),
        ("Non operating profit", [(0, 20)]),
        ("non – operating profit", [(0, 22)]),
        ("非营运利润", [(0, 5)]),
    ],
)
def test_other_and_ratio_spellings_name_undefined_metrics(
    text: str, other: list[tuple[int, int]]
) -> None:
    matches = acme_glossary().match_terms(text)
    assert (matches.hits, matches.other_metrics) == ([], other)


@pytest.mark.parametrize(
    "text", ["another revenue", "其他 收入", "其他, 收入", "revenue", "canon revenue", "除非收入"]
)
def test_a_prefix_must_touch_the_alias_to_make_it_another_metric(text: str) -> None:
    matches = acme_glossary().match_terms(text)
    assert [h.code for h in matches.hits] == ["REVENUE"]
    assert matches.other_metrics == []


def test_every_hit_of_a_long_text_gets_its_own_prefix_check() -> None:
    # The prefix is looked for right before each hit, not anywhere earlier in the text.
    text = "其他收入，收入；" * 2_000
    matches = acme_glossary().match_terms(text)
    assert matches.other_metrics == [(8 * i, 8 * i + 4) for i in range(2_000)]
    assert [h.start for h in matches.hits] == [8 * i + 5 for i in range(2_000)]


@pytest.mark.parametrize(
    "text", ["ACME Macau", "ACME's Macau unit", "ACME’s Macau", "ACME的澳门", "ACME 的 澳门"]
)
def test_the_home_company_before_a_unit_qualifies_it_possessive_or_not(text: str) -> None:
    """ "<home company>'s <unit>" is the unit, never a comparison of the company with it."""
    hits = acme_glossary().match_terms(text).hits
    assert [(h.kind, h.code) for h in hits] == [("entity", "ACME_MO")]


def test_the_home_company_and_a_unit_joined_by_and_stay_two() -> None:
    hits = acme_glossary().match_terms("ACME and Macau").hits
    assert [h.code for h in hits] == ["ACME_GROUP", "ACME_MO"]
