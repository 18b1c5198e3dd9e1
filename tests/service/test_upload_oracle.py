"""Uploads reveal nothing above their sender's clearance, over HTTP on an embedded workspace and
in scale-out mode (PostgreSQL + a real RQ worker): the probe and its hand-written outcomes are
in ``tests/service/upload_oracle.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ragspine.facade import RAGSpine
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.app import create_app
from ragspine.service.keys.store import KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.service.upload_oracle import LEVELS, run_probe, write_held_documents, writer_name


def test_uploads_reveal_nothing_above_clearance_on_a_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_held_documents(tmp_path / "held")
    with RAGSpine.open(root, create=True) as rag:
        report = rag.ingest(tmp_path / "held")
    assert [(r.sensitivity, r.facts) for r in report.results] == [
        (level.value, 8) for level in sorted(LEVELS, key=lambda s: s.value)
    ]
    headers: dict[Sensitivity, dict[str, str]] = {}
    with KeyStore(Workspace.open(root)) as keys:
        for level in LEVELS:
            _, token = keys.create(writer_name(level), level)
            headers[level] = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(ServiceSettings(workspace=root))) as client:
        run_probe(client, headers, lambda: None)


def test_uploads_reveal_nothing_above_clearance_in_scale_out_mode(
    postgres_database: tuple[str, str],
    redis_url: str,
    redis_queue_cleanup: list[str],
    tmp_path: Path,
) -> None:
    pytest.importorskip("rq", reason="the scaleout extra (rq, redis) is not installed")
    from ragspine.profile.loader import load_profile
    from ragspine.service.jobs.rq_jobs import queue_name_for
    from ragspine.service.jobs.rq_worker import run_worker
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    url, schema = postgres_database
    redis_queue_cleanup.append(queue_name_for(schema))
    write_held_documents(tmp_path / "held")
    with RAGSpine.open_server(url, schema=schema) as rag:
        rag.ingest(tmp_path / "held")
    headers: dict[Sensitivity, dict[str, str]] = {}
    with PostgresKeyStore(url, schema=schema) as keys:
        for level in LEVELS:
            _, token = keys.create(writer_name(level), level.value)
            headers[level] = {"Authorization": f"Bearer {token}"}
    profile = load_profile()

    def work() -> None:
        """A real RQ worker (in this process) runs what is queued, then returns."""
        run_worker(
            url,
            redis_url,
            profile,
            schema=schema,
            burst=True,
            fork=False,
            scratch=tmp_path / "scratch",
        )

    settings = ServiceSettings(database_url=url, database_schema=schema, redis_url=redis_url)
    with TestClient(create_app(settings)) as client:
        run_probe(client, headers, work)


def test_a_job_queued_before_jobs_kept_a_clearance_runs_as_public(tmp_path: Path) -> None:
    """A service.db of schema 2 gains the column; its queued job is run as PUBLIC, the
    clearance whose resolution tells nothing."""
    import sqlite3

    from ragspine.service.service_db import MIGRATIONS, ServiceDb

    workspace = Workspace.create(tmp_path / "ws")
    conn = sqlite3.connect(workspace.service_db_path)
    for step in MIGRATIONS[:2]:
        for statement in step:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute(
        "INSERT INTO jobs (job_id, state, submitter, created_at, updated_at) "
        "VALUES ('j1', 'queued', 'portal', 't', 't')"
    )
    conn.commit()
    conn.close()

    db = ServiceDb(workspace)
    try:
        row = db.connection().execute("SELECT clearance FROM jobs WHERE job_id = 'j1'")
        assert row.fetchone() == ("PUBLIC",)
    finally:
        db.close()
