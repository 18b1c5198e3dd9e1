"""Applying the numbered schema steps, and refusing to run on a schema of another version.

``schema_version`` holds one row per applied step. ``ragspine db upgrade`` applies the missing
steps in one transaction under an advisory lock, so two deploys upgrading at once apply each
step once and a failed step leaves the schema at its previous version. Stores only check:
a replica never changes the schema under the others.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from ragspine.errors import SchemaVersionError, StoreError
from ragspine.storage.postgres.connection import PostgresDatabase, redact
from ragspine.storage.postgres.steps import LATEST_VERSION, MIGRATIONS, Migration

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version integer PRIMARY KEY,
    description text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""

__all__ = ["LATEST_VERSION", "MIGRATIONS", "check_version", "schema_version", "upgrade"]


def schema_version(db: PostgresDatabase) -> int:
    """The newest step applied to ``db``'s schema; 0 when it holds no RAGSpine tables."""
    try:
        with db.connection() as conn:
            row = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
            if row is None or not row[0]:
                return 0
            row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
            return int(row[0]) if row is not None else 0
    except psycopg.Error as exc:
        raise _failure(db, "read the schema version", exc) from exc


def _failure(db: PostgresDatabase, action: str, exc: psycopg.Error) -> StoreError:
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return StoreError(f"PostgreSQL database {db.describe()}: cannot {action}: {reason}")


def upgrade_command(db: PostgresDatabase) -> str:
    return f"ragspine db upgrade --database-url {redact(db.url)} --schema {db.schema}"


def open_checked(url: str, *, schema: str, max_size: int = 2) -> PostgresDatabase:
    """A pool on ``schema``, closed again unless the schema is at this ragspine's version."""
    db = PostgresDatabase(url, schema=schema, max_size=max_size)
    try:
        check_version(db)
    except BaseException:
        db.close()
        raise
    return db


def check_version(db: PostgresDatabase) -> None:
    """Refuse a schema at another version than this ragspine's, naming both and the fix."""
    have = schema_version(db)
    if have == LATEST_VERSION:
        return
    where = f"PostgreSQL database {db.describe()}"
    if have > LATEST_VERSION:
        raise SchemaVersionError(
            f"{where} is at schema version {have}, newer than this ragspine understands "
            f"({LATEST_VERSION}); upgrade ragspine (`ragspine db upgrade` never downgrades)"
        )
    state = (
        "holds no RAGSpine tables (schema version 0)"
        if have == 0
        else (f"is at schema version {have}")
    )
    raise SchemaVersionError(
        f"{where} {state}; this ragspine needs version {LATEST_VERSION}: "
        f"run `{upgrade_command(db)}`"
    )


def upgrade(db: PostgresDatabase, *, target: int = LATEST_VERSION) -> list[Migration]:
    """Apply every step after the schema's version up to ``target``; the steps applied."""
    if not 0 <= target <= LATEST_VERSION:
        raise SchemaVersionError(f"no schema version {target}; the latest is {LATEST_VERSION}")
    step: Migration | None = None
    try:
        with db.transaction() as conn:
            # Serialises concurrent upgrades of one schema (CREATE SCHEMA IF NOT EXISTS races).
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"ragspine:{db.schema}",))
            conn.execute(
                sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(db.schema))
            )
            conn.execute(_VERSION_TABLE)
            row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
            have = int(row[0]) if row is not None else 0
            if have > LATEST_VERSION:
                raise SchemaVersionError(
                    f"PostgreSQL database {db.describe()} is at schema version {have}, newer "
                    f"than this ragspine understands ({LATEST_VERSION}); upgrade ragspine"
                )
            pending = [step for step in MIGRATIONS if have < step.version <= target]
            for step in pending:
                for statement in step.statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version (version, description) VALUES (%s, %s)",
                    (step.version, step.description),
                )
    except psycopg.Error as exc:
        action = "upgrade the schema" if step is None else f"apply schema step {step.version}"
        raise _failure(db, f"{action} (nothing was changed)", exc) from exc
    return pending
