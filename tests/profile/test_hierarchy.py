"""The entity hierarchy and named groups: read from the profile, refused when unsound."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.errors import ProfileError
from ragspine.profile.loader import example_profile_path, load_profile
from tests.profiles import acme, initech


def _variant(tmp_path: Path, old: str, new: str, *, count: int = 1) -> Path:
    """The example profile with ``old`` replaced (its FAQ file left out: it is not copied)."""
    text = example_profile_path().read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, count).replace('faq_file = "acme_faq.toml"', "")
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_example_regions_are_children_of_the_group_entity() -> None:
    profile = acme()
    home = profile.company.home_entity
    assert profile.children(home) == ("ACME_HK", "ACME_CN", "ACME_MO")
    assert profile.home_entity.parent is None
    group = profile.group("ALL_REGIONS")
    assert group is not None
    assert profile.members(group) == profile.children(home)


def test_a_profile_without_parents_has_no_children_and_loads() -> None:
    profile = initech()
    assert all(entity.parent is None for entity in profile.entities)
    assert profile.children(profile.company.home_entity) == ()


def test_an_unknown_parent_is_refused_naming_the_key(tmp_path: Path) -> None:
    path = _variant(tmp_path, 'parent = "ACME_GROUP"', 'parent = "ACME_NOWHERE"')
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert "key 'entities.1.parent'" in str(caught.value)
    assert "'ACME_NOWHERE' is not one of the entity codes" in str(caught.value)


def test_parents_forming_a_cycle_are_refused(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        'geography = "GLOBAL"\n',
        'geography = "GLOBAL"\nparent = "ACME_HK"\n',
    )
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert "cycle" in str(caught.value)
    assert "ACME_GROUP → ACME_HK → ACME_GROUP" in str(caught.value)


def test_an_entity_cannot_be_its_own_parent(tmp_path: Path) -> None:
    path = _variant(
        tmp_path, 'geography = "GLOBAL"\n', 'geography = "GLOBAL"\nparent = "ACME_GROUP"\n'
    )
    with pytest.raises(ProfileError, match="cycle"):
        load_profile(path)


def test_a_group_member_that_is_no_entity_is_refused(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        'parent = "ACME_GROUP"\naliases = ["all regions"',
        ('members = ["ACME_HK", "ACME_XX"]\naliases = ["all regions"'),
    )
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert "key 'groups.0.members.1'" in str(caught.value)


def test_a_group_needs_members_or_a_parent_with_children(tmp_path: Path) -> None:
    neither = _variant(
        tmp_path, 'parent = "ACME_GROUP"\naliases = ["all regions"', ('aliases = ["all regions"')
    )
    with pytest.raises(ProfileError, match="neither members nor a parent"):
        load_profile(neither)
    childless = _variant(
        tmp_path,
        'parent = "ACME_GROUP"\naliases = ["all regions"',
        ('parent = "ACME_MO"\naliases = ["all regions"'),
    )
    with pytest.raises(ProfileError, match="would be empty"):
        load_profile(childless)


def test_a_group_alias_shared_with_an_entity_is_refused(tmp_path: Path) -> None:
    path = _variant(tmp_path, 'aliases = ["all regions", ', 'aliases = ["Macau", "all regions", ')
    with pytest.raises(ProfileError, match="already used by"):
        load_profile(path)
