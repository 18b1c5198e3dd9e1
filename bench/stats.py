"""Summary statistics of timing samples: the one shape every benchmark reports latencies in."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Literal

Unit = Literal["ms", "us"]
# Samples come from time.perf_counter_ns; these turn nanoseconds into the reported unit.
_PER_NS: dict[Unit, float] = {"ms": 1e-6, "us": 1e-3}


def summarize(samples_ns: Sequence[int], unit: Unit) -> dict[str, float]:
    """n / median / p95 / p99 / mean / min / max of nanosecond samples, keyed ``median_<unit>``.

    Percentiles use inclusive quantiles, so they never fall outside the observed range; at
    least two samples are needed.
    """
    ordered = sorted(samples_ns)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    scale = _PER_NS[unit]
    return {
        "n": len(ordered),
        f"median_{unit}": statistics.median(ordered) * scale,
        f"p95_{unit}": cuts[94] * scale,
        f"p99_{unit}": cuts[98] * scale,
        f"mean_{unit}": statistics.fmean(ordered) * scale,
        f"min_{unit}": ordered[0] * scale,
        f"max_{unit}": ordered[-1] * scale,
    }
