"""Fixtures for tests against the real Redis server: a queue name no other test uses.

The server comes from ``RAGSPINE_TEST_REDIS_URL`` (default: the local development server,
database 0). Other engineers' runs share it, so each test gets its own RQ queue (named after
its own PostgreSQL schema), whose keys are deleted afterwards. When the server cannot be
reached the tests skip on a laptop, but under ``CI=true`` they fail loudly: CI must run them.
Loaded by ``tests/conftest.py``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

import pytest

from tests.skip_guard import ci_enabled

REDIS_URL_VARIABLE = "RAGSPINE_TEST_REDIS_URL"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@functools.cache
def _unreachable(url: str) -> str:
    """Why ``url`` cannot be used ('' when it can): rq or redis missing, or no server."""
    try:
        import redis
        import rq  # noqa: F401
    except ImportError:
        return "rq or redis is not installed (pip install 'ragspine[scaleout]')"
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=3) as client:
            client.ping()
    except redis.RedisError as exc:
        return f"Redis at {url} is unreachable: {exc}"
    return ""


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The test server's URL; skips (fails under CI) when it cannot be reached."""
    url = os.environ.get(REDIS_URL_VARIABLE, DEFAULT_REDIS_URL)
    problem = _unreachable(url)
    if problem and ci_enabled():
        pytest.fail(f"{problem}; CI must run the Redis tests", pytrace=False)
    if problem:
        pytest.skip(problem)
    return url


def delete_queue_keys(url: str, queue_name: str) -> None:
    """Remove every key RQ made for ``queue_name`` (queue, registries, jobs, results)."""
    import redis

    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(match=f"*{queue_name}*", count=1000))
        if keys:
            client.delete(*keys)


@pytest.fixture
def redis_queue_cleanup(redis_url: str) -> Iterator[list[str]]:
    """A list to append queue names to; their keys are deleted after the test."""
    names: list[str] = []
    yield names
    for name in names:
        delete_queue_keys(redis_url, name)
