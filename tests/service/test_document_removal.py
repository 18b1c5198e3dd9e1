"""Removing a document of a PostgreSQL deployment: ``DELETE /v1/documents/{id}`` (cleared keys
only, audited) and ``ragspine documents list|remove --database-url``."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.settings import ServiceSettings
from ragspine.storage.postgres import PostgresWorkspaceStore
from tests.service.test_api_postgres import client, deployment

__all__ = ["client", "deployment"]

runner = CliRunner()


def _store(settings: ServiceSettings) -> PostgresWorkspaceStore:
    assert settings.database_url is not None
    return PostgresWorkspaceStore(settings.database_url, schema=settings.database_schema)


def test_a_cleared_key_removes_a_document_everywhere_and_the_removal_is_audited(
    client: TestClient, deployment: tuple[ServiceSettings, object]
) -> None:
    settings, _ = deployment
    with _store(settings) as store:
        levels = {d.doc_id: Sensitivity.parse(d.sensitivity) for d in store.list_documents()}
    # The key is INTERNAL: a document above it does not exist for it, and stays.
    above = sorted(d for d, level in levels.items() if not Sensitivity.INTERNAL.allows(level))
    within = sorted(d for d, level in levels.items() if Sensitivity.INTERNAL.allows(level))
    assert above and within
    refused = client.delete(f"/v1/documents/{above[0]}")
    assert refused.status_code == 404 and refused.json()["error"]["message"] == "no such document"

    removed = client.delete(f"/v1/documents/{within[0]}")
    assert removed.status_code == 200, removed.text
    assert removed.json() == {"doc_id": within[0], "removed": True}
    assert client.delete(f"/v1/documents/{within[0]}").status_code == 404
    with _store(settings) as store:
        assert store.get_document(above[0]) is not None
        assert store.get_document(within[0]) is None
        audit = store.document_audit(within[0])
    assert [(a.action, a.detail) for a in audit][-1] == ("removed", "by API key portal")
    preview = client.get("/v1/sources/preview", params={"doc": within[0], "locator": "x"})
    assert preview.status_code == 404


def test_documents_list_and_remove_run_on_a_deployment(
    deployment: tuple[ServiceSettings, object],
) -> None:
    settings, _ = deployment
    assert settings.database_url is not None
    env = {
        "RAGSPINE_DATABASE_URL": settings.database_url,
        "RAGSPINE_DATABASE_SCHEMA": settings.database_schema,
    }
    listed = runner.invoke(app, ["documents", "list", "--json"], env=env)
    assert listed.exit_code == 0, listed.stderr
    ids = [d["doc_id"] for d in json.loads(listed.stdout)]
    assert ids and "[$RAGSPINE_DATABASE_SCHEMA]" in listed.stderr
    gone = runner.invoke(app, ["documents", "remove", ids[0]], env=env)
    assert gone.exit_code == 0, gone.stderr
    assert gone.stdout == f"removed {ids[0]}\n"
    again = runner.invoke(app, ["documents", "remove", ids[0]], env=env)
    assert again.exit_code == 2 and "no document" in again.stderr
    with _store(settings) as store:
        assert [d.doc_id for d in store.list_documents()] == ids[1:]
        audit = store.document_audit(ids[0])
    assert audit[-1].action == "removed" and "documents remove" in audit[-1].detail
