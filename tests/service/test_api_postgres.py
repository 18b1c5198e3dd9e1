"""The HTTP app over a PostgreSQL deployment: keys, jobs, answers, previews and readiness come
from the database, Redis and this process's followed index (in-process, with TestClient)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from ragspine.demo.corpus import generate_corpus
from ragspine.demo.tour import DEMO_QUESTIONS, DEMO_REFERENCE_DATE
from ragspine.errors import UsageError
from ragspine.facade import RAGSpine
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings


@pytest.fixture
def deployment(
    postgres_database: tuple[str, str],
    redis_url: str,
    redis_queue_cleanup: list[str],
    tmp_path: Path,
) -> Iterator[tuple[ServiceSettings, Path]]:
    """Settings serving a fresh schema holding the demo corpus, and the corpus folder."""
    url, schema = postgres_database
    redis_queue_cleanup.append(f"ragspine-ingest-{schema}")
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    with RAGSpine.open_server(url, schema=schema) as rag:
        rag.ingest(corpus)
    yield (
        ServiceSettings(database_url=url, database_schema=schema, redis_url=redis_url),
        corpus,
    )


@pytest.fixture
def client(deployment: tuple[ServiceSettings, Path]) -> Iterator[TestClient]:
    settings, _ = deployment
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    assert settings.database_url is not None
    with PostgresKeyStore(settings.database_url, schema=settings.database_schema) as keys:
        _, token = keys.create("portal", "INTERNAL")
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = f"Bearer {token}"
        yield test_client


def test_answers_equal_the_facades_over_the_same_database(
    client: TestClient, deployment: tuple[ServiceSettings, Path]
) -> None:
    settings, _ = deployment
    assert settings.database_url is not None
    with RAGSpine.open_server(
        settings.database_url,
        schema=settings.database_schema,
        clearance="INTERNAL",
        read_only=True,
    ) as rag:
        for q in DEMO_QUESTIONS:
            expected = rag.ask(q.question, reference_date=DEMO_REFERENCE_DATE)
            got = client.post(
                "/v1/ask",
                json={"question": q.question, "reference_date": DEMO_REFERENCE_DATE.isoformat()},
            ).json()
            assert got["answer"] == expected.answer, q.kind
            assert [s["doc"] for s in got["sources"]] == [s.doc for s in expected.sources]


def test_previews_and_review_read_the_database(client: TestClient) -> None:
    answer = client.post("/v1/ask", json={"question": "What was ACME HK revenue in FY2025?"})
    source = answer.json()["sources"][0]
    preview = client.get("/v1/sources/preview", params=source)
    assert preview.status_code == 200
    assert preview.json()["facts"]
    assert client.get("/v1/review", params={"state": "all"}).status_code == 200


def test_a_review_decision_is_written_to_the_database(client: TestClient) -> None:
    items = client.get("/v1/review").json()["items"]
    assert items
    item_id = items[0]["item_id"]
    decided = client.post(f"/v1/review/{item_id}/reject", json={"note": "duplicate"})
    assert decided.status_code == 200
    assert decided.json()["item"]["state"] == "rejected"
    rejected = client.get("/v1/review", params={"state": "rejected"}).json()["items"]
    assert [i["item_id"] for i in rejected] == [item_id]


def test_an_upload_goes_into_postgresql_and_waits_for_a_worker(client: TestClient) -> None:
    sent = client.post(
        "/v1/ingest/jobs", files=[("files", ("memo.md", b"# Memo\n\nHK revenue grew.\n"))]
    )
    assert sent.status_code == 202
    # No worker serves this test's queue: the upload is kept, and told it waits for one.
    assert sent.json()["note"].startswith("queued, no live worker")
    status = client.get(f"/v1/jobs/{sent.json()['job_id']}").json()
    assert status["state"] == "queued"
    service = client.app.state.service  # type: ignore[attr-defined]
    # The bytes are in the job's rows: nothing waits in this process's scratch folder.
    assert list(service.backend.uploads_folder.iterdir()) == []


def test_readiness_names_the_database_the_index_and_the_workers(client: TestClient) -> None:
    ready = client.get("/readyz")
    # No `ragspine worker` serves this test's queue.
    assert ready.status_code == 503
    assert ready.headers["Retry-After"].isdigit()
    assert ready.json()["checks"] == {"store": "ok", "index": "ok", "jobs": "no live worker"}


def test_a_later_ingest_is_answered_without_a_restart(
    client: TestClient, deployment: tuple[ServiceSettings, Path], tmp_path: Path
) -> None:
    settings, _ = deployment
    assert settings.database_url is not None
    question = {"question": "What does the zebra memo say about Kowloon kiosks?"}
    memo = tmp_path / "late" / "zebra_memo.md"
    memo.parent.mkdir()
    memo.write_text("# Zebra memo\n\nKowloon kiosks opened in FY2025.\n", encoding="utf-8")
    with RAGSpine.open_server(settings.database_url, schema=settings.database_schema) as rag:
        rag.ingest(memo.parent)
    sources = client.post("/v1/ask", json=question).json()["sources"]
    assert "zebra_memo.md" in [s["doc"] for s in sources]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "neither"),
        ({"workspace": "ws", "database_url": "postgresql://h/db"}, "both"),
        ({"database_url": "postgresql://h/db"}, "needs --redis-url"),
        ({"workspace": "ws", "redis_url": "redis://h"}, "only go with --database-url"),
        (
            {"database_url": "postgresql://h/db", "redis_url": "redis://h", "dense": "bge"},
            "workspaces only",
        ),
    ],
)
def test_settings_name_exactly_one_backend(fields: dict[str, str], message: str) -> None:
    with pytest.raises((UsageError, ValidationError), match=message):
        ServiceSettings(**fields)  # type: ignore[arg-type]


def test_each_worker_process_takes_its_own_index_folder(
    postgres_database: tuple[str, str], redis_url: str, tmp_path: Path
) -> None:
    from ragspine.errors import StoreError
    from ragspine.service.backends import _follower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    settings = ServiceSettings(
        database_url=url,
        database_schema=schema,
        redis_url=redis_url,
        index_dir=tmp_path / "ix",
        workers=2,
    )
    with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
        first = _follower(store, settings, tmp_path)
        second = _follower(store, settings, tmp_path)
        try:
            assert [first.folder.name, second.folder.name] == ["process-1", "process-2"]
            with pytest.raises(StoreError, match="every index folder"):
                _follower(store, settings, tmp_path)
        finally:
            first.close()
            second.close()


def test_the_faq_served_is_the_one_published_into_the_database(
    client: TestClient, deployment: tuple[ServiceSettings, Path]
) -> None:
    import dataclasses
    import time
    from datetime import date

    from ragspine.profile.loader import load_profile
    from ragspine.profile.sensitivity import Sensitivity
    from ragspine.service.faq.faq_cache import FaqCache
    from ragspine.service.faq.pg_faq import RELOAD_SECONDS, PostgresFaqStore

    settings, _ = deployment
    assert settings.database_url is not None
    from_file = FaqCache.from_profile(load_profile())
    item = next(
        i
        for i in from_file.items
        if from_file.lookup(i.question, clearance=Sensitivity.INTERNAL, today=date.today())
    )
    asked = {"question": item.question}
    assert client.post("/v1/ask", json=asked).json()["answer"] == item.answer  # the file's
    with PostgresFaqStore(settings.database_url, schema=settings.database_schema) as store:
        store.publish([dataclasses.replace(item, answer="The published answer.")], "one.toml")
    deadline = time.monotonic() + 5 * RELOAD_SECONDS
    while (body := client.post("/v1/ask", json=asked).json())["answer"] != "The published answer.":
        assert time.monotonic() < deadline, body
        time.sleep(0.1)
    assert body["route"] == "faq"
