"""``--workspace DIR`` or ``--database-url URL``: the commands that run on either backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app

runner = CliRunner()

MEMO = "# Zebra memo\n\nZebra herds grew because the savanna rains came early.\n"


@pytest.mark.parametrize(
    "command",
    [["ask", "What grew?"], ["ingest", "."], ["review", "list"], ["review", "approve", "1"]],
)
def test_neither_backend_is_a_usage_error(command: list[str]) -> None:
    result = runner.invoke(app, command)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: give --workspace DIR (a workspace folder) or ")


@pytest.mark.parametrize("command", [["ask", "What grew?"], ["ingest", "."], ["review", "list"]])
def test_both_backends_are_a_usage_error(command: list[str], tmp_path: Path) -> None:
    both = ["--workspace", str(tmp_path), "--database-url", "postgresql://x@127.0.0.1/db"]
    result = runner.invoke(app, [*command, *both])
    assert result.exit_code == 2
    assert result.stderr == "error: give --workspace or --database-url, not both\n"


def test_server_options_without_a_database_are_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ask", "What grew?", "--workspace", str(tmp_path), "--index-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "--index-dir only go with --database-url" in result.stderr
    result = runner.invoke(app, ["eval", "retrieval", "--schema", "acme"])
    assert result.exit_code == 2
    assert "only go with --database-url" in result.stderr


def test_a_database_url_must_be_postgresql() -> None:
    result = runner.invoke(app, ["ask", "What grew?", "--database-url", "ws/ragspine.db"])
    assert result.exit_code == 2
    assert "must be a postgresql:// URL" in result.stderr


def test_the_facade_default_schema_is_the_stores() -> None:
    storage = pytest.importorskip("ragspine.storage.postgres")
    from ragspine.cli.common import DEFAULT_SCHEMA
    from ragspine.facade import DEFAULT_SCHEMA as FACADE_SCHEMA

    assert storage.DEFAULT_SCHEMA == DEFAULT_SCHEMA == FACADE_SCHEMA


def test_ingest_ask_and_review_over_postgresql(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "zebra.md").write_text(MEMO, encoding="utf-8")
    server = ["--database-url", url, "--schema", schema]
    ingested = runner.invoke(app, ["ingest", str(tmp_path / "in"), *server])
    assert ingested.exit_code == 0, ingested.stderr
    asked = runner.invoke(
        app,
        [
            "ask",
            "Why did zebra herds grow?",
            *server,
            "--index-dir",
            str(tmp_path / "ix"),
            "--json",
        ],
    )
    assert asked.exit_code == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["route"] == "narrative"
    assert [s["doc"] for s in answer["sources"]] == ["zebra.md"]
    assert (tmp_path / "ix" / "follower.json").is_file()

    listed = runner.invoke(app, ["review", "list", "--state", "all", *server])
    assert listed.exit_code == 0, listed.stderr
    missing = runner.invoke(app, ["review", "show", "999", *server])
    assert missing.exit_code != 0
    assert "no review item 999" in missing.stderr


def test_eval_retrieval_over_an_empty_database_ingests_the_demo_corpus(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    result = runner.invoke(
        app,
        ["eval", "retrieval", "--database-url", url, "--schema", schema, "--json"],
    )
    assert result.exit_code == 0, result.stderr
    assert "ingesting the demo corpus" in result.stderr
    assert json.loads(result.stdout)["overall"]["recall"] > 0.9


def test_the_golden_eval_over_postgresql_is_the_workspaces(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    embedded = runner.invoke(app, ["eval", "--json"])
    assert embedded.exit_code == 0, embedded.stderr
    server = ["--database-url", url, "--schema", schema, "--index-dir", str(tmp_path / "ix")]
    over_postgres = runner.invoke(app, ["eval", "--json", *server])
    assert over_postgres.exit_code == 0, over_postgres.stderr
    assert json.loads(over_postgres.stdout) == json.loads(embedded.stdout)


def test_serve_names_exactly_one_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("RAGSPINE_WORKSPACE", "RAGSPINE_DATABASE_URL", "RAGSPINE_REDIS_URL"):
        monkeypatch.delenv(variable, raising=False)
    neither = runner.invoke(app, ["serve"])
    assert neither.exit_code == 2
    assert "(--database-url URL --redis-url URL), not neither" in neither.stderr
    both = ["--workspace", str(tmp_path), "--database-url", "postgresql://x@127.0.0.1/db"]
    assert runner.invoke(app, ["serve", *both]).stderr == (
        "error: give --workspace or --database-url, not both\n"
    )
    no_queue = runner.invoke(app, ["serve", "--database-url", "postgresql://x@127.0.0.1/db"])
    assert no_queue.exit_code == 2
    assert "--database-url needs --redis-url" in no_queue.stderr
    # A backend named on the command line wins over the other one named in the environment.
    monkeypatch.setenv("RAGSPINE_DATABASE_URL", "postgresql://x@127.0.0.1/db")
    stray = runner.invoke(app, ["serve", "--workspace", str(tmp_path), "--index-dir", "ix"])
    assert stray.stderr == "error: --index-dir only go with --database-url, not --workspace\n"
