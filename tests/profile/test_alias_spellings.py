"""Every spelling of every alias maps to its code; spellings that clash fail at load time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragspine.errors import ProfileError
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import load_profile
from ragspine.profile.matching import AliasEntry, AliasMatcher
from tests.profiles import INITECH_PATH, acme_glossary


def codes(text: str) -> list[str]:
    return [h.code for h in acme_glossary().terms.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "HongKong revenue",  # the second spelling of an alias that differs only by a space
        "Hong Kong revenue",
        "HONGKONG revenue",
        "hong kong revenue",
        "hong \t kong revenue",
        "hongkong revenue",
    ],
)
def test_every_spelling_of_hong_kong_finds_the_entity(text: str) -> None:
    assert codes(text) == ["ACME_HK", "REVENUE"]


def test_an_alias_spelled_like_its_code_with_spaces_finds_that_code(tmp_path: Path) -> None:
    source = INITECH_PATH.read_text(encoding="utf-8")
    extra = (
        '\n[[metrics]]\ncode = "NEWSALES"\nname_zh = "新销售"\nname_en = "Fresh sales"\n'
        'unit = "USD_M"\naliases = ["new sales"]\n'
    )
    path = tmp_path / "profile.toml"
    path.write_text(source + extra, encoding="utf-8")
    terms = glossary_for(load_profile(path)).terms
    for text in ("new sales", "New  Sales", "NEWSALES", "newsales"):
        assert [h.code for h in terms.finditer(f"US {text} in FY2025")] == ["INI_US", "NEWSALES"]
    assert [h.code for h in terms.finditer("renew sales")] == []


def test_word_edges_hold_for_every_spelling() -> None:
    matcher = AliasMatcher([AliasEntry("NIC", "k", "NIC"), AliasEntry("Hong Kong", "k", "HK")])
    assert list(matcher.finditer("picnic")) == []
    assert list(matcher.finditer("xhongkong")) == []
    assert list(matcher.finditer("hongkongs")) == []
    assert [h.code for h in matcher.finditer("NIC, HongKong.")] == ["NIC", "HK"]


def test_cjk_aliases_match_inside_a_sentence() -> None:
    assert codes("请问香港地区收入") == ["ACME_HK", "REVENUE"]


def test_a_longer_alias_that_fails_its_word_edge_gives_way_to_a_shorter_one() -> None:
    matcher = AliasMatcher([AliasEntry("AB", "k", "SHORT"), AliasEntry("AB CD", "k", "LONG")])
    assert [(h.code, h.text) for h in matcher.finditer("ab cdx")] == [("SHORT", "ab")]


def test_spaces_are_ignored_everywhere_only_when_asked() -> None:
    entries = [AliasEntry("竞安", "c", "X"), AliasEntry("Globex", "c", "G")]
    flexible = AliasMatcher(entries, flexible_spaces=True)
    assert [(h.code, h.text) for h in flexible.finditer("竞 安和Glo bex")] == [
        ("X", "竞 安"),
        ("G", "Glo bex"),
    ]
    assert list(AliasMatcher(entries).finditer("竞 安和Glo bex")) == []


def test_matching_many_aliases_takes_one_pass() -> None:
    entries = [AliasEntry(f"name{i:04d}", "k", f"C{i}") for i in range(2000)]
    matcher = AliasMatcher(entries)
    assert [h.code for h in matcher.finditer("x name1999 y NAME0007")] == ["C1999", "C7"]


@pytest.mark.parametrize(
    ("edit", "first", "second"),
    [
        # Two codes whose aliases differ only by spacing or case.
        (
            lambda t: t.replace('"US", "America"', '"US", "America", "World  Wide"'),
            "'Worldwide' (INI_WORLD)",
            "'World  Wide' (INI_US)",
        ),
        (
            lambda t: t.replace('name_en = "Bookings"', 'name_en = "Bookings"\naliases = ["u s"]'),
            "'US' (INI_US)",
            "'u s' (BOOKINGS)",
        ),
    ],
)
def test_a_clash_between_spellings_of_two_codes_names_both(
    tmp_path: Path, edit: Callable[[str], str], first: str, second: str
) -> None:
    path = tmp_path / "profile.toml"
    path.write_text(edit(INITECH_PATH.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ProfileError) as raised:
        load_profile(path)
    message = str(raised.value)
    assert first in message and second in message, message


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        (" hk x", [(1, 3)]),
        ("\t Hong \n Kong\tHK ", [(2, 13), (14, 16)]),
        ("hong\u00a0kong", [(0, 9)]),
        ("\x00HK\x00", [(1, 3)]),
    ],
)
def test_hits_point_into_the_text_as_typed(text: str, spans: list[tuple[int, int]]) -> None:
    matcher = AliasMatcher([AliasEntry("Hong Kong", "e", "A"), AliasEntry("HK", "e", "B")])
    found = [(h.start, h.end) for h in matcher.finditer(text)]
    assert found == spans
    assert [text[a:b] for a, b in found] == [h.text for h in matcher.finditer(text)]
