"""Load on the HTTP service: ``POST /v1/ask`` over loopback, many clients at once.

The demo workspace is built in a temporary folder and served by ``ragspine serve --no-auth``
(uvicorn, ``--workers 2`` on the 2-core reference machine) on a free loopback port. Each
question kind — structured, narrative and FAQ — is then driven on its own for ``duration``
seconds by ``connections`` concurrent keep-alive clients, and reported as requests per second,
latency p50 / p99 and errors (non-2xx answers and socket errors).

The client is ``wrk`` (compiled, from Debian's ``wrk`` package; ``make bench`` installs it)
so the load generator does not compete with the server for the interpreter; where ``wrk`` is
missing, an asyncio client on httpx runs instead and the report says so (it saturates one core
by itself, so its figures are lower bounds). Target: ≥ 800 requests/s on structured questions
with zero errors and p99 ≤ 50 ms (reported PASS/MISS, never asserted).

    .venv/bin/python bench/bench_service.py [--quick] [--json]
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import summarize

NAME = "service"
TARGET_RPS = 800.0
TARGET_P99_MS = 50.0
CONNECTIONS = 50
DURATION_S = 30.0
QUICK_CONNECTIONS = 8
QUICK_DURATION_S = 2.0
WORKERS = 2
# Generous: on two cores shared with other work a server process can take a minute to start.
STARTUP_TIMEOUT_S = 120.0

# One question per kind; each is checked once (route and status) before it is timed, so the
# benchmark cannot silently time an error page or another path.
QUESTIONS: dict[str, tuple[str, str]] = {
    "structured": ("香港FY2024的收入是多少", "structured"),
    "narrative": ("香港业务增长的主要驱动因素是什么", "narrative"),
    "faq": ("", "faq"),  # filled from the shipped profile's FAQ file
}


@dataclass(frozen=True)
class Load:
    """What one kind of question gave under load."""

    requests: int
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    client: str


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    del iterations, warmup  # a load run is bounded by time, not by a count
    duration = QUICK_DURATION_S if quick else DURATION_S
    connections = QUICK_CONNECTIONS if quick else CONNECTIONS
    questions = {kind: (q or faq_question(), route) for kind, (q, route) in QUESTIONS.items()}
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-service-") as tmp:
        workspace = Path(tmp) / "ws"
        build_workspace(workspace)
        with embedded_server(workspace, WORKERS) as base_url:
            for kind, (question, route) in questions.items():
                check_question(base_url, kind, question, route)
            loads = {
                kind: drive(base_url, question, duration, connections)
                for kind, (question, _) in questions.items()
            }
    structured = loads["structured"]
    passed = (
        structured.rps >= TARGET_RPS
        and structured.errors == 0
        and structured.p99_ms <= TARGET_P99_MS
    )
    status = "PASS" if passed else "MISS"
    rows: list[dict[str, Any]] = [
        _row(
            "structured requests/s",
            structured.rps,
            "req/s",
            f"≥ {TARGET_RPS:.0f}, 0 errors, p99 ≤ {TARGET_P99_MS:.0f} ms",
            status,
        ),
    ]
    for kind, load in loads.items():
        if kind != "structured":
            rows.append(_row(f"{kind} requests/s", load.rps, "req/s"))
        rows.append(_row(f"{kind} p50", load.p50_ms, "ms"))
        rows.append(_row(f"{kind} p99", load.p99_ms, "ms"))
        rows.append(_row(f"{kind} errors", float(load.errors), "count"))
    return {
        "benchmark": NAME,
        "description": "POST /v1/ask under concurrent load on loopback (ragspine serve)",
        "params": {
            "duration_s": duration,
            "connections": connections,
            "server_workers": WORKERS,
            "client": structured.client,
            "questions": {kind: q for kind, (q, _) in questions.items()},
        },
        "target": {
            "metric": "structured rps / errors / p99",
            "min_rps": TARGET_RPS,
            "max_p99_ms": TARGET_P99_MS,
            "status": status,
        },
        "loads": {kind: load.__dict__ for kind, load in loads.items()},
        "rows": rows,
    }


def _row(
    metric: str, value: float, unit: str, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": unit, "target": target, "status": status}


# --------------------------------------------------------------------------- set-up


def faq_question() -> str:
    """An enabled, current, non-RESTRICTED question of the shipped profile's FAQ file."""
    from datetime import date

    from ragspine.profile.loader import load_profile
    from ragspine.profile.sensitivity import Sensitivity
    from ragspine.service.faq.faq_cache import FaqCache

    cache = FaqCache.from_profile(load_profile())
    today = date.today()
    for item in cache.items:
        hit = cache.lookup(item.question, clearance=Sensitivity.CONFIDENTIAL, today=today)
        if hit is not None:
            return item.question
    raise RuntimeError("the shipped profile's FAQ file has no item a question can hit")


