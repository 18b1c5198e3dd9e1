"""The entity hierarchy's checks: every parent and member exists, and no entity is its own
ancestor.

A profile's entities may name a ``parent`` (the entity whose figure is theirs summed, as a
group is its regions), and its named groups list ``members`` or a ``parent`` whose children
they are. Rankings, totals and exclusions take their population from here, so a dangling
code or a cycle would make "all of them" mean nothing: the loader refuses both, naming the key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class _Entity(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def parent(self) -> str | None: ...


class _Group(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def members(self) -> tuple[str, ...]: ...
    @property
    def parent(self) -> str | None: ...


def hierarchy_issue(
    entities: Sequence[_Entity], groups: Sequence[_Group]
) -> tuple[str, str] | None:
    """The first problem as (dotted key, reason), or None for a sound hierarchy."""
    codes = {e.code for e in entities}
    listing = ", ".join(e.code for e in entities)
    for index, entity in enumerate(entities):
        if entity.parent is None:
            continue
        if entity.parent not in codes:
            return (
                f"entities.{index}.parent",
                f"{entity.parent!r} is not one of the entity codes ({listing})",
            )
    for index, entity in enumerate(entities):
        cycle = _cycle_from(entity.code, {e.code: e.parent for e in entities})
        if cycle:
            return (
                f"entities.{index}.parent",
                f"the parents form a cycle ({' → '.join(cycle)}): an entity cannot be "
                "its own ancestor",
            )
    for index, group in enumerate(groups):
        if not group.members and group.parent is None:
            return (
                f"groups.{index}",
                f"group {group.code} names neither members nor a parent whose children it is",
            )
        if group.members and group.parent is not None:
            return (
                f"groups.{index}",
                f"group {group.code} names both members and a parent: give one of them",
            )
        if group.parent is not None and group.parent not in codes:
            return (
                f"groups.{index}.parent",
                f"{group.parent!r} is not one of the entity codes ({listing})",
            )
        if group.parent is not None and not any(e.parent == group.parent for e in entities):
            return (
                f"groups.{index}.parent",
                f"no entity names {group.parent!r} as its parent, so group {group.code} "
                "would be empty",
            )
        for n, member in enumerate(group.members):
            if member not in codes:
                return (
                    f"groups.{index}.members.{n}",
                    f"{member!r} is not one of the entity codes ({listing})",
                )
        if len(set(group.members)) != len(group.members):
            return (f"groups.{index}.members", f"group {group.code} lists a member twice")
    return None


def _cycle_from(start: str, parent_of: dict[str, str | None]) -> list[str]:
    """The chain of parents from ``start`` back to ``start``, or [] when it ends at a root."""
    chain = [start]
    seen = {start}
    current = parent_of.get(start)
    while current is not None:
        chain.append(current)
        if current == start:
            return chain
        if current in seen:  # a cycle further up: reported from one of its own members
            return []
        seen.add(current)
        current = parent_of.get(current)
    return []
