"""Processes of the scale-out and reliability tests: real `ragspine` subprocesses in their own
process groups, free ports, readiness polls and the demo files an upload takes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from ragspine.ingestion.pipeline import METADATA_SUFFIX
from ragspine.ingestion.readers import SUPPORTED_SUFFIXES

# Seconds allowed for a process to come up, for the jobs to finish and for a replica to
# catch up (all take well under this on an idle machine; CI's two cores are shared).
START_SECONDS = 90
JOB_SECONDS = 180


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def ragspine(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragspine", *args]


class Processes:
    """Subprocesses of the test, each in its own process group, stopped at the end."""

    def __init__(self, logs: Path) -> None:
        self._logs = logs
        self._started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(
        self, name: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """``ragspine ARGS`` logging to ``NAME.log``; ``env`` is added to this environment."""
        log = self._logs / f"{name}.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(
                ragspine(*args),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )
        self._started.append((proc, log))
        return proc

    def describe(self) -> str:
        return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for _, log in self._started)

    def stop(self) -> None:
        for proc, _ in self._started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc, _ in self._started:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def wait(what: str, done: Callable[[], bool], seconds: float, procs: Processes) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds} s\n{procs.describe()}")
        time.sleep(0.3)


def ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def upload_files(corpus: Path) -> list[Path]:
    """The corpus files an upload takes: no metadata sidecars, no ground truth."""
    return sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUPPORTED_SUFFIXES
        and not p.name.endswith(METADATA_SUFFIX)
    )


def multipart(files: list[Path]) -> list[tuple[str, tuple[str, bytes]]]:
    return [("files", (p.name, p.read_bytes())) for p in files]
