"""Closed-loop load on ``POST /v1/ask``: ``wrk`` (compiled, from Debian's ``wrk`` package) with
a fixed number of keep-alive connections, each sending its next request as soon as the last
one is answered, so the figure is the server's throughput at that concurrency.

Where ``wrk`` is missing an asyncio client on httpx stands in and the result says so (it
saturates one core by itself, so its figures are lower bounds).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from bench.stats import summarize


@dataclass(frozen=True)
class Load:
    """What one kind of question gave under load."""

    requests: int
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    client: str


def drive(
    base_url: str,
    question: str,
    duration: float,
    connections: int,
    *,
    key: str | None = None,
    warmup: float = 0.0,
    path: str = "/v1/ask",
) -> Load:
    """``connections`` clients asking ``question`` for ``duration`` s (after ``warmup`` s of
    the same load, not recorded); ``key`` goes in an ``Authorization: Bearer`` header."""
    body = json.dumps({"question": question}, ensure_ascii=False)
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    if shutil.which("wrk"):
        if warmup > 0:
            _wrk(base_url + path, body, headers, warmup, connections)
        return _wrk(base_url + path, body, headers, duration, connections)
    if warmup > 0:
        asyncio.run(_httpx_load(base_url + path, body, headers, warmup, connections))
    return asyncio.run(_httpx_load(base_url + path, body, headers, duration, connections))


def _wrk(url: str, body: str, headers: dict[str, str], duration: float, connections: int) -> Load:
    lines = ['wrk.method = "POST"', f"wrk.body = {_lua_string(body)}"]
    lines += [f"wrk.headers[{_lua_string(k)}] = {_lua_string(v)}" for k, v in headers.items()]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", encoding="utf-8", delete=False) as f:
        f.write("\n".join(lines) + "\n")
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
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(script)
    return parse_wrk(output)


def _lua_string(text: str) -> str:
    """``text`` as a Lua string literal (decimal escapes for every byte outside printable
    ASCII, so UTF-8 passes through unchanged)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out.append(char if 32 <= byte < 127 and char not in '"\\' else f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk(output: str) -> Load:
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


async def _httpx_load(
    url: str, body: str, headers: dict[str, str], duration: float, connections: int
) -> Load:
    import httpx

    samples: list[int] = []
    errors = 0
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(limits=limits, timeout=30.0) as client:
        stop = time.monotonic() + duration

        async def worker() -> None:
            nonlocal errors
            while time.monotonic() < stop:
                start = time.perf_counter_ns()
                try:
                    response = await client.post(url, content=body, headers=headers)
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
