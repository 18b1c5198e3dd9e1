"""``ragspine mcp``'s usage errors: the backend options as every command that takes either
backend checks them, and the clearance."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ragspine.cli import app


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "error: give --workspace DIR (a workspace folder) or "),
        (["--workspace", "ws", "--profile", "p.toml"], "error: --profile only goes with"),
        (["--workspace", "ws", "--schema", "s"], "error: --schema only go with --database-url"),
        (["--database-url", "mysql://x"], "error: --database-url must be a postgresql:// URL"),
        (["--workspace", "ws", "--clearance", "TOP"], "error: --clearance: "),
    ],
)
def test_ragspine_mcp_usage_errors(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["mcp", *arguments])

    assert result.exit_code == 2
    assert result.stderr.startswith(message), result.stderr
