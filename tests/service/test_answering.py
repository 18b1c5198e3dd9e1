"""The service's answers while a document is re-ingested: between the ingest's commit and its
index refresh, a question sees the new version whole — its figures and its passages — as
after the refresh, never the new figures beside passages of other documents.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from ragspine.demo.tour import DEMO_QUESTIONS, DEMO_REFERENCE_DATE
from ragspine.ingestion.pipeline import ingest
from ragspine.llm.mock import MockProvider
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.service.answering import Answerer
from ragspine.service.backends import WorkspaceBackend
from ragspine.service.http.app import create_app
from ragspine.service.http.schemas import NO_CACHE, CacheInfo
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace

OUTLOOK = """# ACME Macau outlook

## Key figures FY2031

| | US$m |
|---|---|
| Revenue | {revenue} |

Macau revenue in FY2031 rose on the new {animal}-class bancassurance partnership.
"""
OTHER = """# ACME Hong Kong notes

Hong Kong revenue rose on visitor demand and agency sales in FY2031.
"""
WHY = "Why did Macau revenue rise in FY2031?"


def _write(workspace: Workspace, folder: Path, revenue: str, animal: str, *, index: bool) -> None:
    (folder / "outlook.md").write_text(OUTLOOK.format(revenue=revenue, animal=animal))
    with workspace.write_lock(), workspace.fact_store() as store:
        ingest([folder], store, workspace.profile())
        if index:
            refresh_indexes(workspace, store)


def _ask(client: TestClient) -> tuple[str, list[tuple[str, str]]]:
    body = client.post("/v1/ask", json={"question": WHY}).json()
    return body["answer"], [(s["doc"], s["locator"]) for s in body["sources"]]


def test_an_answer_between_a_reingest_and_its_index_refresh_is_the_new_versions(
    tmp_path: Path,
) -> None:
    workspace = Workspace.create(tmp_path / "ws")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "hk.md").write_text(OTHER)
    _write(workspace, docs, "4,210", "zebra", index=True)
    settings = ServiceSettings(workspace=workspace.root, no_auth=True, ask_threads=1)
    with TestClient(create_app(settings)) as client:
        before = _ask(client)  # the thread's engine opens its index at version 1
        _write(workspace, docs, "4,390", "okapi", index=False)
        between = _ask(client)
        _write(workspace, docs, "4,390", "okapi", index=True)
        after = _ask(client)

    assert "4,210" in before[0] and "zebra" in before[0]
    assert "4,390" in after[0] and "okapi" in after[0]
    assert between == after


def _answers(client: TestClient) -> list[dict[str, object]]:
    answers = []
    for q in DEMO_QUESTIONS:
        body = client.post(
            "/v1/ask",
            json={"question": q.question, "reference_date": DEMO_REFERENCE_DATE.isoformat()},
        ).json()
        answers.append({k: v for k, v in body.items() if k != "request_id"})
    return answers


def test_answers_on_the_event_loop_are_the_pools_answers(service_workspace: Path) -> None:
    """A question that needs no I/O is answered on the event loop (``Answerer.inline``); the
    pool answers the same, and anything that waits (dense retrieval, a model) keeps the pool."""
    base = {"workspace": service_workspace, "no_auth": True}
    with TestClient(create_app(ServiceSettings(**base))) as inline:  # type: ignore[arg-type]
        assert inline.app.state.service.answerer.inline  # type: ignore[attr-defined]
        on_loop = _answers(inline)
    pooled_settings = ServiceSettings(**base, ask_inline=False)  # type: ignore[arg-type]
    with TestClient(create_app(pooled_settings)) as pooled:
        assert not pooled.app.state.service.answerer.inline  # type: ignore[attr-defined]
        assert _answers(pooled) == on_loop
    assert any(a["sources"] for a in on_loop)
    dense = ServiceSettings(**base, dense="hashing")  # type: ignore[arg-type]
    assert not Answerer(
        dense, MockProvider(), None, WorkspaceBackend(dense, Workspace.open(service_workspace))
    ).inline


def test_the_app_leaves_its_startup_objects_out_of_full_collections(
    service_workspace: Path,
) -> None:
    gc.unfreeze()
    with TestClient(create_app(ServiceSettings(workspace=service_workspace, no_auth=True))):
        assert gc.get_freeze_count() > 0


def test_the_empty_cache_block_every_answer_shares_cannot_be_changed() -> None:
    with pytest.raises(ValidationError, match="frozen"):
        NO_CACHE.hit = True
    assert CacheInfo() == NO_CACHE
