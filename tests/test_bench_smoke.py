"""The benchmark harness runs end to end and writes a well-formed report.

Quick mode only, and no assertion on speed: targets live in the benchmarks (bench/README.md),
where a MISS is reported, never in unit tests, where it would make the suite flaky.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench import run_all

ROOT = Path(__file__).resolve().parents[1]
MACHINE_KEYS = {
    "platform",
    "python_version",
    "cpu_count",
    "cpu_model",
    "timestamp",
    "git_commit",
}
STAT_KEYS_MS = {"n", "median_ms", "p95_ms", "p99_ms", "mean_ms", "min_ms", "max_ms"}
STAT_KEYS_US = {"n", "median_us", "p95_us", "p99_us", "mean_us", "min_us", "max_us"}
MIX_KINDS = {"found", "not_found", "assumption", "comparison", "refusal", "clarification"}


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("bench") / "latest.json"
    # As CI runs it, in a process of its own: a test process may hold an event loop (the
    # browser tests' Playwright), and the service benchmark starts its own.
    done = subprocess.run(
        [sys.executable, "bench/run_all.py", "--quick", "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        encoding="utf-8",
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def test_report_top_level(report: dict[str, Any]) -> None:
    assert report["schema_version"] == run_all.SCHEMA_VERSION
    assert report["quick"] is True
    assert _positive(report["duration_s"])
    assert set(report["benchmarks"]) == set(run_all.discover()) >= {"answer", "parse", "ingest"}
    for result in report["benchmarks"].values():
        assert all(_positive(v) for v in result["cpu_probe_us"].values())


def test_machine_info(report: dict[str, Any]) -> None:
    machine = report["machine"]
    assert set(machine) >= MACHINE_KEYS
    assert _positive(machine["cpu_count"])
    assert machine["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert machine["platform"]
    assert machine["timestamp"]


def test_answer_benchmark(report: dict[str, Any]) -> None:
    answer = report["benchmarks"]["answer"]
    assert answer["params"]["facts"] == 4 * 8 * 12 * 3
    for timed in ("structured", "structured_uncached"):
        assert set(answer[timed]) >= STAT_KEYS_MS
        assert all(_positive(v) for v in answer[timed].values())
    assert set(answer["mix"]["by_kind"]) == MIX_KINDS
    for stats in [answer["mix"]["all"], *answer["mix"]["by_kind"].values()]:
        assert set(stats) >= STAT_KEYS_MS
        assert all(_positive(v) for v in stats.values())
    assert answer["target"]["status"] in {"PASS", "MISS"}


def test_parse_benchmark(report: dict[str, Any]) -> None:
    parse = report["benchmarks"]["parse"]
    assert parse["params"]["distinct_questions"] >= 50
    assert set(parse["params"]["questions_per_language"]) == {"zh", "en", "mixed"}
    assert set(parse["parse"]) >= STAT_KEYS_US
    assert all(_positive(v) for v in parse["parse"].values())
    assert _positive(parse["throughput_qps"])


def test_ingest_benchmark(report: dict[str, Any]) -> None:
    ingest = report["benchmarks"]["ingest"]
    files = ingest["params"]["files"]
    assert ingest["ingest"]["files"] == ingest["rerun"]["skipped"] == files > 0
    assert ingest["ingest"]["facts"] > 0
    for value in (ingest["ingest"]["files_per_s"], ingest["ingest"]["facts_per_s"]):
        assert _positive(value)
    assert _positive(ingest["generation_s"]) and _positive(ingest["rerun"]["wall_s"])
    assert ingest["target"]["status"] in {"PASS", "MISS"}
    # The demo corpora, ingested without OCR (checked against their ground truth in the run):
    # ACME's 14 files and Harbour's 5, once each in quick mode, reported without a target.
    demo = ingest["demo"]
    assert {name: c["files"] for name, c in demo["corpora"].items()} == {"acme": 14, "harbour": 5}
    assert demo["rounds"] == 1 and demo["files"] == 19
    assert all(_positive(c["files_per_s"]) for c in demo["corpora"].values())
    assert _positive(demo["files_per_s"])
    demo_rows = [row for row in ingest["rows"] if "demo corp" in row["metric"]]
    assert len(demo_rows) == 3 and all(row["status"] is None for row in demo_rows)


def test_service_benchmark(report: dict[str, Any]) -> None:
    service = report["benchmarks"]["service"]
    kinds = {"structured", "narrative", "faq"}
    assert set(service["one_worker"]) == set(service["two_workers"]) == kinds
    for load in [
        service["bare"],
        *service["one_worker"].values(),
        *service["two_workers"].values(),
    ]:
        assert load["requests"] > 0 and load["errors"] == 0
    for result in service["open_loop"].values():
        # Every scheduled request was sent and answered (2xx) by the open-loop generator.
        assert result["sent"] == result["completed"] > 0
        assert result["errors"] == 0 and _positive(result["generator_cpu_share"])
    targeted = [row for row in service["rows"] if row["status"] is not None]
    assert [row["metric"] for row in targeted] == [
        "structured requests/s, 1 worker",
        "bare ÷ structured, 1 worker",
        "structured p99 at 800 req/s, 1 worker (open loop)",
        "structured requests/s, 2 workers",
    ]


def test_scaleout_benchmark(report: dict[str, Any]) -> None:
    scaleout = report["benchmarks"]["scaleout"]
    if scaleout.get("skipped"):  # no PostgreSQL or Redis here (under CI=true it fails instead)
        assert "unreachable" in scaleout["skipped"] or "not installed" in scaleout["skipped"]
        return
    assert scaleout["params"]["replicas"] == 2
    assert set(scaleout["replicated"]) == {"structured", "narrative", "faq"}
    assert all(load["requests"] > 0 for load in scaleout["replicated"].values())
    files = scaleout["params"]["files_per_worker_count"]
    assert set(scaleout["ingest"]) == {"1 worker", "2 workers"}
    for ingested in scaleout["ingest"].values():
        assert ingested["files"] == files > 0
        assert _positive(ingested["files_per_s"])


def test_summary_rows(report: dict[str, Any]) -> None:
    rows = report["summary"]
    # A benchmark whose servers or extra are missing here says so and has no rows.
    ran = {name for name, result in report["benchmarks"].items() if not result.get("skipped")}
    assert {row["benchmark"] for row in rows} == ran
    for row in rows:
        assert {"benchmark", "metric", "value", "unit", "target", "status"} <= set(row)
        # Counts (errors) may be zero; measurements must be positive.
        counted = row["unit"] == "count" and row["value"] == 0
        assert counted or _positive(row["value"]), row
        assert row["status"] in {"PASS", "MISS", None}
    # The target is reported, whatever the outcome on this machine.
    assert any(row["status"] in {"PASS", "MISS"} for row in rows)


@pytest.mark.parametrize("script", ["bench_answer.py", "bench_parse.py", "bench_ingest.py"])
def test_module_runs_standalone(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--quick", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["rows"]
    assert all(_positive(row["value"]) for row in result["rows"])
