"""``ragspine db upgrade``: the PostgreSQL schema steps applied from the command line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.cli.db import DEFAULT_SCHEMA

runner = CliRunner()


def test_the_cli_default_schema_is_the_stores() -> None:
    storage = pytest.importorskip("ragspine.storage.postgres")
    assert storage.DEFAULT_SCHEMA == DEFAULT_SCHEMA


def test_upgrade_applies_the_steps_then_finds_nothing_to_do(
    postgres_url: str, postgres_schema: str
) -> None:
    from ragspine.storage.postgres import LATEST_VERSION, MIGRATIONS, PostgresFactStore

    args = ["db", "upgrade", "--database-url", postgres_url, "--schema", postgres_schema]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[:-1] == [f"applied step {s.version}: {s.description}" for s in MIGRATIONS]
    assert lines[-1].endswith(f"schema version {LATEST_VERSION} (upgraded from 0)")

    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert again.stdout.splitlines() == [
        f"{postgres_url} (schema {postgres_schema}): schema version {LATEST_VERSION} "
        "(already up to date)"
    ]
    with PostgresFactStore(postgres_url, schema=postgres_schema) as store:
        assert store.count_facts() == 0


def test_the_url_may_come_from_the_environment(postgres_url: str, postgres_schema: str) -> None:
    result = runner.invoke(
        app,
        ["db", "upgrade", "--schema", postgres_schema],
        env={"RAGSPINE_DATABASE_URL": postgres_url},
    )
    assert result.exit_code == 0, result.stderr
    assert "(upgraded from 0)" in result.stdout
    assert "[$RAGSPINE_DATABASE_URL]" in result.stderr


def test_the_schema_may_come_from_the_environment_and_a_flag_wins(
    postgres_url: str, postgres_schema: str
) -> None:
    env = {"RAGSPINE_DATABASE_URL": postgres_url, "RAGSPINE_DATABASE_SCHEMA": postgres_schema}
    result = runner.invoke(app, ["db", "upgrade"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"{postgres_url} (schema {postgres_schema}): schema version {_latest()} (upgraded from 0)"
    )
    assert result.stderr == (
        f"ragspine: using PostgreSQL {postgres_url} [$RAGSPINE_DATABASE_URL], "
        f"schema {postgres_schema} [$RAGSPINE_DATABASE_SCHEMA]\n"
    )
    # A flag wins over its variable: this names a schema that is not there (nothing is made).
    wrong = runner.invoke(app, ["jobs", "list", "--schema", f"{postgres_schema}_x"], env=env)
    assert wrong.exit_code != 0 and f"schema {postgres_schema}_x [flag]" in wrong.stderr
    listed = runner.invoke(app, ["jobs", "list", "--json"], env=env)
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.strip() == "[]"


def _latest() -> int:
    from ragspine.storage.postgres import LATEST_VERSION

    return LATEST_VERSION


def test_a_workspace_path_is_a_usage_error() -> None:
    result = runner.invoke(app, ["db", "upgrade", "--database-url", "ws/ragspine.db"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --database-url must be a postgresql:// URL, got 'ws/ragspine.db'\n"
    )


def test_an_unreachable_server_fails_in_one_line_without_the_password() -> None:
    pytest.importorskip("psycopg")
    url = "postgresql://someone:s3cret@127.0.0.1:1/test"
    result = runner.invoke(app, ["db", "upgrade", "--database-url", url])
    assert result.exit_code == 1
    announced, error = result.stderr.splitlines()
    assert announced == (
        "ragspine: using PostgreSQL postgresql://someone:***@127.0.0.1:1/test [flag], "
        "schema ragspine [default]"
    )
    assert error.startswith(
        "error: cannot open PostgreSQL database postgresql://someone:***@127.0.0.1:1/test "
        "(schema ragspine): "
    )
    assert "s3cret" not in result.stderr


def test_a_bad_schema_name_is_refused(postgres_url: str) -> None:
    result = runner.invoke(
        app, ["db", "upgrade", "--database-url", postgres_url, "--schema", "Robert'); DROP"]
    )
    assert result.exit_code == 2
    assert "is not a plain identifier" in result.stderr