def build_workspace(folder: Path) -> None:
    from ragspine.demo.tour import build_demo_workspace

    build_demo_workspace(folder)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def embedded_server(workspace: Path, workers: int) -> Iterator[str]:
    port = free_port()
    command = [
        str(Path(sys.executable).with_name("ragspine")),
        "serve",
        "--workspace",
        str(workspace),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--no-auth",
    ]
    base_url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_ready(base_url, process, log)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_ready(base_url: str, process: subprocess.Popen[bytes], log: Any) -> None:
    import httpx

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            output = log.read().decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"ragspine serve exited with {process.returncode}:\n{output}")
        try:
            if httpx.get(f"{base_url}/readyz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"ragspine serve was not ready within {STARTUP_TIMEOUT_S:.0f} s")


def check_question(base_url: str, kind: str, question: str, route: str) -> None:
    import httpx

    response = httpx.post(f"{base_url}/v1/ask", json={"question": question}, timeout=30.0)
    body = response.json()
    if response.status_code != 200 or body.get("route") != route:
        raise RuntimeError(
            f"bench question {kind!r} ({question!r}) gave HTTP {response.status_code}, "
            f"route {body.get('route')!r}; expected 200 and route {route!r}"
        )


# --------------------------------------------------------------------------- load


def drive(base_url: str, question: str, duration: float, connections: int) -> Load:
    body = json.dumps({"question": question}, ensure_ascii=False)
    if shutil.which("wrk"):
        return _wrk(base_url, body, duration, connections)
    return asyncio.run(_httpx_load(base_url, body, duration, connections))


_WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = {body}
"""


def _wrk(base_url: str, body: str, duration: float, connections: int) -> Load:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", encoding="utf-8", delete=False) as f:
        f.write(_WRK_SCRIPT.format(body=_lua_string(body)))
        script = f.name
    try:
        threads = max(1, min(2, os.cpu_count() or 1))
        output = subprocess.run(
            [
                "wrk",
                f"-t{threads}",
                f"-c{connections}",
                f"-d{max(1, round(duration))}s",
                "--latency",
                "-s",
                script,
                f"{base_url}/v1/ask",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(script)
    return _parse_wrk(output)


def _lua_string(text: str) -> str:
    """``text`` as a Lua string literal (decimal escapes for every byte outside printable
    ASCII, so UTF-8 passes through unchanged)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out.append(char if 32 <= byte < 127 and char not in '"\\' else f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _parse_wrk(output: str) -> Load:
    def latency(label: str) -> float:
        match = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.MULTILINE)
        if match is None:
            raise RuntimeError(f"wrk printed no {label}% latency:\n{output}")
        return float(match[1]) * _UNITS_MS[match[2]]

    requests = re.search(r"(\d+) requests in", output)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if requests is None or rps is None:
        raise RuntimeError(f"could not read wrk's output:\n{output}")
    errors = 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_2xx:
        errors += int(non_2xx[1])
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    if sockets:
        errors += sum(int(n) for n in sockets.groups())
    return Load(int(requests[1]), float(rps[1]), latency("50"), latency("99"), errors, "wrk")


async def _httpx_load(base_url: str, body: str, duration: float, connections: int) -> Load:
    import httpx

    samples: list[int] = []
    errors = 0
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    headers = {"Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30.0) as client:
        stop = time.monotonic() + duration

        async def worker() -> None:
            nonlocal errors
            while time.monotonic() < stop:
                start = time.perf_counter_ns()
                try:
                    response = await client.post("/v1/ask", content=body, headers=headers)
                    ok = response.status_code < 300
                except httpx.HTTPError:
                    ok = False
                samples.append(time.perf_counter_ns() - start)
                errors += 0 if ok else 1

        began = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(connections)))
        elapsed = time.monotonic() - began
    stats = summarize(samples, "ms")
    return Load(
        len(samples),
        len(samples) / elapsed,
        stats["median_ms"],
        stats["p99_ms"],
        errors,
        "httpx (asyncio; wrk not installed)",
    )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    result = run(quick=quick)
    if "--json" in sys.argv:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        for row in result["rows"]:
            target = f"  (target {row['target']}: {row['status']})" if row["target"] else ""
            print(f"{row['metric']:>24}: {row['value']:,.1f} {row['unit']}{target}")
