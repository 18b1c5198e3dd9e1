"""One alias must mean one thing: two codes sharing a name would make every match a guess.

The profile's cross-checks (``profile.model``) refuse such a profile, naming the key of the
second alias (or the second use of a code within a section) and the first one it reads as.
Aliases compare case-folded and without whitespace, the way the matchers compare them; every
name a question may use counts (codes, Chinese and English names and aliases of entities,
metrics, derived metrics, channels and groups, and the competitors' names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragspine.profile.matching import alias_key

if TYPE_CHECKING:
    from ragspine.profile.model import DomainProfile

_SECTIONS = ("entities", "metrics", "channels", "groups", "derived")


def code_clash(profile: DomainProfile) -> tuple[str, str] | None:
    """The first code used twice within one section, as (dotted key, reason)."""
    for section in _SECTIONS:
        first: dict[str, int] = {}
        for index, item in enumerate(getattr(profile, section)):
            earlier = first.setdefault(item.code, index)
            if earlier != index:
                return (
                    f"{section}.{index}.code",
                    f"duplicate code {item.code!r} (already used by {section}.{earlier})",
                )
    return None


def alias_clash(profile: DomainProfile) -> tuple[str, str] | None:
    """The first alias another code already holds, as (dotted key, reason); None for none."""
    # alias key -> (owner, dotted key, spelling) of the first alias with that key
    owners: dict[str, tuple[tuple[str, str], str, str]] = {}
    for section, code, key, alias in _aliases(profile):
        owner, where, first = owners.setdefault(alias_key(alias), ((section, code), key, alias))
        if owner != (section, code):
            return (
                key,
                f"alias {alias!r} is already used by {where} ({owner[1]}): {first!r} "
                f"({owner[1]}) and {alias!r} ({code}) read as one name, since aliases "
                "compare ignoring case and spaces",
            )
    return None


def _aliases(profile: DomainProfile) -> list[tuple[str, str, str, str]]:
    """(section, code, dotted key, alias) for every name a question may use."""
    found: list[tuple[str, str, str, str]] = []
    for section in _SECTIONS:
        for index, item in enumerate(getattr(profile, section)):
            for name in ("code", "name_zh", "name_en"):
                if getattr(item, name):
                    found.append(
                        (section, item.code, f"{section}.{index}.{name}", getattr(item, name))
                    )
            for n, alias in enumerate(item.aliases):
                found.append((section, item.code, f"{section}.{index}.aliases.{n}", alias))
    for index, comp in enumerate(profile.competitors):
        found.append(("competitors", comp.name, f"competitors.{index}.name", comp.name))
        for n, alias in enumerate(comp.aliases):
            found.append(("competitors", comp.name, f"competitors.{index}.aliases.{n}", alias))
    return found
