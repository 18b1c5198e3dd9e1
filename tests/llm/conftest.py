"""Fixtures for the provider tests: a fake server for both wire formats, and a real local model.

Tests against the real model (``make eval-llm``) are marked ``llm`` and skipped unless
``RAGSPINE_LLM_TESTS=1`` is set — a plain ``pytest`` must not start a model server — and unless
llama-cpp-python is installed (``ragspine[llm-local]``).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.demo.tour import build_demo_workspace
from ragspine.llm.local import INSTALL_HINT, LocalLLMServer
from tests.agent.fake_llm_server import FakeLLMServer

ENABLE_VARIABLE = "RAGSPINE_LLM_TESTS"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"llm: needs a real local model server; runs only with {ENABLE_VARIABLE}=1"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _skip_reason()
    if reason is None:
        return
    for item in items:
        if item.get_closest_marker("llm") is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


def _skip_reason() -> str | None:
    if os.environ.get(ENABLE_VARIABLE) != "1":
        return f"real-LLM test: set {ENABLE_VARIABLE}=1 (make eval-llm does)"
    if importlib.util.find_spec("llama_cpp") is None:
        return f"llama-cpp-python is not installed: {INSTALL_HINT}"
    return None


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A running FakeLLMServer (both wire formats), shut down after the test."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLMServer]:
    """One local model server for the session (the kill test starts its own)."""
    log = tmp_path_factory.mktemp("llm") / "server.log"
    with LocalLLMServer(log_path=log) as server:
        yield server


@pytest.fixture(scope="session")
def demo_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "ws"
    build_demo_workspace(root)
    return root
