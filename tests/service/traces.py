"""The trace lines a test app has written: the service writes traces in batches, from a thread
(``observability.trace.BatchedTraceSink``), so a test flushes them before it counts."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient


def trace_lines(client: TestClient, path: Path) -> list[str]:
    """The lines of ``path`` once ``client``'s app has written every trace it holds."""
    client.app.state.service.backend.traces.flush()  # type: ignore[attr-defined]
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
