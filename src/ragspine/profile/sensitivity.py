"""Sensitivity levels, ordered: PUBLIC < INTERNAL < CONFIDENTIAL < RESTRICTED."""

from __future__ import annotations

from enum import StrEnum


class Sensitivity(StrEnum):
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

    @classmethod
    def parse(cls, raw: str | Sensitivity) -> Sensitivity:
        if isinstance(raw, Sensitivity):
            return raw
        try:
            return cls(raw.strip().upper())
        except ValueError:
            valid = ", ".join(level.value for level in cls)
            raise ValueError(f"unknown sensitivity {raw!r}; valid options: {valid}") from None

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
# RESTRICTED always needs an explicit grant (DESIGN §2.4).
DEFAULT_CLEARANCE = Sensitivity.CONFIDENTIAL
