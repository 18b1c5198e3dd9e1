"""A missed speed target fails a full benchmark run, after the re-measurements its noise rule
allows; nothing here is timed (the attempts are written by hand)."""

from __future__ import annotations

from typing import Any

from bench import run_all


def attempt(*statuses: str | None) -> dict[str, Any]:
    rows = [
        {"metric": f"m{n}", "value": 1.0, "unit": "ms", "target": "≤ 1 ms", "status": status}
        for n, status in enumerate(statuses)
    ]
    return {"rows": rows}


def scripted(*attempts: dict[str, Any]) -> tuple[list[int], Any]:
    """A measure function handing out ``attempts`` in turn, and the attempt numbers asked."""
    asked: list[int] = []

    def measure(number: int) -> dict[str, Any]:
        asked.append(number)
        return attempts[number - 1]

    return asked, measure


def test_a_benchmark_that_meets_its_targets_is_measured_once() -> None:
    asked, measure = scripted(attempt("PASS", None))
    kept = run_all.best_of(measure, retries=2)
    assert asked == [1]
    assert (kept["attempts"], kept["misses_per_attempt"]) == (1, [0])


def test_a_miss_is_measured_again_until_it_passes() -> None:
    first, second = attempt("MISS", "PASS"), attempt("PASS", "PASS")
    asked, measure = scripted(first, second, attempt("MISS", "MISS"))
    kept = run_all.best_of(measure, retries=2)
    assert asked == [1, 2]
    assert kept is second and kept["misses_per_attempt"] == [1, 0]


def test_after_the_retries_the_attempt_with_fewest_misses_is_kept_whole() -> None:
    attempts = attempt("MISS", "MISS"), attempt("PASS", "MISS"), attempt("MISS", "PASS")
    asked, measure = scripted(*attempts)
    kept = run_all.best_of(measure, retries=2)
    assert asked == [1, 2, 3]
    # The earliest of the two one-miss attempts, with its own rows (never a mix of attempts).
    assert kept is attempts[1]
    assert [r["status"] for r in kept["rows"]] == ["PASS", "MISS"]
    assert kept["misses_per_attempt"] == [2, 1, 1]


def test_no_retries_means_one_attempt() -> None:
    asked, measure = scripted(attempt("MISS"), attempt("PASS"))
    assert run_all.best_of(measure, retries=0)["attempts"] == 1
    assert asked == [1]


def report(quick: bool, *statuses: str | None) -> dict[str, Any]:
    return {
        "quick": quick,
        "summary": [{"benchmark": "answer", **row} for row in attempt(*statuses)["rows"]],
    }


def test_a_missed_target_fails_a_full_run_only() -> None:
    assert run_all.exit_code(report(False, "PASS", None)) == 0
    assert run_all.exit_code(report(False, "PASS", "MISS")) == 1
    assert run_all.missed(report(False, "PASS", "MISS")) == ["answer: m1"]
    # A quick run's figures mean nothing; --report-only prints and saves, and never fails.
    assert run_all.exit_code(report(True, "MISS")) == 0
    assert run_all.exit_code(report(False, "MISS"), report_only=True) == 0
