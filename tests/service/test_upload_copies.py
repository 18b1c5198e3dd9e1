"""An upload with the bytes of a document already ingested, under another name, queues no
review item twice, and the answer over HTTP cites the copied passage once: one citation number,
quoted once, naming each file once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ragspine.eval.scoring import repeated_quotes
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.refresh import refresh_indexes
from ragspine.service.http.app import create_app
from ragspine.service.keys.store import KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.profiles import INITECH_PATH, initech

REVIEW = (
    "# Initech annual review FY2025\n\n"
    "Bookings grew because the direct channel doubled its orders in FY2025.\n\n"
    "| 项目 | FY2025 |\n| --- | --- |\n| 订单额 | 100 |\n| 未知项目 | 7 |\n"
)
WHY = "Why did bookings grow?"
LOCATOR = "section=1,para=1"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "review.md").write_text(REVIEW, encoding="utf-8")
    ws = Workspace.create(tmp_path / "ws")
    ws.install_profile(INITECH_PATH)
    with ws.fact_store() as store:
        ingest([docs], store, initech())
        refresh_indexes(ws, store)
    with KeyStore(ws) as keys:
        _, key = keys.create("analyst", Sensitivity.INTERNAL)
    with TestClient(create_app(ServiceSettings(workspace=ws.root))) as client:
        yield client, {"Authorization": f"Bearer {key}"}


def _ask(client: TestClient, headers: dict[str, str]) -> Any:
    response = client.post("/v1/ask", json={"question": WHY}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def _upload(client: TestClient, headers: dict[str, str], name: str) -> Any:
    response = client.post(
        "/v1/ingest/jobs",
        files=[("files", (name, REVIEW.encode(), "text/markdown"))],
        headers=headers,
    )
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]
    deadline = time.monotonic() + 30
    while (status := client.get(f"/v1/jobs/{job_id}", headers=headers).json())["state"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert status["state"] == "done", status
    return status


def test_an_upload_of_the_same_bytes_is_cited_once_and_queues_nothing_twice(
    served: tuple[TestClient, dict[str, str]],
) -> None:
    client, headers = served
    before = _ask(client, headers)
    assert [(s["doc"], s["locator"]) for s in before["sources"]] == [("review.md", LOCATOR)]
    queued = client.get("/v1/review", headers=headers).json()["items"]
    assert "未知项目" in [i["label"] for i in queued]

    (result,) = _upload(client, headers, "board/review-final.md")["results"]

    assert result["outcome"] == "ingested" and result["review"] == 0
    assert any("same content as review.md" in w for w in result["warnings"])
    assert client.get("/v1/review", headers=headers).json()["items"] == queued
    after = _ask(client, headers)
    cited = [(s["doc"], s["locator"]) for s in after["sources"]]
    assert len(cited) == len(set(cited)) == 2
    assert {doc for doc, _ in cited} == {"review.md", "uploads/analyst/review-final.md"}
    assert {locator for _, locator in cited} == {LOCATOR}
    # One passage: quoted once, under one citation number.
    assert after["answer"].count("doubled its orders") == 1
    assert repeated_quotes(after["answer"]) == []
    body, listed = after["answer"].split("Sources:")
    assert body == before["answer"].split("Sources:")[0] and "[2]" not in body
    assert sorted(line for line in listed.splitlines() if line) == [
        f"[1] review.md · {LOCATOR}",
        f"[1] uploads/analyst/review-final.md · {LOCATOR}",
    ]
