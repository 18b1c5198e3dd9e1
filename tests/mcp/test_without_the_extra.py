"""Without the ``mcp`` extra: the core install does not ask for the SDK, ``ragspine mcp``
names the extra to install, and the service serves ``/v1`` as before with nothing at ``/mcp``."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.optional import install_hint
from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import ServiceKeys

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_sdk_is_an_extra_not_a_core_dependency() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    core = {re.split(r"[\s<>=!~;\[]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert core and "mcp" not in core
    extra = project["optional-dependencies"]["mcp"]
    assert [re.split(r"[\s<>=!~;\[]", d, maxsplit=1)[0] for d in extra] == ["mcp"]


@pytest.fixture
def no_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "mcp", None)


@pytest.mark.usefixtures("no_sdk")
def test_ragspine_mcp_names_the_extra(service_workspace: Path) -> None:
    result = CliRunner().invoke(app, ["mcp", "--workspace", str(service_workspace)])

    assert result.exit_code == 2
    assert install_hint("mcp") in result.stderr
    assert result.stdout == ""


@pytest.mark.usefixtures("no_sdk")
def test_the_service_runs_without_the_extra(
    service_workspace: Path, service_keys: ServiceKeys
) -> None:
    with TestClient(create_app(ServiceSettings(workspace=service_workspace))) as client:
        headers = {"Authorization": f"Bearer {service_keys.internal}"}
        assert client.post("/mcp", json={}, headers=headers).status_code == 404
        assert client.get("/v1/facts", headers=headers).status_code == 200
