"""API keys in a real workspace and in PostgreSQL: created, listed, revoked, authenticated;
stored as hashes only; and the ``ragspine keys`` commands' contract (the new key alone on the
last line), with ``--workspace`` or ``--database-url``.

The behaviour tests run on both stores (the ``keys`` fixture); the PostgreSQL one needs the
test server (skipped without it, except under CI)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.errors import UsageError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import TOKEN_PREFIX, Caller, KeyStore
from ragspine.workspace import SERVICE_DB_NAME, Workspace

runner = CliRunner()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace.create(tmp_path / "ws")


@pytest.fixture(params=["sqlite", "postgres"])
def keys(request: pytest.FixtureRequest, workspace: Workspace) -> Iterator[KeyStore]:
    if request.param == "sqlite":
        with KeyStore(workspace) as store:
            yield store
        return
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    url, schema = request.getfixturevalue("postgres_database")
    with PostgresKeyStore(url, schema=schema) as pg_store:
        yield pg_store  # type: ignore[misc]  # the same methods, checked by these tests


def test_a_created_key_authenticates_as_its_name_and_clearance(keys: KeyStore) -> None:
    info, token = keys.create("portal", "internal")

    assert token.startswith(TOKEN_PREFIX)
    assert len(token) > 40
    assert info.prefix == token[: len(info.prefix)]
    assert keys.authenticate(token) == Caller("portal", Sensitivity.INTERNAL)


def test_unknown_malformed_or_near_miss_tokens_do_not_authenticate(keys: KeyStore) -> None:
    _, token = keys.create("portal", Sensitivity.PUBLIC)
    near = token[:-1] + ("A" if token[-1] != "A" else "B")

    for presented in ("", "rsk_", near, token + "x", token[len(TOKEN_PREFIX) :], token * 4):
        assert keys.authenticate(presented) is None


def test_two_keys_are_different_and_each_keeps_its_own_clearance(keys: KeyStore) -> None:
    _, low = keys.create("web", "PUBLIC")
    _, high = keys.create("audit", "RESTRICTED")

    assert low != high
    assert keys.authenticate(low) == Caller("web", Sensitivity.PUBLIC)
    assert keys.authenticate(high) == Caller("audit", Sensitivity.RESTRICTED)


def test_only_the_hash_is_stored(workspace: Workspace) -> None:
    with KeyStore(workspace) as keys:
        _, token = keys.create("portal", "CONFIDENTIAL")

    raw = b"".join(
        p.read_bytes() for p in workspace.root.iterdir() if p.name.startswith(SERVICE_DB_NAME)
    )
    secret = token[len(TOKEN_PREFIX) :]
    assert secret.encode() not in raw
    assert secret[-20:].encode() not in raw
    with sqlite3.connect(workspace.service_db_path) as conn:
        (stored,) = conn.execute("SELECT token_hash FROM api_keys").fetchone()
    assert stored == hashlib.sha256(token.encode()).hexdigest()


def test_list_shows_keys_without_secrets_and_revoke_stops_them(keys: KeyStore) -> None:
    first, token = keys.create("portal", "INTERNAL")
    keys.create("batch", "PUBLIC")

    revoked = keys.revoke("portal")

    assert revoked.key_id == first.key_id and revoked.revoked_at
    assert keys.authenticate(token) is None
    listed = keys.list()
    assert [(k.name, k.clearance, k.active) for k in listed] == [
        ("portal", Sensitivity.INTERNAL, False),
        ("batch", Sensitivity.PUBLIC, True),
    ]
    assert all(token not in repr(k) for k in listed)


def test_revoke_by_id_and_a_revoked_name_can_be_given_again(keys: KeyStore) -> None:
    first, old = keys.create("portal", "INTERNAL")
    keys.revoke(first.key_id)

    second, new = keys.create("portal", "PUBLIC")

    assert second.key_id != first.key_id
    assert keys.authenticate(old) is None
    assert keys.authenticate(new) == Caller("portal", Sensitivity.PUBLIC)


def test_a_revocation_in_another_store_object_is_seen_at_once(workspace: Workspace) -> None:
    with KeyStore(workspace) as server, KeyStore(workspace) as admin:
        _, token = admin.create("portal", "INTERNAL")
        for _ in range(2):  # the second answer comes from the server's cache
            assert server.authenticate(token) is not None
        admin.revoke("portal")
        assert server.authenticate(token) is None


def test_a_key_asked_again_is_answered_without_a_statement_until_a_commit(
    workspace: Workspace,
) -> None:
    with KeyStore(workspace) as keys, KeyStore(workspace) as admin:
        _, token = admin.create("portal", "INTERNAL")
        assert keys.authenticate(token) == Caller("portal", Sensitivity.INTERNAL)
        statements: list[str] = []
        keys._db.connection().set_trace_callback(statements.append)
        for _ in range(3):
            assert keys.authenticate(token) == Caller("portal", Sensitivity.INTERNAL)
            assert keys.authenticate("rsk_unknown") is None
        assert len(statements) == 1  # the unknown token, once
        admin.create("batch", "PUBLIC")  # any commit to service.db: read again
        assert keys.authenticate(token) == Caller("portal", Sensitivity.INTERNAL)
        assert len(statements) == 2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda k: k.create("portal", "INTERNAL"), "already named 'portal'"),
        (lambda k: k.create("other", "TOP"), "unknown sensitivity 'TOP'"),
        (lambda k: k.create("", "PUBLIC"), "not valid"),
        (lambda k: k.create("42", "PUBLIC"), "not only digits"),
        (lambda k: k.create("a b", "PUBLIC"), "not valid"),
        (lambda k: k.revoke("nobody"), "no key named or numbered 'nobody'"),
        (lambda k: k.revoke(99), "no key named or numbered '99'"),
    ],
)
def test_clear_errors(keys: KeyStore, call: object, message: str) -> None:
    keys.create("portal", "INTERNAL")

    with pytest.raises(UsageError, match=message):
        call(keys)  # type: ignore[operator]


def test_revoking_twice_says_it_is_already_revoked(keys: KeyStore) -> None:
    keys.create("portal", "INTERNAL")
    keys.revoke("portal")

    with pytest.raises(UsageError, match="already revoked"):
        keys.revoke("portal")


def test_postgres_keeps_only_the_hash_and_other_processes_see_a_revocation(
    postgres_database: tuple[str, str],
) -> None:
    import psycopg

    from ragspine.service.keys.pg_keys import PostgresKeyStore

    url, schema = postgres_database
    with (
        PostgresKeyStore(url, schema=schema) as server,
        PostgresKeyStore(url, schema=schema) as admin,
    ):
        _, token = admin.create("portal", "INTERNAL")
        assert server.authenticate(token) == Caller("portal", Sensitivity.INTERNAL)
        admin.revoke("portal")
        assert server.authenticate(token) is None
    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT * FROM {schema}.api_keys").fetchall()
    assert token not in repr(rows) and token[len(TOKEN_PREFIX) :][-20:] not in repr(rows)
    assert rows[0][3] == hashlib.sha256(token.encode()).hexdigest()


def test_postgres_keys_need_the_upgraded_schema(postgres_url: str, postgres_schema: str) -> None:
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    with pytest.raises(Exception, match="ragspine db upgrade"):
        PostgresKeyStore(postgres_url, schema=postgres_schema)


def test_a_newer_service_schema_is_refused(workspace: Workspace) -> None:
    KeyStore(workspace).close()
    with sqlite3.connect(workspace.service_db_path) as conn:
        conn.execute("PRAGMA user_version = 99")

    with pytest.raises(Exception, match="newer ragspine"):
        KeyStore(workspace)


# --------------------------------------------------------------------------- CLI


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_create_prints_the_key_alone_on_its_last_line(workspace: Workspace) -> None:
    ws = str(workspace.root)

    code, out, _ = cli("keys", "create", "--name", "ci", "--clearance", "internal", "-w", ws)

    assert code == 0
    lines = out.splitlines()
    token = lines[-1]
    assert token.startswith(TOKEN_PREFIX) and " " not in token
    assert "shown this once" in lines[-2]
    with KeyStore(workspace) as keys:
        assert keys.authenticate(token) == Caller("ci", Sensitivity.INTERNAL)


def test_cli_list_and_revoke(workspace: Workspace) -> None:
    ws = str(workspace.root)
    _, out, _ = cli("keys", "create", "--name", "ci", "--clearance", "PUBLIC", "-w", ws)
    token = out.splitlines()[-1]

    listed = cli("keys", "list", "-w", ws)
    revoked = cli("keys", "revoke", "ci", "-w", ws)
    again = cli("keys", "revoke", "ci", "-w", ws)

    assert listed[0] == 0
    assert "ci" in listed[1] and token[:12] in listed[1] and "PUBLIC" in listed[1]
    assert token not in listed[1]
    assert revoked[0] == 0 and "revoked key 'ci'" in revoked[1]
    assert again[0] == 2 and again[2].strip() == "error: key 'ci' (id 1) is already revoked"
    with KeyStore(workspace) as keys:
        assert keys.authenticate(token) is None


def test_cli_usage_errors_are_one_line_and_exit_2(workspace: Workspace, tmp_path: Path) -> None:
    ws = str(workspace.root)
    cli("keys", "create", "--name", "ci", "--clearance", "PUBLIC", "-w", ws)

    duplicate = cli("keys", "create", "--name", "ci", "--clearance", "PUBLIC", "-w", ws)
    bad_level = cli("keys", "create", "--name", "x", "--clearance", "TOP", "-w", ws)
    missing = cli("keys", "list", "-w", str(tmp_path / "nowhere"))

    for code, out, err in (duplicate, bad_level, missing):
        assert code == 2
        assert out == ""
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert not (tmp_path / "nowhere").exists()


def test_cli_keys_on_a_postgres_deployment(postgres_database: tuple[str, str]) -> None:
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    url, schema = postgres_database
    where = ("--database-url", url, "--schema", schema)

    code, out, _ = cli("keys", "create", "--name", "ci", "--clearance", "INTERNAL", *where)
    token = out.splitlines()[-1]
    listed = cli("keys", "list", *where)
    with PostgresKeyStore(url, schema=schema) as keys:
        assert keys.authenticate(token) == Caller("ci", Sensitivity.INTERNAL)
    revoked = cli("keys", "revoke", "ci", *where)

    assert code == 0 and token.startswith(TOKEN_PREFIX)
    assert listed[0] == 0 and "ci" in listed[1] and token not in listed[1]
    assert revoked[0] == 0 and "revoked key 'ci'" in revoked[1]
    with PostgresKeyStore(url, schema=schema) as keys:
        assert keys.authenticate(token) is None


def test_cli_keys_take_a_workspace_or_a_database_not_both(workspace: Workspace) -> None:
    both = cli("keys", "list", "-w", str(workspace.root), "--database-url", "postgresql://x/y")
    neither = cli("keys", "list")
    not_pg = cli("keys", "list", "--database-url", "mysql://x/y")

    for code, out, _ in (both, neither):
        assert (code, out) == (2, "")
    assert both[2].strip() == "error: give --workspace or --database-url, not both"
    assert neither[2].startswith("error: give --workspace DIR (a workspace folder) or ")
    assert not_pg[0] == 2 and "must be a postgresql:// URL" in not_pg[2]
