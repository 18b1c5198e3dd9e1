"""A followed index that moves past a question's read snapshot: the question starts again in a
fresh snapshot rather than answering with the old figure and without its passage.

The writer commits a new version of a document after the question's snapshot read its facts
and before it searches; the reader's index follows the change log, so it ranks the new text
while the snapshot holds the old chunks (the race behind "neither version's answer" in
tests/reliability/test_concurrency_scale.py, made deterministic here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.facade import RAGSpine
from ragspine.retrieval.skew import ATTEMPTS, IndexSkew, in_one_version, retrying_on_skew

OUTLOOK = """# ACME Macau outlook

## Key figures FY2031

| | US$m |
|---|---|
| Revenue | {revenue} |

Macau revenue in FY2031 rose on the new {animal}-class bancassurance partnership.
"""
QUESTION = "Why did Macau revenue rise in FY2031?"


def _write(folder: Path, revenue: str, animal: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Macau_outlook.md").write_text(
        OUTLOOK.format(revenue=revenue, animal=animal), encoding="utf-8"
    )
    return folder


@pytest.fixture
def server(postgres_database: tuple[str, str], tmp_path: Path) -> tuple[RAGSpine, RAGSpine, Path]:
    """(reader, writer, documents folder): the reader follows its own index of the schema the
    writer ingests into; the folder holds the zebra version, ingested."""
    url, schema = postgres_database
    docs = _write(tmp_path / "docs", "4,210", "zebra")
    writer = RAGSpine.open_server(url, schema=schema, index_dir=tmp_path / "writer-index")
    assert not writer.ingest(docs).failures
    reader = RAGSpine.open_server(
        url, schema=schema, index_dir=tmp_path / "reader-index", read_only=True
    )
    return reader, writer, docs


def _passage_animals(answer: str) -> set[str]:
    return {animal for animal in ("zebra", "okapi") if f"{animal}-class" in answer}


def test_the_okapi_version_committed_mid_question_is_seen_as_skew(
    server: tuple[RAGSpine, RAGSpine, Path],
) -> None:
    reader, writer, docs = server
    with reader, writer:
        assert _passage_animals(reader.ask(QUESTION).answer) == {"zebra"}
        with reader.store.snapshot():
            assert reader.store.count_facts() > 0  # the snapshot now holds the zebra version
            assert not writer.ingest(_write(docs, "4,390", "okapi")).failures
            with retrying_on_skew(), pytest.raises(IndexSkew) as raised:
                reader.ask(QUESTION)
            assert raised.value.doc_ids == ("Macau_outlook.md",)
            # Outside a retrying caller the passages the snapshot lacks are left out: the
            # old figure without its passage, which is why the service retries.
            stale = reader.ask(QUESTION).answer
            assert "4,210" in stale
            assert _passage_animals(stale) == set()


def test_a_question_started_again_answers_the_new_version_whole(
    server: tuple[RAGSpine, RAGSpine, Path],
) -> None:
    reader, writer, docs = server
    attempts = 0

    def ask() -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            assert reader.store.count_facts() > 0  # the first snapshot holds the zebra version
            assert not writer.ingest(_write(docs, "4,390", "okapi")).failures
        return reader.ask(QUESTION).answer

    with reader, writer:
        answer = in_one_version(reader.store.snapshot, ask)
    assert attempts == 2
    assert "4,390" in answer and "4,210" not in answer
    assert _passage_animals(answer) == {"okapi"}


def test_the_last_attempt_answers_without_raising(
    server: tuple[RAGSpine, RAGSpine, Path],
) -> None:
    """An index that moves on every attempt: the last one leaves the skewed passages out
    instead of failing the question."""
    reader, writer, docs = server
    attempts = 0

    def ask() -> str:
        nonlocal attempts
        attempts += 1
        assert reader.store.count_facts() > 0
        version = ("4,390", "okapi") if attempts % 2 else ("4,210", "zebra")
        assert not writer.ingest(_write(docs, *version)).failures
        return reader.ask(QUESTION).answer

    with reader, writer:
        answer = in_one_version(reader.store.snapshot, ask)
    assert attempts == ATTEMPTS
    assert _passage_animals(answer) == set()
