"""The facade over PostgreSQL answers the golden questions exactly as over a workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragspine.demo.corpora import Corpus
from ragspine.demo.tour import CORPUS_DIR, build_demo_workspace
from ragspine.errors import StoreError, UsageError
from ragspine.eval.cases import Split, load_golden
from ragspine.facade import RAGSpine
from ragspine.profile.sensitivity import Sensitivity


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("embedded") / "ws"
    build_demo_workspace(root)
    return root


def _wire(result: Any) -> tuple[object, ...]:
    return (
        result.answer,
        result.route,
        result.answer_kind,
        result.clarification,
        [s.to_dict() for s in result.sources],
    )


def test_the_dev_questions_get_the_embedded_answers(
    embedded: Path, postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    index = tmp_path / "index"
    with RAGSpine.open_server(url, schema=schema, index_dir=index) as rag:
        assert not rag.ingest(embedded / CORPUS_DIR).failures
    by_level: dict[Sensitivity, list[Any]] = {}
    for case in load_golden(split=Split.DEV):
        if case.corpus is Corpus.DEMO:
            by_level.setdefault(case.clearance, []).append(case)
    asked = 0
    for level, cases in by_level.items():
        with (
            RAGSpine.open(embedded, clearance=level, read_only=True) as local,
            RAGSpine.open_server(url, schema=schema, index_dir=index, clearance=level) as remote,
        ):
            for case in cases:
                expected = local.ask(case.question, reference_date=case.reference_date)
                got = remote.ask(case.question, reference_date=case.reference_date)
                assert _wire(got) == _wire(expected), case.id
                asked += 1
    assert asked > 300
    assert (index / "traces.jsonl").is_file()


def test_a_read_only_server_facade_refuses_to_ingest(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    with (
        RAGSpine.open_server(url, schema=schema, read_only=True) as rag,
        pytest.raises(UsageError, match="read-only"),
    ):
        rag.ingest(tmp_path)


def test_two_processes_never_share_an_index_folder(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    with (
        RAGSpine.open_server(url, schema=schema, index_dir=tmp_path / "i"),
        pytest.raises(StoreError, match="own --index-dir"),
    ):
        RAGSpine.open_server(url, schema=schema, index_dir=tmp_path / "i")


def test_engines_sharing_a_follower_leave_it_open(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    memo = tmp_path / "docs" / "zebra_memo.md"
    memo.parent.mkdir()
    memo.write_text("# Zebra memo\n\nZebra herds grew in Kowloon.\n", encoding="utf-8")
    with RAGSpine.open_server(url, schema=schema) as writer:
        writer.ingest(memo.parent)
    with (
        PostgresWorkspaceStore(url, schema=schema, read_only=True) as store,
        IndexFollower(store, tmp_path / "ix") as follower,
    ):
        first = RAGSpine.open_server(url, follower=follower, clearance="PUBLIC")
        second = RAGSpine.open_server(url, follower=follower, clearance="INTERNAL")
        first.close()
        answer = second.ask("What does the zebra memo say about Kowloon?")
        assert "zebra_memo.md" in [s.doc for s in answer.sources]
        assert second.store is store
        second.close()
        assert store.count_facts() == 0
