"""Hidden content over HTTP: an upload skips and counts it unless the request's
``include_hidden`` form field asks for it, through the in-process job queue and through RQ
workers over PostgreSQL; read, a hidden figure never outranks a visible one."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ragspine.facade import RAGSpine
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.app import create_app
from ragspine.service.keys.store import KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.hidden_workbook import HIDDEN_CELLS, SET_ASIDE, VISIBLE, write_workbook

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOC = "uploads/portal/hk.xlsx"


def send(client: TestClient, book: bytes, **form: str) -> str:
    response = client.post("/v1/ingest/jobs", files=[("files", ("hk.xlsx", book, XLSX))], data=form)
    assert response.status_code == 202, response.text
    return str(response.json()["job_id"])


def wait_for(client: TestClient, job_id: str) -> Any:
    deadline = time.monotonic() + 60
    while (status := client.get(f"/v1/jobs/{job_id}").json())["state"] in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return status


def approved(facts: list[Any]) -> set[tuple[str, str, float]]:
    return {
        (f.metric_code, f.period, f.value)
        for f in facts
        if f.source_doc_id == DOC and f.review_status == "approved"
    }


@pytest.fixture
def book(tmp_path: Path) -> bytes:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    return path.read_bytes()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = Workspace.create(tmp_path / "ws")
    return ws.root


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    with KeyStore(Workspace.open(workspace)) as keys:
        _, token = keys.create("portal", Sensitivity.INTERNAL)
    with TestClient(create_app(ServiceSettings(workspace=workspace))) as test_client:
        test_client.headers["Authorization"] = f"Bearer {token}"
        yield test_client


def test_an_upload_skips_hidden_content_unless_asked(
    client: TestClient, workspace: Path, book: bytes
) -> None:
    skipped = wait_for(client, send(client, book))
    (result,) = skipped["results"]
    assert (result["outcome"], result["facts"], result["review"]) == ("ingested", 4, 0)
    assert result["warnings"] == [f"{HIDDEN_CELLS} hidden cells skipped"]
    with RAGSpine.open(workspace) as rag:
        assert approved(rag.store.list_facts()) == VISIBLE

    read = wait_for(client, send(client, book, include_hidden="true"))
    (result,) = read["results"]
    # Read again (not skipped as unchanged), the draft's lone FY2026 figure added, the five
    # hidden figures that disagree with visible ones set aside.
    assert (result["outcome"], result["facts"], result["review"]) == ("ingested", 5, 0)
    (note,) = result["warnings"]
    assert note.startswith(f"{SET_ASIDE} hidden figures set aside: visible content states")
    with RAGSpine.open(workspace) as rag:
        assert approved(rag.store.list_facts()) == {*VISIBLE, ("REVENUE", "2026", 3000.0)}
        assert rag.store.list_review() == []


def test_a_bad_include_hidden_value_is_a_422(client: TestClient, book: bytes) -> None:
    response = client.post(
        "/v1/ingest/jobs",
        files=[("files", ("hk.xlsx", book, XLSX))],
        data={"include_hidden": "perhaps"},
    )
    assert response.status_code == 422, response.text


def test_the_openapi_description_names_the_field(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/v1/ingest/jobs"]["post"]["requestBody"]["content"]
    ref = body["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[-1]
    field = schema["components"]["schemas"][ref]["properties"]["include_hidden"]
    assert field["type"] == "boolean" and field["default"] is False
    assert "hidden sheets, rows, columns" in field["description"]


# --- RQ workers over PostgreSQL ---------------------------------------------------------------


@pytest.fixture
def server(
    postgres_database: tuple[str, str], redis_url: str, redis_queue_cleanup: list[str]
) -> Iterator[tuple[TestClient, str, str, str]]:
    """A TestClient over a fresh PostgreSQL schema and its RQ queue; (client, url, schema,
    redis url)."""
    pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")
    from ragspine.service.jobs.rq_jobs import queue_name_for
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    url, schema = postgres_database
    redis_queue_cleanup.append(queue_name_for(schema))
    RAGSpine.open_server(url, schema=schema).close()  # the schema, at its latest version
    with PostgresKeyStore(url, schema=schema) as keys:
        _, token = keys.create("portal", "INTERNAL")
    settings = ServiceSettings(database_url=url, database_schema=schema, redis_url=redis_url)
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = f"Bearer {token}"
        yield test_client, url, schema, redis_url


def test_an_rq_worker_honours_include_hidden(
    server: tuple[TestClient, str, str, str], book: bytes, tmp_path: Path
) -> None:
    from ragspine.profile.loader import load_profile
    from ragspine.service.jobs.rq_worker import run_worker

    client, url, schema, redis_url = server

    def work() -> None:
        run_worker(
            url,
            redis_url,
            load_profile(),
            schema=schema,
            burst=True,
            fork=False,
            scratch=tmp_path / "scratch",
        )

    skipped = send(client, book)
    read = send(client, book, include_hidden="true")
    assert read != skipped  # the same bytes read another way are another job
    work()
    first, second = wait_for(client, skipped), wait_for(client, read)
    assert first["results"][0]["warnings"] == [f"{HIDDEN_CELLS} hidden cells skipped"]
    assert second["results"][0]["facts"] == 5
    assert second["results"][0]["warnings"][0].startswith(f"{SET_ASIDE} hidden figures set")
    with RAGSpine.open_server(url, schema=schema) as rag:
        facts = rag.store.list_facts()
    assert approved(facts) == {*VISIBLE, ("REVENUE", "2026", 3000.0)}
    hidden = [f for f in facts if f.extractor_version and f.extractor_version.endswith("+hidden")]
    assert [(f.period, f.value) for f in hidden] == [("2026", 3000.0)]
