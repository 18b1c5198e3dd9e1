"""The benchmark table shows each figure beside the same figure from the run before."""

from __future__ import annotations

import json
from pathlib import Path

from bench import run_all


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_last_saved_full_run_is_the_previous_figure(tmp_path: Path) -> None:
    saved = _write(
        tmp_path / "latest.json",
        {"quick": False, "summary": [{"benchmark": "parse", "metric": "throughput", "value": 9}]},
    )
    reference = _write(
        tmp_path / "reference.json",
        {"rows": [{"benchmark": "parse", "metric": "throughput", "value": 1}]},
    )
    assert run_all.previous_figures(saved, reference) == {("parse", "throughput"): 9.0}


def test_without_a_full_saved_run_the_reference_is_used(tmp_path: Path) -> None:
    quick = _write(
        tmp_path / "latest.json",
        {"quick": True, "summary": [{"benchmark": "parse", "metric": "throughput", "value": 9}]},
    )
    reference = _write(
        tmp_path / "reference.json",
        {"rows": [{"benchmark": "parse", "metric": "throughput", "value": 1}]},
    )
    assert run_all.previous_figures(quick, reference) == {("parse", "throughput"): 1.0}
    assert run_all.previous_figures(tmp_path / "missing.json", reference) == {
        ("parse", "throughput"): 1.0
    }
    assert run_all.previous_figures(tmp_path / "a.json", tmp_path / "b.json") == {}


def test_the_committed_reference_names_the_targets_figures() -> None:
    figures = run_all.previous_figures(Path("/nonexistent"), run_all.REFERENCE)
    assert {("answer", "structured median"), ("parse", "throughput")} <= set(figures)


def test_rows_carry_their_previous_figure_and_the_table_shows_it() -> None:
    rows = [
        {"benchmark": "parse", "metric": "throughput", "value": 20000.0, "unit": "q/s"},
        {"benchmark": "parse", "metric": "new row", "value": 1.0, "unit": "µs"},
    ]
    merged = run_all.with_previous(rows, {("parse", "throughput"): 6000.0})
    assert [row["previous"] for row in merged] == [6000.0, None]
    table = run_all.summary_table(merged)
    previous_column = next(c for c in table.columns if c.header == "previous")
    assert list(previous_column.cells) == ["6,000 q/s", "—"]


def test_a_benchmark_whose_cpu_probes_differ_is_called_unsteady() -> None:
    report = {
        "benchmarks": {
            "parse": {"cpu_probe_us": {"before": 500.0, "after": 505.0}},
            "answer": {"cpu_probe_us": {"before": 500.0, "after": 760.0}},
            "ingest": {},
        }
    }
    assert run_all.unsteady(report) == ["answer"]
    assert run_all.cpu_probe(rounds=2) > 0
