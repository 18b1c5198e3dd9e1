from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agent.fake_llm_server import FakeLLMServer


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A running FakeLLMServer (both wire formats), shut down after the test."""
    with FakeLLMServer() as server:
        yield server
