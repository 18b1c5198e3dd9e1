"""FAQ items in PostgreSQL: the vetted answers every API process of a deployment serves.

An embedded workspace serves the FAQ file its profile names. A deployment's API processes may
run on several machines, so the checked items are published into its schema (step 6) by
``ragspine faq publish``: the whole set is replaced in one transaction, and every process
picks the new set up within :data:`RELOAD_SECONDS` of the commit, without a restart. Until a
set is published, each process serves the FAQ file of its own profile, as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Self

from ragspine.optional import import_optional

import_optional("psycopg", extra="postgres")

# The extra is checked above, so these imports are sure to find it.
import psycopg  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from ragspine.errors import StoreError  # noqa: E402
from ragspine.profile.model import DomainProfile  # noqa: E402
from ragspine.profile.sensitivity import Sensitivity  # noqa: E402
from ragspine.service.faq.faq_cache import FaqCache, FaqHit  # noqa: E402
from ragspine.service.faq.items import FaqItem  # noqa: E402
from ragspine.storage.postgres.connection import DEFAULT_SCHEMA, PostgresDatabase  # noqa: E402
from ragspine.storage.postgres.migrations import open_checked  # noqa: E402

_log = logging.getLogger(__name__)

# How stale a process's FAQ may be after a publish: one indexed read of one row per this
# many seconds per process.
RELOAD_SECONDS = 1.0


def item_to_json(item: FaqItem) -> dict[str, Any]:
    """``item`` as the JSON object a ``faq_items`` row holds (without its file line)."""
    return {
        "id": item.id,
        "question": item.question,
        "answer": item.answer,
        "source_doc": item.source_doc,
        "source_locator": item.source_locator,
        "version": item.version,
        "sensitivity": item.sensitivity.value,
        "owner": item.owner,
        "aliases": list(item.aliases),
        "enabled": item.enabled,
        "valid_from": item.valid_from.isoformat() if item.valid_from else None,
        "valid_until": item.valid_until.isoformat() if item.valid_until else None,
    }


def item_from_json(data: dict[str, Any]) -> FaqItem:
    def day(value: object) -> date | None:
        return date.fromisoformat(str(value)) if value else None

    return FaqItem(
        id=str(data["id"]),
        question=str(data["question"]),
        answer=str(data["answer"]),
        source_doc=str(data["source_doc"]),
        source_locator=str(data["source_locator"]),
        version=str(data["version"]),
        sensitivity=Sensitivity.parse(str(data["sensitivity"])),
        owner=str(data["owner"]),
        aliases=tuple(str(a) for a in data["aliases"]),
        enabled=bool(data["enabled"]),
        valid_from=day(data["valid_from"]),
        valid_until=day(data["valid_until"]),
    )


class PostgresFaqStore:
    """The published FAQ items of one deployment's schema."""

    def __init__(
        self, url: str, *, schema: str = DEFAULT_SCHEMA, database: PostgresDatabase | None = None
    ) -> None:
        # ``database``: a pool this process already holds on the schema (its owner closes it).
        self._owns_db = database is None
        self._db = open_checked(url, schema=schema) if database is None else database

    def describe(self) -> str:
        return self._db.describe()

    def publish(self, items: Sequence[FaqItem], source: str) -> None:
        """Replace the published set with ``items`` (checked already: see ``faq check``),
        naming where they came from; one transaction, so no process sees half a set."""
        try:
            with self._db.transaction() as conn:
                conn.execute("DELETE FROM faq_items")
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO faq_items (position, faq_id, item) VALUES (%s, %s, %s)",
                        [(n, i.id, Jsonb(item_to_json(i))) for n, i in enumerate(items)],
                    )
                conn.execute(
                    "INSERT INTO faq_publication (source, items) VALUES (%s, %s) "
                    "ON CONFLICT (one) DO UPDATE SET source = EXCLUDED.source, "
                    "items = EXCLUDED.items, published_at = clock_timestamp()",
                    (source, len(items)),
                )
        except psycopg.Error as exc:
            raise self._failure("publish the FAQ", exc) from exc

    def items(self) -> tuple[FaqItem, ...]:
        """The published items in their file's order (none when nothing was published)."""
        try:
            with self._db.connection() as conn:
                rows = conn.execute("SELECT item FROM faq_items ORDER BY position").fetchall()
        except psycopg.Error as exc:
            raise self._failure("read the FAQ", exc) from exc
        return tuple(item_from_json(row[0]) for row in rows)

    def publication(self) -> tuple[str, int, str] | None:
        """(source, number of items, when) of the set out now; ``None`` before any publish."""
        try:
            with self._db.connection() as conn:
                row = conn.execute(
                    "SELECT source, items, published_at::text FROM faq_publication"
                ).fetchone()
        except psycopg.Error as exc:
            raise self._failure("read the FAQ publication", exc) from exc
        return None if row is None else (str(row[0]), int(row[1]), str(row[2]))

    def close(self) -> None:
        if self._owns_db:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _failure(self, action: str, exc: psycopg.Error) -> StoreError:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"PostgreSQL database {self._db.describe()}: cannot {action}: {reason}")


class PublishedFaq:
    """A ``FaqLookup`` over a deployment's published FAQ: the profile's own file until a set
    is published, then that set, re-read within ``reload_seconds`` of each new publish."""

    def __init__(
        self,
        store: PostgresFaqStore,
        profile: DomainProfile,
        *,
        reload_seconds: float = RELOAD_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._profile = profile
        self._reload_seconds = reload_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._checked_at = clock()
        self._publication = store.publication()
        self._cache = self._load(self._publication)

    def _load(self, publication: tuple[str, int, str] | None) -> FaqCache:
        if publication is None:
            return FaqCache.from_profile(self._profile)
        return FaqCache(self._profile, self._store.items())

    def current(self) -> FaqCache:
        """The cache of the set out now (read again when a newer one was published). When the
        database cannot be read, the set read last is served and the next call retries."""
        with self._lock:
            if self._clock() - self._checked_at >= self._reload_seconds:
                self._checked_at = self._clock()
                try:
                    publication = self._store.publication()
                    if publication != self._publication:
                        self._cache, self._publication = self._load(publication), publication
                except StoreError as exc:
                    _log.warning("FAQ: cannot check for a newer publication: %s", exc)
            return self._cache

    def lookup(self, question: str, *, clearance: Sensitivity, today: date) -> FaqHit | None:
        return self.current().lookup(question, clearance=clearance, today=today)
