"""PostgreSQL stores for scale-out, behind the same Protocols as the embedded SQLite stores.

psycopg is the ``postgres`` extra: importing this package without it fails with the command
that installs it, while the rest of ragspine imports and runs without it.
"""

from __future__ import annotations

from ragspine.optional import import_optional

import_optional("psycopg", extra="postgres")
import_optional("psycopg_pool", extra="postgres")

# The extra is checked above, so these imports are sure to find psycopg.
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase  # noqa: E402
from ragspine.storage.postgres.fact_store import PostgresFactStore  # noqa: E402
from ragspine.storage.postgres.migrations import (  # noqa: E402
    LATEST_VERSION,
    MIGRATIONS,
    schema_version,
    upgrade,
)
from ragspine.storage.postgres.workspace_store import PostgresWorkspaceStore  # noqa: E402

__all__ = [
    "DEFAULT_SCHEMA",
    "LATEST_VERSION",
    "MIGRATIONS",
    "PostgresDatabase",
    "PostgresFactStore",
    "PostgresWorkspaceStore",
    "schema_version",
    "upgrade",
]
