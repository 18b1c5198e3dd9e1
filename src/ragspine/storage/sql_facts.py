"""The fact-store methods the SQLite and PostgreSQL stores run the same way, written once over
each store's ``_query`` and ``_transaction`` in its :class:`~ragspine.storage.dialect.Dialect`.
What differs stays on each store: opening and closing, transactions and the read cache."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, ClassVar, Self

from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.dialect import Connection, Dialect, insert_many
from ragspine.storage.fact_sql import COLUMNS, LIST_ORDER, fact_queries, rows_of
from ragspine.storage.facts import DEFAULT_CHANNEL, Fact, ReviewStatus


def check_filed_under(doc_id: str, facts: Sequence[Fact]) -> None:
    """Refuse (``ValueError``) a fact of another document, before anything is written."""
    for fact in facts:
        if fact.source_doc_id != doc_id:
            raise ValueError(
                f"cannot file a fact of document {fact.source_doc_id!r} under document {doc_id!r}"
            )


class SQLFacts(ABC):
    """Fact-store methods over ``_query`` and ``_transaction`` in the store's ``_dialect``."""

    _dialect: ClassVar[Dialect]

    @abstractmethod
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows ``sql`` reads, a driver error raised as ``StoreError``."""

    @abstractmethod
    def _transaction(self, action: str) -> AbstractContextManager[Connection]:
        """Run the block as one write transaction; any failure rolls all of it back."""

    @abstractmethod
    def _fact_of_row(self, row: tuple[Any, ...]) -> Fact:
        """The fact a listed row holds."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection; calling it twice is harmless."""

    def upsert_facts(self, facts: Iterable[Fact]) -> int:
        rows = rows_of(facts)
        with self._transaction("write facts") as conn:
            insert_many(conn, fact_queries(self._dialect).upsert, rows)
        return len(rows)

    def replace_document_facts(self, doc_id: str, facts: Sequence[Fact]) -> int:
        check_filed_under(doc_id, facts)
        rows = rows_of(facts)
        with self._transaction(f"replace the facts of document {doc_id!r}") as conn:
            conn.execute(fact_queries(self._dialect).delete_doc, (doc_id,))
            insert_many(conn, fact_queries(self._dialect).upsert, rows)
        return len(rows)

    def delete_document(self, doc_id: str) -> int:
        with self._transaction(f"delete document {doc_id!r}") as conn:
            return conn.execute(fact_queries(self._dialect).delete_doc, (doc_id,)).rowcount

    def list_facts(
        self, *, doc_id: str | None = None, review_status: ReviewStatus | None = None
    ) -> list[Fact]:
        m = self._dialect.mark
        clauses: list[str] = []
        params: list[str] = []
        if doc_id is not None:
            clauses.append(f"source_doc_id = {m}")
            params.append(doc_id)
        if review_status is not None:
            clauses.append(f"review_status = {m}")
            params.append(ReviewStatus.parse(review_status).value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._query(f"SELECT {COLUMNS} FROM fact_metric{where}{LIST_ORDER}", params)
        return [self._fact_of_row(row) for row in rows]

    def set_review_status(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str,
        source_doc_id: str,
        status: ReviewStatus,
    ) -> bool:
        params = (
            ReviewStatus.parse(status).value,
            metric_code,
            entity,
            period_type,
            period,
            channel,
            source_doc_id,
        )
        with self._transaction("set a review status") as conn:
            return conn.execute(fact_queries(self._dialect).set_status, params).rowcount > 0

    def available_periods(
        self,
        metric_code: str,
        entity: str,
        channel: str = DEFAULT_CHANNEL,
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, str]]:
        rank = Sensitivity.parse(clearance).rank
        rows = self._query(
            fact_queries(self._dialect).periods, (metric_code, entity, channel, rank)
        )
        return [(str(period_type), str(period)) for period_type, period in rows]

    def count_facts(self) -> int:
        (count,) = self._query("SELECT COUNT(*) FROM fact_metric")[0]
        return int(count)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
