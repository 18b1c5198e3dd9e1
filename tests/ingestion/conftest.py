"""Fixtures the ingestion tests share: the shipped profile and a fresh workspace store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


@pytest.fixture(scope="module")
def profile() -> DomainProfile:
    return load_profile()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteWorkspaceStore]:
    with SQLiteWorkspaceStore(tmp_path / "ragspine.db") as s:
        s.init_schema()
        yield s
