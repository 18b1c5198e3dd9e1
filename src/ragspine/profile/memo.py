"""Results of pure functions of a text, remembered with the profile they were computed for.

A narrative answer reads the same passages again and again — their topic terms, the figure a
sentence states — and each reading runs the profile's matchers over the text. Those results
depend on the text and the profile alone (and, for a sentence's period, on the day asked), so
they are kept per profile object: a changed profile is a new object with nothing remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from ragspine.profile.model import DomainProfile

_Value = TypeVar("_Value")

# Entries per memo; a full memo starts again empty (cheaper than keeping an order for LRU).
LIMIT = 8192


class Memo(Generic[_Value]):
    """``compute()``'s value per key, up to :data:`LIMIT` keys. Safe to share between threads:
    at worst two of them compute the same value."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._limit = limit
        self._values: dict[Hashable, _Value] = {}

    def get(self, key: Hashable, compute: Callable[[], _Value]) -> _Value:
        try:
            return self._values[key]
        except KeyError:
            pass
        value = compute()
        if len(self._values) >= self._limit:
            self._values = {}
        self._values[key] = value
        return value


def memo_for(profile: DomainProfile, name: str) -> Memo[_Value]:
    """The memo called ``name`` kept with ``profile`` (one per profile object)."""
    memo: Memo[_Value] = profile.compiled(f"memo:{name}", _new_memo)
    return memo


def _new_memo(_: DomainProfile) -> Memo[Any]:
    return Memo()
