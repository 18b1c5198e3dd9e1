"""Session-wide plugins for the whole suite: the CI guard against unexpected skips, the
fixtures of tests that run against the real PostgreSQL and Redis servers, and the service
tests' workspace and keys."""

from __future__ import annotations

import pytest

# The service workspace and its keys are one session fixture for every folder that uses them
# (tests/service, tests/mcp, tests/reliability): two copies would overwrite each other's key
# headers.
pytest_plugins = [
    "tests.skip_guard",
    "tests.postgres_server",
    "tests.redis_server",
    "tests.service_workspace",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "reliability: service-scale reliability trials (tests/reliability); deselected by "
        "default, run by make reliability",
    )
