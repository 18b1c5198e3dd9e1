"""The fact-store conformance suite, run against every backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.storage.fact_store import FactStoreProtocol
from tests.storage.backends import BACKENDS, open_fact_store
from tests.storage.conformance import FactStoreConformance


class TestFactStore(FactStoreConformance):
    @pytest.fixture(params=BACKENDS)
    def store(self, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FactStoreProtocol]:
        with open_fact_store(request.param, request, tmp_path) as store:
            yield store
