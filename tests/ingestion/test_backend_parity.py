"""Acceptance: the demo corpus ingested into PostgreSQL leaves exactly what it leaves in SQLite.

The store conformance suites pin each method; this pins the whole path — every reader, the
conflict checks, held passages, copies of one content — through both backends at once.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ragspine.demo.corpus import generate_corpus
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root)
    return root


def contents(store: WorkspaceStoreProtocol) -> dict[str, Any]:
    """What the store holds, without the times each write stamps."""
    facts = store.list_facts()
    return {
        "facts": [dataclasses.replace(f, ingested_at=None) for f in facts],
        "documents": [dataclasses.replace(d, ingested_at="") for d in store.list_documents()],
        "summaries": [dataclasses.replace(s, ingested_at="") for s in store.document_summaries()],
        "blocks": store.list_blocks(),
        "chunks": store.list_chunks(),
        "review": [
            dataclasses.replace(r, created_at="", resolved_at="") for r in store.list_review()
        ],
        "held": store.held_locators(),
        "pending": {
            f.natural_key: store.pending_values(f.natural_key, clearance=Sensitivity.RESTRICTED)
            for f in facts
        },
    }


def test_the_demo_corpus_lands_the_same_in_both_backends(
    corpus: Path, postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    profile = load_profile()
    url, schema = postgres_database
    with (
        SQLiteWorkspaceStore(tmp_path / "ws.db") as embedded,
        PostgresWorkspaceStore(url, schema=schema) as server,
    ):
        embedded.init_schema()
        reports = [ingest([corpus], store, profile) for store in (embedded, server)]
        assert [r.failures for r in reports] == [[], []]
        assert [r.outcome for r in reports[0].results] == [r.outcome for r in reports[1].results]

        expected = contents(embedded)
        assert expected["facts"] and expected["chunks"] and expected["review"]
        assert contents(server) == expected

        again = ingest([corpus], server, profile)
        assert {r.outcome.value for r in again.results} == {"skipped"}
        assert contents(server) == expected
