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


def test_compose_runs_the_same_commands_against_its_own_servers() -> None:
    compose = {name: _parsed(command) for name, command in _compose_commands().items()}
    assert sorted(compose) == ["api1", "api2", "upgrade", "worker1", "worker2"]
    assert compose["upgrade"][0] == "db upgrade"
    procfile = {name: _parsed(command) for name, command in _procfile().items()}
    for name in ("api1", "api2", "worker1", "worker2"):
        kind, params = compose[name]
        assert kind == procfile[name][0]
        assert params["schema"] == procfile[name][1]["schema"] == "acme"
        assert params["database_url"] == "postgresql://postgres@postgres:5432/test"
        assert params["redis_url"] == "redis://redis:6379/0"
