"""End-to-end latency of ``answer_question`` with the offline MockProvider.

A temporary SQLite fact store is filled from the shipped ACME profile — every entity × metric ×
fiscal year FY2013–FY2024 × channel TOTAL/AGENCY/BANCA (4 × 8 × 12 × 3 = 1,152 facts) — and
every call is timed on its own with ``time.perf_counter_ns``:

* ``structured``: one structured question (香港FY2024的REVENUE是多少), ``iterations`` calls.
  Target: median ≤ 0.1 ms on the reference 2-core machine (reported PASS/MISS, never asserted).
  After the first call the fact comes from the store's read cache, as a repeated figure does
  in a service; ``structured_uncached`` times the same question through a second handle that
  keeps no cache, so every call reads SQLite.
* ``mix``: six question kinds (found, not-found, assumption, comparison, refusal,
  clarification), interleaved round-robin so drift hits every kind alike, ``iterations`` calls
  each; reported per kind and over all calls.

Before timing, every question is answered once and checked against the answer kind,
clarification mode and number of tool calls it must produce, so the benchmark cannot silently
time a different code path after a behaviour change.

    .venv/bin/python bench/bench_answer.py [--quick] [--iterations N] [--warmup N] [--json]
    .venv/bin/python bench/bench_answer.py --profile [TOP]    # cProfile of the structured question
"""

from __future__ import annotations

import cProfile
import gc
import io
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from ragspine.agent.agent import answer_question
from ragspine.agent.clarify import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_NONE,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
)
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.parse import forget_parses
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.observability.trace import NullTraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.storage.fact_store import Fact, FactStore

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import summarize

NAME = "answer"
TARGET_MEDIAN_MS = 0.1
DEFAULT_ITERATIONS = 2000
DEFAULT_WARMUP = 200
QUICK_ITERATIONS = 20
QUICK_WARMUP = 3

REFERENCE_DATE = date(2025, 6, 30)  # FY2024 is the latest complete fiscal year
YEARS = tuple(str(year) for year in range(2013, 2025))
CHANNELS = ("TOTAL", "AGENCY", "BANCA")
SEED = 20240101


@dataclass(frozen=True)
class Case:
    """A question and the outcome it must have, so the benchmark times the intended path."""

    kind: str
    question: str
    answer_kind: str
    clarification_mode: str
    tool_calls: int


STRUCTURED = Case("structured", "香港FY2024的REVENUE是多少", AnswerKind.FOUND, CLARIFY_NONE, 1)
MIX: tuple[Case, ...] = (
    Case("found", "What was Hong Kong revenue in FY2024?", AnswerKind.FOUND, CLARIFY_NONE, 1),
    Case("not_found", "澳门FY2010的净利润是多少", AnswerKind.NOT_FOUND, CLARIFY_NONE, 1),
    Case("assumption", "收入是多少", AnswerKind.FOUND, CLARIFY_ANSWER_WITH_ASSUMPTIONS, 1),
    Case("comparison", "香港和澳门FY2024收入对比", AnswerKind.FOUND, CLARIFY_NONE, 2),
    Case("refusal", "竞安保险的收入是多少", AnswerKind.REFUSED, CLARIFY_OUT_OF_SCOPE_ENTITY, 0),
    Case("clarification", "新加坡FY2024收入是多少", AnswerKind.CLARIFY, CLARIFY_ASK_FIRST, 0),
)


# --------------------------------------------------------------------------- fixture


def build_facts(profile: DomainProfile, seed: int = SEED) -> list[Fact]:
    """Entities × metrics × fiscal years × channels with plausible, reproducible values."""
    rng = random.Random(seed)
    facts: list[Fact] = []
    for entity in profile.entities:
        for metric in profile.metrics:
            for year in YEARS:
                for channel in CHANNELS:
                    facts.append(
                        Fact(
                            metric.code,
                            entity.code,
                            entity.geography,
                            channel,
                            "FY",
                            year,
                            _value(metric.kind, rng),
                            metric.unit,
                            f"ACME_AR_FY{year}",
                            f"p.{rng.randint(4, 260)} table {rng.randint(1, 40)}",
                        )
                    )
    return facts


def _value(kind: MetricKind, rng: random.Random) -> float:
    if kind == MetricKind.RATIO:
        return round(rng.uniform(3.0, 65.0), 1)
    if kind == MetricKind.COUNT:
        return float(rng.randint(500, 40_000))
    return round(rng.uniform(50.0, 25_000.0), 1)


