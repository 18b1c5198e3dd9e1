"""Session-wide plugins for the whole suite: the CI guard against unexpected skips, and the
fixtures of tests that run against the real PostgreSQL and Redis servers."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.skip_guard", "tests.postgres_server", "tests.redis_server"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "reliability: service-scale reliability trials (tests/reliability); deselected by "
        "default, run by make reliability",
    )
