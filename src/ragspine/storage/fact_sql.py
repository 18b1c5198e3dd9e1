"""The fact table's SQL: SQLite's schema and migrations, the statements both backends
run (:func:`fact_queries`, in a backend's parameter marks), and the conversion between stored
rows and :class:`~ragspine.storage.facts.Fact`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from ragspine.profile.periods import PERIOD_TYPES
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.dialect import Dialect, rank_sql
from ragspine.storage.facts import FACT_FIELDS, Fact, ReviewStatus, utc_timestamp


def _sql_list(values: Iterable[str]) -> str:
    # Only ever called with our own enum values, never with caller input.
    return ", ".join(f"'{value}'" for value in values)


_APPROVED = f"'{ReviewStatus.APPROVED.value}'"

VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)"""

SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS fact_metric (
        metric_code TEXT NOT NULL,
        entity TEXT NOT NULL,
        geography TEXT NOT NULL,
        channel TEXT NOT NULL,
        period_type TEXT NOT NULL CHECK (period_type IN ({_sql_list(PERIOD_TYPES)})),
        period TEXT NOT NULL,
        value REAL NOT NULL,
        unit TEXT NOT NULL,
        source_doc_id TEXT NOT NULL CHECK (source_doc_id <> ''),
        source_locator TEXT NOT NULL CHECK (source_locator <> ''),
        sensitivity TEXT NOT NULL
            CHECK (sensitivity IN ({_sql_list(level.value for level in Sensitivity)})),
        review_status TEXT NOT NULL
            CHECK (review_status IN ({_sql_list(status.value for status in ReviewStatus)})),
        source_file_hash TEXT,
        extractor_version TEXT,
        mapping_version TEXT,
        ingested_at TEXT NOT NULL,
        row_label TEXT,
        PRIMARY KEY (metric_code, entity, period_type, period, channel, source_doc_id)
    )""",
    # get_fact and available_periods: only approved rows can answer, so a partial index keeps
    # the lookup off pending/rejected rows, and its tail is get_fact's ORDER BY (most recent
    # first, then document id) so picking the winner needs no sort.
    f"""CREATE INDEX IF NOT EXISTS fact_metric_lookup ON fact_metric
        (metric_code, entity, channel, period_type, period, ingested_at DESC, source_doc_id)
        WHERE review_status = {_APPROVED}""",
    # Re-ingesting or deleting a document touches all of its rows at once.
    "CREATE INDEX IF NOT EXISTS fact_metric_document ON fact_metric (source_doc_id)",
)
# Facts of a version 1 file keep no row label (NULL) until their document is read again.
MIGRATIONS = {2: ("ALTER TABLE fact_metric ADD COLUMN row_label TEXT",)}

COLUMNS = ", ".join(FACT_FIELDS)
_KEY_FIELDS = ("metric_code", "entity", "period_type", "period", "channel")
LIST_ORDER = " ORDER BY source_doc_id, metric_code, entity, channel, period, period_type"


@dataclass(frozen=True)
class FactQueries:
    """The fact statements both backends run, in one backend's parameter marks."""

    upsert: str
    # The natural key's five columns equal to five parameters.
    key_where: str
    get_fact: str
    periods: str
    set_status: str
    delete_doc: str


@cache
def fact_queries(dialect: Dialect) -> FactQueries:
    m = dialect.mark
    key = " AND ".join(f"{name} = {m}" for name in _KEY_FIELDS)
    # Clearance compares ranks, so one statement serves every clearance level.
    visible = f"review_status = {_APPROVED} AND {rank_sql('sensitivity')} <= {m}"
    return FactQueries(
        upsert=dialect.upsert("fact_metric", FACT_FIELDS, (*_KEY_FIELDS, "source_doc_id")),
        key_where=key,
        # The most sensitive visible fact answers: two approved facts differ by level only
        # when an upload conflicted with a fact above its writer's clearance, and a caller
        # cleared for that fact is answered from it (docs/service-access-and-jobs.md).
        get_fact=(
            f"SELECT {COLUMNS} FROM fact_metric WHERE {key} AND {visible} "
            f"ORDER BY {rank_sql('sensitivity')} DESC, ingested_at DESC, source_doc_id ASC "
            "LIMIT 1"
        ),
        periods=(
            "SELECT DISTINCT period_type, period FROM fact_metric "
            f"WHERE metric_code = {m} AND entity = {m} AND channel = {m} AND {visible} "
            "ORDER BY period_type, period"
        ),
        set_status=(
            f"UPDATE fact_metric SET review_status = {m} WHERE {key} AND source_doc_id = {m}"
        ),
        delete_doc=f"DELETE FROM fact_metric WHERE source_doc_id = {m}",
    )


@lru_cache(maxsize=4096)
def fact_of_row(row: tuple[Any, ...]) -> Fact:
    """The fact a stored row holds. Building one validates and canonicalises every field
    (timestamps included), which costs more than the query; a question asks for the same few
    facts again and again, and a ``Fact`` is immutable, so each distinct row is built once. The
    key is the whole row, so a changed row is a new entry and nothing can go stale."""
    return Fact(*row)


def rows_of(facts: Iterable[Fact]) -> list[tuple[Any, ...]]:
    """Facts as insert rows; one timestamp for the whole batch when a fact brings none."""
    now = utc_timestamp()
    return [
        (
            fact.metric_code,
            fact.entity,
            fact.geography,
            fact.channel,
            fact.period_type,
            fact.period,
            fact.value,
            fact.unit,
            fact.source_doc_id,
            fact.source_locator,
            fact.sensitivity,
            fact.review_status,
            fact.source_file_hash,
            fact.extractor_version,
            fact.mapping_version,
            fact.ingested_at or now,
            fact.row_label,
        )
        for fact in facts
    ]
