"""Facts and the stores that keep them: the import path callers use.

``FactStore`` is the embedded SQLite store; ``PostgresFactStore`` the scale-out one (the
``postgres`` extra, imported on first use); every store implements ``FactStoreProtocol``, so
code that only reads or writes facts should depend on the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragspine.profile.periods import PERIOD_TYPES
from ragspine.storage.facts import DEFAULT_CHANNEL, Fact, FactKey, ReviewStatus
from ragspine.storage.protocol import FactStoreProtocol
from ragspine.storage.sqlite_store import SQLiteFactStore

if TYPE_CHECKING:
    from ragspine.storage.postgres.fact_store import PostgresFactStore

FactStore = SQLiteFactStore


def __getattr__(name: str) -> Any:
    # psycopg is optional: the PostgreSQL store is imported only when someone asks for it.
    if name == "PostgresFactStore":
        from ragspine.storage.postgres import PostgresFactStore

        return PostgresFactStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_CHANNEL",
    "PERIOD_TYPES",
    "Fact",
    "FactKey",
    "FactStore",
    "FactStoreProtocol",
    "PostgresFactStore",
    "ReviewStatus",
    "SQLiteFactStore",
]
