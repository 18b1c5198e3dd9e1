"""The change log index followers read: one row per changed document, in commit order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")

from ragspine.ingestion.pipeline import ingest  # noqa: E402
from ragspine.profile.loader import load_profile  # noqa: E402
from ragspine.storage.postgres import (  # noqa: E402
    PostgresDatabase,
    PostgresWorkspaceStore,
    upgrade,
)


@pytest.fixture
def store(postgres_database: tuple[str, str]) -> Iterator[PostgresWorkspaceStore]:
    url, schema = postgres_database
    with PostgresWorkspaceStore(url, schema=schema) as opened:
        yield opened


def _log(store: PostgresWorkspaceStore) -> list[tuple[str, str]]:
    with store.database.connection() as conn:
        rows = conn.execute("SELECT doc_id, kind FROM changes ORDER BY seq").fetchall()
    return [(str(d), str(k)) for d, k in rows]


def _memo(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_each_write_logs_the_documents_it_changed(
    store: PostgresWorkspaceStore, tmp_path: Path
) -> None:
    profile = load_profile()
    memo = _memo(tmp_path, "plan.md", "# Plan\n\nThe plan grew.\n")
    ingest([memo], store, profile)
    (doc_id,) = [d.doc_id for d in store.list_documents()]
    record = store.get_document(doc_id)
    assert record is not None
    store.update_document_metadata(doc_id, "other", "INTERNAL")
    store.remove_document(doc_id)
    store.remove_document(doc_id)  # unknown by now: nothing changed, nothing logged
    assert _log(store) == [(doc_id, "upsert"), (doc_id, "upsert"), (doc_id, "delete")]


def test_concurrent_writers_each_log_their_document_once(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    profile = load_profile()
    memos = [_memo(tmp_path / str(i), f"m{i}.md", f"# M{i}\n\nText {i}.\n") for i in range(8)]

    def write(path: Path) -> None:
        with PostgresWorkspaceStore(url, schema=schema) as writer:
            ingest([path], writer, profile)

    threads = [threading.Thread(target=write, args=(m,)) for m in memos]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with PostgresWorkspaceStore(url, schema=schema) as reader:
        with reader.database.connection() as conn:
            seqs = [int(r[0]) for r in conn.execute("SELECT seq FROM changes ORDER BY seq")]
        assert len(seqs) == 8
        assert sorted(doc for doc, _ in _log(reader)) == [f"m{i}.md" for i in range(8)]


def test_the_step_logs_documents_written_before_it(postgres_url: str, postgres_schema: str) -> None:
    db = PostgresDatabase(postgres_url, schema=postgres_schema)
    try:
        upgrade(db, target=3)
        with db.transaction() as conn:
            conn.execute(
                "INSERT INTO documents VALUES ('old.md', 'old.md', 'h', 'm', 1, 'md', "
                "'INTERNAL', 'x', 'y', '', 0, 0, 0, '')"
            )
        upgrade(db)
        with db.connection() as conn:
            rows = conn.execute("SELECT doc_id, kind FROM changes").fetchall()
        assert rows == [("old.md", "upsert")]
    finally:
        db.close()
