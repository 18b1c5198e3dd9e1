"""The index a process keeps following PostgreSQL: ranking parity with the embedded index,
freshness through LISTEN/NOTIFY, and a restarted follower resuming from its sequence number."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.demo.corpus import generate_corpus
from ragspine.eval.retrieval_eval import load_eval_set, run_retrieval_eval
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import load_profile
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.retrieval.retriever import HybridRetriever, open_retriever
from ragspine.workspace import Workspace

FRESHNESS_SECONDS = 5.0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root)
    return root


@pytest.fixture
def server(postgres_database: tuple[str, str]) -> Iterator[object]:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    with PostgresWorkspaceStore(url, schema=schema) as store:
        yield store


def _memo(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_followed_index_ranks_the_eval_queries_as_the_embedded_one(
    corpus: Path, server: object, tmp_path: Path
) -> None:
    from ragspine.retrieval.follower import IndexFollower

    profile = load_profile()
    workspace = Workspace.create(tmp_path / "ws")
    with workspace.fact_store() as embedded:
        assert not ingest([corpus], embedded, profile).failures
        refresh_indexes(workspace, embedded)
    assert not ingest([corpus], server, profile).failures  # type: ignore[arg-type]

    queries = load_eval_set()
    embedded_retriever = open_retriever(workspace)
    with IndexFollower(server, tmp_path / "index") as follower:  # type: ignore[arg-type]
        assert follower.catch_up() == len(embedded_retriever.lexical.doc_versions())
        followed = HybridRetriever(server, follower, glossary_for(profile))  # type: ignore[arg-type]
        reports = [
            run_retrieval_eval(r, queries, profile=profile) for r in (embedded_retriever, followed)
        ]
        assert follower.doc_versions() == embedded_retriever.lexical.doc_versions()
    hits = [[[(h.chunk_id, h.score) for h in r.hits] for r in rep.results] for rep in reports]
    assert any(hits[0])
    assert hits[1] == hits[0]


def test_a_new_document_is_searchable_within_five_seconds_and_a_removal_goes(
    server: object, postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    profile = load_profile()
    url, schema = postgres_database
    memo = _memo(tmp_path / "in", "zebra.md", "# Zebra memo\n\nZebras crossed the savanna.\n")
    with IndexFollower(server, tmp_path / "index") as follower:  # type: ignore[arg-type]
        follower.start(poll_seconds=30.0)  # a long poll: only the notification can be in time
        assert follower.search("zebras") == []
        with PostgresWorkspaceStore(url, schema=schema) as writer:
            started = time.monotonic()
            assert not ingest([memo], writer, profile).failures
            while not follower.search("zebras"):
                assert time.monotonic() - started < FRESHNESS_SECONDS
                time.sleep(0.05)
            (doc_id,) = follower.doc_versions()
            writer.remove_document(doc_id)
            while follower.search("zebras"):
                assert time.monotonic() - started < 2 * FRESHNESS_SECONDS
                time.sleep(0.05)
        assert follower.doc_versions() == {}


def test_a_restarted_follower_resumes_from_its_last_sequence(
    server: object, tmp_path: Path
) -> None:
    from ragspine.retrieval.follower import IndexFollower

    profile = load_profile()
    first = _memo(tmp_path / "a", "apple.md", "# Apple memo\n\nApples grew in the orchard.\n")
    second = _memo(tmp_path / "b", "pear.md", "# Pear memo\n\nPears ripened in autumn.\n")
    folder = tmp_path / "index"
    assert not ingest([first], server, profile).failures  # type: ignore[arg-type]
    with IndexFollower(server, folder) as follower:  # type: ignore[arg-type]
        assert follower.catch_up() == 1
        seq = follower.seq
    assert not ingest([second], server, profile).failures  # type: ignore[arg-type]
    with IndexFollower(server, folder) as follower:  # type: ignore[arg-type]
        assert follower.seq == seq
        assert follower.search("apples")  # the index on disk, before any catch-up
        assert follower.catch_up() == 1  # only the pear
        assert follower.seq > seq
        assert follower.search("pears") and follower.search("apples")
        assert follower.catch_up() == 0


def test_an_index_of_another_schema_is_rebuilt_not_resumed(
    server: object, postgres_url: str, tmp_path: Path
) -> None:
    from ragspine.retrieval.follower import IndexFollower

    profile = load_profile()
    memo = _memo(tmp_path / "a", "apple.md", "# Apple memo\n\nApples grew in the orchard.\n")
    assert not ingest([memo], server, profile).failures  # type: ignore[arg-type]
    folder = tmp_path / "index"
    (folder / "follower.json").parent.mkdir(parents=True)
    (folder / "follower.json").write_text('{"format": 1, "database": "elsewhere", "seq": 99}')
    with IndexFollower(server, folder) as follower:  # type: ignore[arg-type]
        assert follower.seq == 0
        assert follower.catch_up() == 1
        assert follower.search("apples")


def test_an_index_of_an_older_format_is_rebuilt_from_zero(server: object, tmp_path: Path) -> None:
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.retrieval.lexical import META_FILE

    profile = load_profile()
    memo = _memo(tmp_path / "a", "apple.md", "# Apple memo\n\nApples grew in the orchard.\n")
    assert not ingest([memo], server, profile).failures  # type: ignore[arg-type]
    folder = tmp_path / "index"
    with IndexFollower(server, folder) as follower:  # type: ignore[arg-type]
        assert follower.catch_up() == 1
    meta = folder / "lexical" / META_FILE
    meta.write_text(meta.read_text(encoding="utf-8").replace('"format": 2', '"format": 1'))
    with IndexFollower(server, folder) as follower:  # type: ignore[arg-type]
        assert follower.seq == 0  # not resumed: its sequence number named the old index
        assert follower.catch_up() == 1
        assert follower.search("apples")


def test_a_catch_up_never_waits_for_a_connection_a_question_holds(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    """A question holds one of the store's connections for its whole snapshot and catches the
    index up inside it; the background catch-up must not hold the follower's lock while it
    waits for a connection of that same pool, or the two wait on each other (under load every
    connection is a question's) until the pool gives up."""
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    memo = _memo(tmp_path / "in", "zebra.md", "# Zebra memo\n\nZebras crossed the savanna.\n")
    with PostgresWorkspaceStore(url, schema=schema) as writer:
        assert not ingest([memo], writer, load_profile()).failures
    with (
        PostgresWorkspaceStore(url, schema=schema, read_only=True, max_connections=1) as store,
        IndexFollower(store, tmp_path / "index") as follower,
    ):
        failures: list[Exception] = []

        def background() -> None:
            try:
                follower.catch_up()
            except Exception as exc:  # the pool's timeout: what the deadlock ends in
                failures.append(exc)

        with store.snapshot():  # the question: the pool's only connection is its own
            thread = threading.Thread(target=background)
            thread.start()
            thread.join()
            assert failures == []
            assert follower.catch_up() == 0  # the question's own catch-up, inside its snapshot
            assert follower.search("zebras")


def test_a_question_older_than_the_index_does_not_roll_it_back(
    server: object, postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    """A question's snapshot may predate changes the background thread has applied: its
    catch-up has nothing to add, and must not take the older log for one that went back."""
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    profile = load_profile()
    first = _memo(tmp_path / "a", "apple.md", "# Apple memo\n\nApples grew in the orchard.\n")
    second = _memo(tmp_path / "b", "pear.md", "# Pear memo\n\nPears ripened in autumn.\n")
    assert not ingest([first], server, profile).failures  # type: ignore[arg-type]
    with (
        PostgresWorkspaceStore(url, schema=schema, read_only=True) as store,
        IndexFollower(store, tmp_path / "index") as follower,
    ):
        assert follower.catch_up() == 1
        with store.snapshot():  # a question starts: it sees the apple only
            assert [d.doc_id for d in store.list_documents()] == ["apple.md"]
            assert not ingest([second], server, profile).failures  # type: ignore[arg-type]
            seq = follower.seq
            applied = threading.Thread(target=follower.catch_up)  # the background thread
            applied.start()
            applied.join()
            assert follower.seq > seq
            follower.catch_up()  # the question's own, in its older snapshot
            assert follower.search("pears") and follower.search("apples")
            assert set(follower.doc_versions()) == {"apple.md", "pear.md"}
