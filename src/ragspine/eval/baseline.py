"""The ratcheting baseline: the lowest accepted gate scores, the highest accepted counts, and
which cases must pass.

The baseline (``data/baseline.json``) holds, per split, the lowest accepted score per gate, the
narrative means and the number of cases scored (cases marked ``known_issue`` drop out, so
marking one shows as a regression), the highest accepted fabrication and forbidden counts (0),
and each gated case's pass/fail (``cases``, see ``eval.pins``), so one case starting to fail
while another starts to pass is a regression although every ratio holds. ``ratchet_baseline``
only tightens it unless told ``allow_lower``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from ragspine.errors import UsageError
from ragspine.eval.pins import check_pins, lost_cases, pins_of, tightened_pins
from ragspine.eval.report import EvalRun, GoldenReport
from ragspine.eval.scoring import GATES

BASELINE_NAME = "baseline.json"
_MIN_SCORES = "gates"
_NARRATIVE = "narrative"
_CASES = "cases"
_BASELINE_FIELDS = {
    _MIN_SCORES,
    _NARRATIVE,
    "min_scored_cases",
    "max_fabrication",
    "max_forbidden",
    _CASES,
}
_NARRATIVE_FIELDS = {"k", "recall_at_k", "mrr"}
# Scores are stored floored to 4 decimals, so a stored minimum never exceeds the run it
# came from; comparisons allow for float noise.
_PLACES = 10_000
_EPSILON = 1e-9


def default_baseline_path() -> Path:
    """The committed baseline shipped beside the golden set."""
    return Path(str(resources.files("ragspine.eval").joinpath("data", BASELINE_NAME)))


def load_baseline(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Read and validate a baseline file (one entry per split); errors name the file."""
    source = Path(path) if path is not None else default_baseline_path()
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read baseline {source}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source}: not valid JSON ({exc.msg})") from None
    if not isinstance(raw, dict) or not raw:
        raise UsageError(f"{source}: a baseline maps each split name to its entry")
    for split, entry in raw.items():
        try:
            _validate_baseline(entry)
        except ValueError as exc:
            raise UsageError(f"{source}: split {split!r}: {exc}") from None
    return raw


def _validate_baseline(raw: Any) -> None:
    if not isinstance(raw, dict) or set(raw) != _BASELINE_FIELDS:
        raise ValueError(f"a baseline holds exactly {', '.join(sorted(_BASELINE_FIELDS))}")
    gates = raw[_MIN_SCORES]
    if not isinstance(gates, dict) or set(gates) != set(GATES):
        raise ValueError(f"'gates' must hold exactly {', '.join(GATES)}")
    narrative = raw[_NARRATIVE]
    if not isinstance(narrative, dict) or set(narrative) != _NARRATIVE_FIELDS:
        raise ValueError(f"'narrative' must hold exactly {', '.join(sorted(_NARRATIVE_FIELDS))}")
    numbers = [*gates.values(), narrative["recall_at_k"], narrative["mrr"]]
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        raise ValueError("scores must be numbers")
    counts = [raw["min_scored_cases"], raw["max_fabrication"], raw["max_forbidden"], narrative["k"]]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        raise ValueError("counts and k must be non-negative integers")
    check_pins(raw[_CASES])


def baseline_of(
    report: GoldenReport, *, held_out: bool = False, salt: str | None = None
) -> dict[str, Any]:
    """The baseline this run would set: its own scores, counts and passing cases (for a
    held-out split as salted digests, with ``salt`` or a fresh one)."""
    return {**_scores_of(report), _CASES: pins_of(report, held_out=held_out, salt=salt)}


def _scores_of(report: GoldenReport) -> dict[str, Any]:
    overall = report.overall
    return {
        _MIN_SCORES: {name: _floor(overall.gates[name].score) for name in GATES},
        _NARRATIVE: {
            "k": report.k,
            "recall_at_k": _floor(overall.recall if overall.recall is not None else 1.0),
            "mrr": _floor(overall.mrr if overall.mrr is not None else 1.0),
        },
        "min_scored_cases": report.scored_cases,
        "max_fabrication": overall.fabrication,
        "max_forbidden": overall.forbidden,
    }


