"""Facts and the stores that keep them: the import path callers use.

``FactStore`` is the embedded SQLite store; every store implements ``FactStoreProtocol``, so
code that only reads or writes facts should depend on the protocol.
"""

from __future__ import annotations

from ragspine.profile.periods import PERIOD_TYPES
from ragspine.storage.facts import DEFAULT_CHANNEL, Fact, FactKey, ReviewStatus
from ragspine.storage.protocol import FactStoreProtocol
from ragspine.storage.sqlite_store import SQLiteFactStore

FactStore = SQLiteFactStore

__all__ = [
    "DEFAULT_CHANNEL",
    "PERIOD_TYPES",
    "Fact",
    "FactKey",
    "FactStore",
    "FactStoreProtocol",
    "ReviewStatus",
    "SQLiteFactStore",
]
