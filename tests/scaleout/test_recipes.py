"""The Procfile and compose.yaml run the commands docs/scale-out.md documents: two API
processes on two ports and two workers, each command accepted by the CLI as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer

from ragspine.cli import app

REPO = Path(__file__).resolve().parents[2]
GUIDE = (REPO / "docs" / "scale-out.md").read_text(encoding="utf-8")


def _procfile() -> dict[str, str]:
    lines = (REPO / "Procfile").read_text(encoding="utf-8").splitlines()
    entries = [line.split(": ", 1) for line in lines if line and not line.startswith("#")]
    return {name: command for name, command in entries}


def _compose_commands() -> dict[str, str]:
    """Each service's folded ``command: >-`` block, joined into one line."""
    text = (REPO / "compose.yaml").read_text(encoding="utf-8")
    found = re.findall(r"^  (\w+):\n(?:    .*\n)*?    command: >-\n((?:      .*\n)+)", text, re.M)
    return {name: " ".join(block.split()) for name, block in found}


def _parsed(command: str) -> tuple[str, dict[str, object]]:
    """The subcommand and its options as the CLI parses them (nothing is run)."""
    words = shlex.split(command)
    assert words[0] == "ragspine"
    commands: dict[str, Any] = getattr(typer.main.get_command(app), "commands", {})
    name, rest = words[1], words[2:]
    if name == "db":
        commands = commands["db"].commands
        name, rest = f"db {rest[0]}", rest[1:]
    params: dict[str, object] = commands[name.split()[-1]].make_context(name, rest).params
    return name, params


def _env_file() -> dict[str, str]:
    lines = (REPO / "scaleout.env").read_text(encoding="utf-8").splitlines()
    pairs = [line.split("=", 1) for line in lines if line and not line.startswith("#")]
    return {name: value for name, value in pairs}


def _compose_environment() -> dict[str, str]:
    text = (REPO / "compose.yaml").read_text(encoding="utf-8")
    block = re.search(r"^  environment:\n((?:    .*\n)+)", text, re.M)
    assert block is not None
    pairs = [line.strip().split(": ", 1) for line in block.group(1).splitlines()]
    return {name: value for name, value in pairs}


DEPLOYMENT = ("RAGSPINE_DATABASE_URL", "RAGSPINE_DATABASE_SCHEMA", "RAGSPINE_REDIS_URL")


def test_the_procfile_runs_two_api_processes_and_two_workers_as_documented() -> None:
    commands = _procfile()
    parsed = [_parsed(command) for command in commands.values()]
    serving = [params for name, params in parsed if name == "serve"]
    assert [name for name, _ in parsed].count("worker") == 2
    assert len(serving) == 2
    assert len({p["port"] for p in serving}) == 2
    assert len({p["index_dir"] for p in serving}) == 2
    for command in commands.values():
        assert command in GUIDE, command


def test_the_deployment_comes_from_the_environment_in_the_procfile_and_compose() -> None:
    """No command names the database, schema or Redis: each process reads them from the
    variables, which scaleout.env (for the Procfile) and compose.yaml (for its containers)
    set; the recipe in the guide uses the same file."""
    for name, params in [
        _parsed(c) for c in [*_procfile().values(), *_compose_commands().values()]
    ]:
        assert params.get("database_url") is None and params.get("schema") is None, name
        assert params.get("redis_url") is None, name
    local = _env_file()
    assert sorted(local) == sorted(DEPLOYMENT)
    assert local["RAGSPINE_DATABASE_SCHEMA"] == "acme"
    assert "honcho -e scaleout.env start" in GUIDE
    containers = _compose_environment()
    assert containers == {
        "RAGSPINE_DATABASE_URL": "postgresql://postgres@postgres:5432/test",
        "RAGSPINE_DATABASE_SCHEMA": "acme",
        "RAGSPINE_REDIS_URL": "redis://redis:6379/0",
    }


def test_compose_runs_the_same_commands_with_health_checks_on_the_api_processes() -> None:
    compose = {name: _parsed(command) for name, command in _compose_commands().items()}
    assert sorted(compose) == ["api1", "api2", "upgrade", "worker1", "worker2"]
    assert compose["upgrade"][0] == "db upgrade"
    procfile = {name: _parsed(command) for name, command in _procfile().items()}
    for name in ("api1", "api2", "worker1", "worker2"):
        assert compose[name][0] == procfile[name][0]
    text = (REPO / "compose.yaml").read_text(encoding="utf-8")
    for name in ("api1", "api2"):
        service = re.search(rf"^  {name}:\n((?:    .*\n)+)", text, re.M)
        assert service is not None and "healthcheck: *readiness" in service.group(1)
    assert "/readyz" in text.split("x-readiness:", 1)[1].split("services:", 1)[0]


def test_the_files_the_recipe_uploads_exist() -> None:
    uploads = re.findall(r"-F files=@(\S+)", GUIDE)
    assert uploads
    for path in uploads:
        assert (REPO / path).is_file(), path
