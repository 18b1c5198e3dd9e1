"""API keys: random tokens stored only as hashes, each with a name and a sensitivity clearance.

The contract the app relies on is :class:`Caller` and :class:`Authenticator`; the workspace's
key store implements it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ragspine.profile.sensitivity import Sensitivity


@dataclass(frozen=True)
class Caller:
    """Who is asking: the key's name (never the key) and the highest level it may read."""

    name: str
    clearance: Sensitivity


class Authenticator(Protocol):
    """Turns a presented token into its caller; ``None`` for an unknown or revoked key."""

    def authenticate(self, token: str) -> Caller | None: ...
