"""A job's lease in PostgreSQL: a session of its own holding the job's advisory lock while a
process runs the job, and the upload locks of the job's documents.

The lease is what tells a live run from a dead one. A process that ends — even by SIGKILL —
closes its socket, and PostgreSQL ends the session and frees its locks at once; a machine that
vanishes is found by the server's TCP keepalives set on the session (about
:data:`KEEPALIVE_BOUND_SECONDS`). A job ``running`` in PostgreSQL whose lock is free therefore
has no live process, and the reconciler (``service.jobs.job_reconciler``) queues it again.

The upload locks make the writes of one document's uploads take turns: a job writes a file
only if no newer upload of its document was written first (``document_uploads``;
``service.jobs.ordered_store``), so the newest upload wins whichever worker finishes first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ragspine.optional import import_optional

import_optional("psycopg", extra="postgres")

# The extra is checked above, so these imports are sure to find it.
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from ragspine.errors import StoreError  # noqa: E402
from ragspine.storage.postgres.connection import (  # noqa: E402
    CONNECT_SECONDS,
    check_schema_name,
    redact,
)

# The server probes an idle lease after 10 s, then every 5 s, and gives up after 3 misses.
_KEEPALIVES = {"tcp_keepalives_idle": 10, "tcp_keepalives_interval": 5, "tcp_keepalives_count": 3}
KEEPALIVE_BOUND_SECONDS = 10 + 5 * 3


def lock_sql(function: str) -> sql.Composed:
    """``SELECT function(hashtext(schema), hashtext(name))`` with the two as parameters: the
    advisory locks of one deployment's schema, apart from any other's."""
    return sql.SQL("SELECT {}(hashtext(%s), hashtext(%s))").format(sql.Identifier(function))


class JobLease:
    """One autocommit session on ``schema`` (closing it frees every lock it holds)."""

    def __init__(self, url: str, schema: str) -> None:
        self.schema = check_schema_name(schema)
        self._where = f"{redact(url)} (schema {schema})"
        try:
            self._conn: psycopg.Connection[Any] = psycopg.connect(
                url, autocommit=True, connect_timeout=int(CONNECT_SECONDS)
            )
            self._conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            for name, value in _KEEPALIVES.items():
                self._conn.execute(
                    sql.SQL("SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
                )
        except psycopg.Error as exc:
            raise self._failure("open a job's lease", exc) from exc

    @property
    def connection(self) -> psycopg.Connection[Any]:
        return self._conn

    def try_lock(self, name: str) -> bool:
        """Take the advisory lock ``name`` if no other session holds it."""
        row = self._execute(lock_sql("pg_try_advisory_lock"), name).fetchone()
        return bool(row and row[0])

    def unlock(self, name: str) -> None:
        self._execute(lock_sql("pg_advisory_unlock"), name)

    def take_job(self, job_id: str) -> bool:
        """Hold the job's lock; ``False`` when a live process already runs the job."""
        return self.try_lock(job_key(job_id))

    @contextmanager
    def document(self, doc_id: str) -> Iterator[None]:
        """Hold the document's upload lock for the block: writes of one document's uploads
        take turns (waiting for the one before)."""
        name = f"upload:{doc_id}"
        self._execute(lock_sql("pg_advisory_lock"), name)
        try:
            yield
        finally:
            self.unlock(name)

    def newest(self, doc_ids: Iterable[str]) -> dict[str, int]:
        """The newest upload written into each of these documents (absent: none yet)."""
        try:
            rows = self._conn.execute(
                "SELECT doc_id, upload_seq FROM document_uploads WHERE doc_id = ANY(%s)",
                (sorted(set(doc_ids)),),
            ).fetchall()
        except psycopg.Error as exc:
            raise self._failure("read the newest uploads", exc) from exc
        return {str(doc_id): int(seq) for doc_id, seq in rows}

    def written(self, doc_id: str, upload_seq: int, job_id: str) -> None:
        """Record that the document now holds this upload (never lowering the number)."""
        try:
            self._conn.execute(
                "INSERT INTO document_uploads (doc_id, upload_seq, job_id) VALUES (%s, %s, %s) "
                "ON CONFLICT (doc_id) DO UPDATE SET upload_seq = EXCLUDED.upload_seq, "
                "job_id = EXCLUDED.job_id, at = now() "
                "WHERE document_uploads.upload_seq < EXCLUDED.upload_seq",
                (doc_id, upload_seq, job_id),
            )
        except psycopg.Error as exc:
            raise self._failure(f"record the upload written into {doc_id}", exc) from exc

    def close(self) -> None:
        """Free every lock now (the server would on the session's end, but a moment later:
        the next lease taken at once must find them free), then end the session."""
        try:
            if not self._conn.closed:
                self._conn.execute("SELECT pg_advisory_unlock_all()")
        except psycopg.Error:
            pass  # the session is gone, and its locks with it
        finally:
            self._conn.close()

    def _execute(self, statement: sql.Composed, name: str) -> psycopg.Cursor[Any]:
        try:
            return self._conn.execute(statement, (self.schema, name))
        except psycopg.Error as exc:
            raise self._failure(f"take the lock {name}", exc) from exc

    def _failure(self, action: str, exc: psycopg.Error) -> StoreError:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"PostgreSQL database {self._where}: cannot {action}: {reason}")

    def __enter__(self) -> JobLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def job_key(job_id: str) -> str:
    return f"job:{job_id}"
