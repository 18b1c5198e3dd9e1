"""The reliability campaign at service scale (docs/reliability.md): crash trials, concurrency,
leak probes, hostile clients, reader fuzzing, the soak and the faults of a deployment
(``test_faults.py``, on PostgreSQL and Redis servers of its own).

Every module here sets ``pytestmark = pytest.mark.reliability``. ``make test`` deselects the
marker (``addopts`` in pyproject.toml) to stay within its time budget; ``make reliability`` runs
the CI variants (bounded, under 10 minutes on 2 cores) and ``.ci/run`` calls it after ``make
test``. The long variants take their budget from ``RAGSPINE_RELIABILITY=long`` (``make soak``,
``make fuzz``).
"""

from __future__ import annotations

import os

BUDGET_VARIABLE = "RAGSPINE_RELIABILITY"


def long_budget() -> bool:
    """True under ``RAGSPINE_RELIABILITY=long`` (the make targets' long variants)."""
    return os.environ.get(BUDGET_VARIABLE, "").strip().lower() == "long"
