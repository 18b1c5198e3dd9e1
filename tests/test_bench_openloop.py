"""The open-loop generator of the service benchmark counts what it sends and what fails.

Against the real bare-framework app (a subprocess, cheap); no assertion on any timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.bench_service import bare_server

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bare_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    answer = tmp_path_factory.mktemp("bare") / "answer.json"
    answer.write_text(json.dumps({"answer": "fixed", "sources": []}), encoding="utf-8")
    with bare_server(answer) as base_url:
        yield base_url


def _open_loop(url: str, body: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    body_file = tmp_path / "body.json"
    body_file.write_text(json.dumps(body), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "openloop.py"),
            f"{url}/v1/ask",
            "--rate",
            "200",
            "--duration",
            "0.5",
            "--warmup",
            "0",
            "--body-file",
            str(body_file),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_every_scheduled_request_is_sent_and_answered(bare_url: str, tmp_path: Path) -> None:
    result = _open_loop(bare_url, {"question": "q"}, tmp_path)
    assert result["sent"] == result["completed"] == 100
    assert result["errors"] == 0
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["p999_ms"] <= result["max_ms"]


def test_a_refused_request_counts_as_an_error(bare_url: str, tmp_path: Path) -> None:
    # The request model forbids unknown fields: every answer is a 422.
    result = _open_loop(bare_url, {"question": "q", "unknown": 1}, tmp_path)
    assert result["sent"] == result["errors"] == 100
    assert result["completed"] == 0