def check_baseline(run: EvalRun, baseline_path: str | Path | None = None) -> list[str]:
    """Regressions of every split of ``run`` against the baseline, one message each."""
    base = load_baseline(baseline_path)
    problems: list[str] = []
    for split, report in run.reports.items():
        if split not in base:
            problems.append(
                f"{split}: the baseline has no entry for this split "
                "(pass --baseline FILE with your own, or --update-baseline to start one)"
            )
            continue
        with _naming(split):
            lost = lost_cases(report, base[split][_CASES], held_out=split in run.held_out)
        problems += [
            f"{split}: {p}" for p in [*_regressions(_scores_of(report), base[split]), *lost]
        ]
    return problems


def _regressions(now: dict[str, Any], base: dict[str, Any]) -> list[str]:
    problems = [
        f"{name}: {now[_MIN_SCORES][name]:.4f} is below the baseline {floor:.4f}"
        for name, floor in base[_MIN_SCORES].items()
        if now[_MIN_SCORES][name] < floor - _EPSILON
    ]
    problems += _narrative_regressions(now[_NARRATIVE], base[_NARRATIVE])
    if now["min_scored_cases"] < base["min_scored_cases"]:
        problems.append(
            f"cases gated: {now['min_scored_cases']} is below the baseline "
            f"{base['min_scored_cases']} (cases removed or marked known_issue)"
        )
    for key, label in (("max_fabrication", "fabrication"), ("max_forbidden", "forbidden")):
        if now[key] > base[key]:
            problems.append(f"{label}: {now[key]} is above the baseline {base[key]}")
    return problems


def _narrative_regressions(now: dict[str, Any], base: dict[str, Any]) -> list[str]:
    if now["k"] != base["k"]:
        return [f"narrative recall measured at k={now['k']}, the baseline is at k={base['k']}"]
    return [
        f"narrative {key}: {now[key]:.4f} is below the baseline {base[key]:.4f}"
        for key in ("recall_at_k", "mrr")
        if now[key] < base[key] - _EPSILON
    ]


def ratchet_baseline(
    run: EvalRun, path: str | Path | None = None, *, allow_lower: bool = False
) -> dict[str, dict[str, Any]]:
    """Write the baseline tightened by this run and return it.

    Minimums only rise and maximums only fall; with ``allow_lower`` the run's own values are
    written as they are, so loosening the baseline is always an explicit, reviewable change.
    Splits the run did not cover keep their entries.
    """
    target = Path(path) if path is not None else default_baseline_path()
    old = load_baseline(target) if target.exists() else {}
    new = dict(old)
    for split, report in run.reports.items():
        held_out = split in run.held_out
        if split not in old:
            new[split] = baseline_of(report, held_out=held_out)
            continue
        pins = old[split][_CASES]
        if allow_lower:
            new[split] = baseline_of(report, held_out=held_out, salt=pins.get("salt"))
        else:
            with _naming(split):
                kept = tightened_pins(report, pins, held_out=held_out)
            new[split] = {**_tightened(old[split], _scores_of(report)), _CASES: kept}
    target.write_text(json.dumps(new, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return new


def _tightened(base: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    if base[_NARRATIVE]["k"] != now[_NARRATIVE]["k"]:
        raise UsageError(
            f"the baseline measures narrative recall at k={base[_NARRATIVE]['k']}, this run at "
            f"k={now[_NARRATIVE]['k']}; re-baselining at another k needs allow_lower"
        )
    narrative = {
        key: value if key == "k" else max(base[_NARRATIVE][key], value)
        for key, value in now[_NARRATIVE].items()
    }
    return {
        _MIN_SCORES: {n: max(base[_MIN_SCORES][n], now[_MIN_SCORES][n]) for n in GATES},
        _NARRATIVE: narrative,
        "min_scored_cases": max(base["min_scored_cases"], now["min_scored_cases"]),
        "max_fabrication": min(base["max_fabrication"], now["max_fabrication"]),
        "max_forbidden": min(base["max_forbidden"], now["max_forbidden"]),
    }


@contextmanager
def _naming(split: str) -> Iterator[None]:
    """A pins mismatch as a usage error naming the split."""
    try:
        yield
    except ValueError as exc:
        raise UsageError(f"baseline split {split!r}: {exc}") from None


def _floor(score: float) -> float:
    return math.floor(score * _PLACES + _EPSILON) / _PLACES
