"""Sensitivity levels, ordered: PUBLIC < INTERNAL < CONFIDENTIAL < RESTRICTED."""

from __future__ import annotations

from ragspine.enums import ParseableEnum


class Sensitivity(ParseableEnum, label="sensitivity"):
    PUBLIC = "PUBLIC"
    INTERNAL = "INTERNAL"
    CONFIDENTIAL = "CONFIDENTIAL"
    RESTRICTED = "RESTRICTED"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def allows(self, level: Sensitivity) -> bool:
        """True when a caller cleared for ``self`` may see material marked ``level``."""
        return level.rank <= self.rank

    @staticmethod
    def highest(first: Sensitivity, *others: Sensitivity) -> Sensitivity:
        """The most sensitive of the levels given."""
        return max((first, *others), key=lambda level: level.rank)

    def visible_levels(self) -> tuple[str, ...]:
        """The stored level names a caller with this clearance may read."""
        return tuple(level.value for level in Sensitivity if self.allows(level))


_RANK = {
    Sensitivity.PUBLIC: 0,
    Sensitivity.INTERNAL: 1,
    Sensitivity.CONFIDENTIAL: 2,
    Sensitivity.RESTRICTED: 3,
}

# A caller that does not state a clearance sees everything except RESTRICTED material:
# RESTRICTED always needs an explicit grant (docs/architecture.md, invariant 4).
DEFAULT_CLEARANCE = Sensitivity.CONFIDENTIAL
