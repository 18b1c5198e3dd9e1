"""Facts listed and exported with their locators: ``ragspine facts list`` and ``GET /v1/facts``.

One query for both stores (SQLite ``?`` marks, PostgreSQL ``%s``): approved facts only, those
the caller's clearance covers, filtered by document, entity and metric, in a fixed order, one
page at a time. The page renders as CSV, an xlsx workbook or JSON rows; the columns are the
same in every format, so an export read back names each number's document and locator.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.facts import FACT_FIELDS, Fact, ReviewStatus

# The most rows one page holds (the CLI reads page after page; the HTTP API pages).
MAX_PAGE = 1_000
DEFAULT_PAGE = 100

# The exported columns, in order: where the number is, what it is, the number.
COLUMNS: tuple[str, ...] = (
    "document",
    "locator",
    "metric",
    "entity",
    "channel",
    "period",
    "value",
    "unit",
    "sensitivity",
    "row_label",  # last, so the columns earlier exports had keep their places
)
FORMATS = ("json", "csv", "xlsx")
MEDIA_TYPES = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


class _Queryable(Protocol):
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


@dataclass(frozen=True)
class FactQuery:
    """Which facts: all filters optional; ``clearance`` decides which levels exist."""

    clearance: Sensitivity
    document: str | None = None
    entity: str | None = None
    metric: str | None = None
    offset: int = 0
    limit: int = DEFAULT_PAGE

    def __post_init__(self) -> None:
        if self.offset < 0:
            raise ValueError(f"offset must be 0 or more, got {self.offset}")
        if not 1 <= self.limit <= MAX_PAGE:
            raise ValueError(f"limit must be from 1 to {MAX_PAGE}, got {self.limit}")


@dataclass(frozen=True)
class FactPage:
    facts: list[Fact]
    total: int  # every fact the query matches, on all pages
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, ``None`` on the last one."""
        after = self.offset + len(self.facts)
        return after if after < self.total else None


def _mark(store: object) -> str:
    # Imported here: the PostgreSQL driver is an extra, and SQLite needs no import at all.
    from ragspine.storage.sqlite_store import SQLiteFactStore

    return "?" if isinstance(store, SQLiteFactStore) else "%s"


def list_fact_page(store: object, query: FactQuery) -> FactPage:
    """One page of the approved facts ``query`` names that its clearance may see.

    Ordered by document, locator, metric, entity, channel, period: a fact's place never
    depends on the order rows were written, so pages do not overlap or skip.
    """
    queryable: _Queryable = store  # type: ignore[assignment]  # both stores have _query
    mark = _mark(store)
    levels = query.clearance.visible_levels()
    clauses = [
        f"review_status = {mark}",
        f"sensitivity IN ({', '.join(mark for _ in levels)})",
    ]
    params: list[object] = [ReviewStatus.APPROVED.value, *levels]
    for column, value in (
        ("source_doc_id", query.document),
        ("entity", query.entity),
        ("metric_code", query.metric),
    ):
        if value is not None:
            clauses.append(f"{column} = {mark}")
            params.append(value)
    where = " AND ".join(clauses)
    (total,) = queryable._query(f"SELECT COUNT(*) FROM fact_metric WHERE {where}", params)[0]
    rows = queryable._query(
        f"SELECT {', '.join(FACT_FIELDS)} FROM fact_metric WHERE {where} ORDER BY "
        "source_doc_id, source_locator, metric_code, entity, channel, period, period_type "
        f"LIMIT {mark} OFFSET {mark}",
        [*params, query.limit, query.offset],
    )
    facts = [Fact(*_plain(row)) for row in rows]
    return FactPage(facts, int(total), query.offset, query.limit)


def _plain(row: Sequence[Any]) -> list[Any]:
    """A row as ``Fact`` takes it (PostgreSQL returns its timestamp as a datetime)."""
    values = list(row)
    at = values[_INGESTED_AT]
    if at is not None and not isinstance(at, str):
        values[_INGESTED_AT] = at.isoformat()
    return values


_INGESTED_AT = FACT_FIELDS.index("ingested_at")


def fact_row(fact: Fact) -> dict[str, object]:
    """One exported row: the ``COLUMNS`` of a fact."""
    return {
        "document": fact.source_doc_id,
        "locator": fact.source_locator,
        "metric": fact.metric_code,
        "entity": fact.entity,
        "channel": fact.channel,
        "period": fact.period_label,
        "value": fact.value,
        "unit": fact.unit,
        "sensitivity": fact.sensitivity,
        "row_label": fact.row_label,
    }


def to_csv(facts: Sequence[Fact]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(fact_row(f) for f in facts)
    return out.getvalue()


def to_json(page: FactPage) -> str:
    """The page as the HTTP API and ``--format json`` return it."""
    body = {
        "facts": [fact_row(f) for f in page.facts],
        "total": page.total,
        "offset": page.offset,
        "limit": page.limit,
        "next_offset": page.next_offset,
    }
    return json.dumps(body, ensure_ascii=False)


def to_xlsx(facts: Sequence[Fact]) -> bytes:
    """A workbook of one sheet, ``facts``: a header row, then one row per fact (values as
    numbers; text cells that a spreadsheet would run as formulas are written as text)."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None  # a new workbook has its one sheet
    sheet.title = "facts"
    sheet.append(list(COLUMNS))
    for fact in facts:
        sheet.append([_inert(v) for v in fact_row(fact).values()])
    sheet.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _inert(value: object) -> object:
    # A document name such as "=HYPERLINK(...)" stays text in the export.
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@")):
        return "'" + value
    return value
