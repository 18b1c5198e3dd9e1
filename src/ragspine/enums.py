"""The one parser every closed set of names shares: ``ParseableEnum.parse``.

A subclass names what it is once (``class Engine(ParseableEnum, label="vector engine")``) and
gets a ``parse`` that accepts a member or its value in any case with surrounding spaces, and
otherwise raises ``ValueError("unknown vector engine 'x'; valid options: usearch, numpy")``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Self, cast


class ParseableEnum(StrEnum):
    """A ``StrEnum`` whose ``parse`` is forgiving about case and spaces, and exact about names."""

    # Annotation only: a value here would make it an enum member.
    _label: ClassVar[str]

    def __init_subclass__(cls, *, label: str, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._label = label

    @classmethod
    def parse(cls, raw: str | Self) -> Self:
        """The member named by ``raw``; a ValueError lists the valid options."""
        # The exact value is the common case (stored rows, members passed through), and one
        # dict lookup keeps per-chunk and per-fact callers cheap (``cls(raw)`` costs several
        # times more); a member hashes and compares as its value.
        try:
            member = cls._value2member_map_.get(raw)
        except TypeError:  # unhashable: not a name of ours either
            member = None
        if member is not None:
            return cast(Self, member)
        if isinstance(raw, str):
            key = raw.strip().casefold()
            for member in cls:
                if member.value.casefold() == key:
                    return member
        valid = ", ".join(member.value for member in cls)
        raise ValueError(f"unknown {cls._label} {raw!r}; valid options: {valid}")