@contextmanager
def bench_store(profile: DomainProfile) -> Iterator[tuple[FactStore, int]]:
    """A fresh SQLite fact store in a temporary directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-") as tmp:
        store = FactStore(Path(tmp) / "facts.db")
        try:
            store.init_schema()
            count = store.upsert_facts(build_facts(profile))
            yield store, count
        finally:
            store.close()


def _asker(store: FactStore, profile: DomainProfile) -> Callable[[str], AgentResult]:
    return partial(
        answer_question,
        store=store,
        provider=MockProvider(),
        reference_date=REFERENCE_DATE,
        profile=profile,
        trace_sink=NullTraceSink(),
    )


def check_case(case: Case, result: AgentResult) -> None:
    """Raise when a question no longer takes the path this benchmark claims to time."""
    got = (result.answer_kind, result.clarification.mode, result.trace.get("tool_calls"))
    want = (case.answer_kind, case.clarification_mode, case.tool_calls)
    if got != want:
        raise RuntimeError(
            f"bench case {case.kind!r} ({case.question!r}) gave "
            f"(answer_kind, clarification_mode, tool_calls)={got}, expected {want}"
        )


# --------------------------------------------------------------------------- timing


def ask_afresh(ask: Callable[[str], AgentResult], profile: DomainProfile, question: str) -> None:
    """``question`` as if never asked before: the parse cache emptied first (its cost, one
    ``cache_clear`` of a one-entry cache, is a fraction of a microsecond)."""
    forget_parses(profile)
    ask(question)


def time_calls(call: Callable[[], object], iterations: int) -> list[int]:
    clock = time.perf_counter_ns
    samples = [0] * iterations
    gc.collect()
    for i in range(iterations):
        start = clock()
        call()
        samples[i] = clock() - start
    return samples


def time_round_robin(calls: Sequence[Callable[[], object]], iterations: int) -> list[list[int]]:
    """``iterations`` timings per call, taking the calls in turn."""
    clock = time.perf_counter_ns
    samples: list[list[int]] = [[0] * iterations for _ in calls]
    gc.collect()
    for i in range(iterations):
        for call, out in zip(calls, samples, strict=True):
            start = clock()
            call()
            out[i] = clock() - start
    return samples


# --------------------------------------------------------------------------- entry points


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    n = iterations or (QUICK_ITERATIONS if quick else DEFAULT_ITERATIONS)
    w = warmup if warmup is not None else (QUICK_WARMUP if quick else DEFAULT_WARMUP)
    if n < 2:
        raise ValueError("iterations must be at least 2 to compute percentiles")
    profile = load_profile()
    with bench_store(profile) as (store, fact_count):
        ask = _asker(store, profile)
        for case in (STRUCTURED, *MIX):
            check_case(case, ask(case.question))
        for case in (STRUCTURED, *MIX):
            for _ in range(w):
                ask(case.question)
        # The gated figure is a question parsed afresh each time (a new question); the same
        # question asked again is answered from the parse cache (``agent.parse``), shown apart.
        structured = summarize(
            time_calls(partial(ask_afresh, ask, profile, STRUCTURED.question), n), "ms"
        )
        repeated = summarize(time_calls(partial(ask, STRUCTURED.question), n), "ms")
        per_kind = time_round_robin([partial(ask, case.question) for case in MIX], n)
        # The same question on a second handle to the file that keeps no read cache: what a
        # lookup costs when the fact was not read since the last commit.
        with FactStore(store.path, read_cache=False) as uncached_store:
            ask_uncached = _asker(uncached_store, profile)
            for _ in range(w):
                ask_uncached(STRUCTURED.question)
            uncached = summarize(time_calls(partial(ask_uncached, STRUCTURED.question), n), "ms")

    by_kind = {case.kind: summarize(s, "ms") for case, s in zip(MIX, per_kind, strict=True)}
    overall = summarize([t for s in per_kind for t in s], "ms")
    status = "PASS" if structured["median_ms"] <= TARGET_MEDIAN_MS else "MISS"
    target = f"≤ {TARGET_MEDIAN_MS} ms"

    rows: list[dict[str, Any]] = [
        _row("structured median", structured["median_ms"], target, status),
        _row("structured p95", structured["p95_ms"]),
        _row("structured p99", structured["p99_ms"]),
        _row("structured mean", structured["mean_ms"]),
        _row("structured median, question asked before (parse cached)", repeated["median_ms"]),
        _row("structured median, fact not cached", uncached["median_ms"]),
        _row("structured p95, fact not cached", uncached["p95_ms"]),
        _row("mix (all kinds) median", overall["median_ms"]),
        _row("mix (all kinds) p95", overall["p95_ms"]),
        _row("mix (all kinds) p99", overall["p99_ms"]),
        _row("mix (all kinds) mean", overall["mean_ms"]),
    ]
    for kind, stats in by_kind.items():
        rows.append(_row(f"mix {kind} median", stats["median_ms"]))
        rows.append(_row(f"mix {kind} p95", stats["p95_ms"]))

    return {
        "benchmark": NAME,
        "description": "answer_question latency, MockProvider, temporary SQLite store",
        "params": {
            "iterations": n,
            "warmup": w,
            "facts": fact_count,
            "store": "SQLite file in a temporary directory (WAL)",
            "provider": "MockProvider",
            "reference_date": REFERENCE_DATE.isoformat(),
            "structured_question": STRUCTURED.question,
            "mix_questions": {case.kind: case.question for case in MIX},
        },
        "target": {
            "metric": "structured.median_ms",
            "max_ms": TARGET_MEDIAN_MS,
            "machine": "2-core reference machine",
            "status": status,
        },
        "structured": structured,
        "structured_uncached": uncached,
        "structured_parse_cached": repeated,
        "mix": {"all": overall, "by_kind": by_kind},
        "rows": rows,
    }


def _row(
    metric: str, value: float, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": "ms", "target": target, "status": status}


def profile_structured(top: int = 15, calls: int = DEFAULT_ITERATIONS) -> str:
    """cProfile of ``calls`` structured questions after warm-up: top functions by tottime."""
    profile = load_profile()
    with bench_store(profile) as (store, _):
        ask = partial(_asker(store, profile), STRUCTURED.question)
        for _ in range(DEFAULT_WARMUP):
            ask()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            ask()
        profiler.disable()
    out = io.StringIO()
    out.write(f"cProfile: {calls} × answer_question({STRUCTURED.question!r})\n")
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    out.write(f"\n--- top {top} by tottime ---\n")
    stats.sort_stats("tottime").print_stats(top)
    out.write(f"\n--- top {top} by cumulative ---\n")
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


if __name__ == "__main__":
    from bench.run_all import standalone

    sys.exit(standalone(run, description=__doc__, profile=profile_structured))
