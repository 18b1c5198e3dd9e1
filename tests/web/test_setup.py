"""What the browser tests and the page stand on: CI refuses to skip them, and every file of
the page ships in the package."""

from __future__ import annotations

import fnmatch
import tomllib

import pytest

from ragspine.service.http.web import STATIC_DIR
from tests.web.conftest import REPO, _unavailable


def test_a_missing_browser_fails_the_run_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run in CI: Chromium"):
        _unavailable("Chromium is not installed at /usr/bin/chromium")


def test_a_missing_browser_skips_off_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="make test"):
        _unavailable("Chromium is not installed at /usr/bin/chromium")


def test_every_file_of_the_page_is_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["ragspine"]
    package = STATIC_DIR.parents[1]
    files = [p.relative_to(package).as_posix() for p in STATIC_DIR.rglob("*") if p.is_file()]
    assert files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name
