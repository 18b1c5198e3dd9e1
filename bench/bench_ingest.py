"""Ingestion throughput: files and facts per second on a generated corpus.

``generate_scaled_corpus`` writes ``iterations`` small documents (default 240, 20 with
``--quick``) into a temporary folder: decks and workbooks in turn, each holding one table of
three metrics × three periods for one entity, all consistent (no conflicts, no review items).
The corpus is then ingested into a fresh temporary workspace (SQLite file, WAL) with the shipped
ACME profile, exactly as ``ragspine ingest`` does it:

* ``generation``: wall time to write the corpus — reported on its own, never part of ingest.
* ``warm-up``: the first ``warmup`` files (default 2: one deck, one workbook) are ingested
  untimed into a throwaway in-memory store, so the format libraries are imported and the
  profile's caches are built before the clock starts.
* ``ingest``: wall time of the first run over the whole corpus; files/s and facts/s.
  **Target: ≥ 60 files/s** on the reference 2-core machine (reported PASS/MISS, never
  asserted); the corpus has no scanned page: OCR has its own benchmark (``bench_ocr.py``).
* ``re-run``: wall time of a second run over the unchanged corpus (every file skipped).

Before reporting, the run is checked: every file ingested, none failed, the facts and review
items equal the corpus's ground truth, and the re-run skipped every file — so the benchmark
cannot silently time a run that did less work.

    .venv/bin/python bench/bench_ingest.py [--quick] [--iterations FILES] [--warmup FILES] [--json]
    .venv/bin/python bench/bench_ingest.py --profile [TOP]    # cProfile of one ingest run
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragspine.demo import harbour
from ragspine.demo.corpus import GroundTruth, generate_corpus, generate_scaled_corpus
from ragspine.ingestion import ocr
from ragspine.ingestion.pipeline import IngestReport, Outcome, SourceFile, discover, ingest
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.workspace import Workspace

NAME = "ingest"
TARGET_FILES_PER_S = 60.0
DEFAULT_FILES = 240
QUICK_FILES = 20
DEFAULT_WARMUP_FILES = 2
# The demo corpora are small (14 + 5 files): each is ingested this many times, each time into
# a fresh workspace, and the throughput is all their files over all those runs' wall time.
DEMO_ROUNDS = 5
QUICK_DEMO_ROUNDS = 1


@dataclass(frozen=True)
class Corpus:
    root: Path
    truth: GroundTruth
    files: list[SourceFile]
    generation_s: float


@contextmanager
def scaled_corpus(n_files: int) -> Iterator[Corpus]:
    """A generated corpus of ``n_files`` in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-ingest-") as tmp:
        root = Path(tmp) / "corpus"
        start = time.perf_counter()
        truth = generate_scaled_corpus(root, n_files)
        generation_s = time.perf_counter() - start
        yield Corpus(root, truth, discover([root]), generation_s)


@contextmanager
def fresh_workspace() -> Iterator[tuple[SQLiteWorkspaceStore, DomainProfile]]:
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-ws-") as tmp:
        workspace = Workspace.create(Path(tmp) / "ws")
        with workspace.fact_store() as store:
            yield store, workspace.profile()


def warm_up(corpus: Corpus, profile: DomainProfile, n_files: int) -> float:
    """Ingest the first ``n_files`` into a throwaway store; returns the wall seconds."""
    with SQLiteWorkspaceStore(":memory:") as scratch:
        scratch.init_schema()
        start = time.perf_counter()
        ingest((), scratch, profile, files=corpus.files[:n_files])
        return time.perf_counter() - start


def timed_ingest(
    corpus: Corpus, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> tuple[IngestReport, float]:
    start = time.perf_counter()
    report = ingest((), store, profile, files=corpus.files)
    return report, time.perf_counter() - start


def check(corpus: Corpus, first: IngestReport, again: IngestReport) -> None:
    """Fail loudly when the timed runs did not do the work they claim to measure."""
    n = len(corpus.files)
    problems = []
    if first.count(Outcome.INGESTED) != n:
        problems.append(f"first run ingested {first.count(Outcome.INGESTED)} of {n} files")
    problems += [f"{f.doc_id}: {f.error}" for f in first.failures]
    if first.facts != len(corpus.truth.facts):
        problems.append(f"{first.facts} facts, ground truth says {len(corpus.truth.facts)}")
    if first.review != len(corpus.truth.review_items):
        problems.append(
            f"{first.review} review items, ground truth says {len(corpus.truth.review_items)}"
        )
    if again.count(Outcome.SKIPPED) != n:
        problems.append(f"re-run skipped {again.count(Outcome.SKIPPED)} of {n} files")
    if problems:
        raise RuntimeError("bench_ingest: " + "; ".join(problems))


# --------------------------------------------------------------------------- demo corpora


@dataclass(frozen=True)
class DemoCorpus:
    """A demo corpus as shipped, with what its ground truth says ingesting it stores."""

    name: str
    root: Path
    files: list[SourceFile]
    profile: Path | None  # installed into each workspace; None: the shipped ACME profile
    facts: int
    review_items: int


@contextmanager
def demo_corpora() -> Iterator[list[DemoCorpus]]:
    """ACME's demo corpus (``generate_corpus``, ground truth without OCR) and Harbour's."""
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-demo-") as tmp:
        acme = Path(tmp) / "acme"
        truth = generate_corpus(acme, ocr=False)
        port = harbour.build(Path(tmp) / "harbour")
        yield [
            DemoCorpus(
                "acme", acme, discover([acme]), None, len(truth.facts), len(truth.review_items)
            ),
            DemoCorpus(
                "harbour",
                port,
                discover([port]),
                harbour.profile_path(),
                len(harbour.EXPECTED_FACTS),
                len(harbour.EXPECTED_REVIEW),
            ),
        ]


@contextmanager
def ocr_off() -> Iterator[None]:
    """Ingest as a machine without the ``ocr`` extra does: a scanned page is a review item."""
    available = ocr.ocr_available
    ocr.ocr_available = lambda: False
    try:
        yield
    finally:
        ocr.ocr_available = available


def timed_demo(corpus: DemoCorpus, scratch: Path) -> tuple[IngestReport, float]:
    """One ingest of ``corpus`` into a fresh workspace under ``scratch``; the wall seconds."""
    workspace = Workspace.create(scratch)
    if corpus.profile is not None:
        workspace.install_profile(corpus.profile)
    with workspace.fact_store() as store:
        profile = workspace.profile()
        start = time.perf_counter()
        report = ingest((), store, profile, files=corpus.files)
        return report, time.perf_counter() - start


def check_demo(corpus: DemoCorpus, report: IngestReport) -> None:
    """Fail loudly when a run did not store what the corpus's ground truth says."""
    n = len(corpus.files)
    problems = []
    if report.count(Outcome.INGESTED) != n:
        problems.append(f"ingested {report.count(Outcome.INGESTED)} of {n} files")
    problems += [f"{f.doc_id}: {f.error}" for f in report.failures]
    if report.facts != corpus.facts:
        problems.append(f"{report.facts} facts, ground truth says {corpus.facts}")
    if report.review != corpus.review_items:
        problems.append(f"{report.review} review items, ground truth says {corpus.review_items}")
    if problems:
        raise RuntimeError(f"bench_ingest: {corpus.name} demo corpus: " + "; ".join(problems))


def run_demo(rounds: int) -> dict[str, Any]:
    """Each demo corpus ingested ``rounds`` times without OCR, after one untimed run each."""
    walls: dict[str, list[float]] = {}
    files: dict[str, int] = {}
    with (
        demo_corpora() as corpora,
        ocr_off(),
        tempfile.TemporaryDirectory(prefix="ragspine-bench-demo-ws-") as tmp,
    ):
        for corpus in corpora:  # warm-up: imports, profile caches, the period rules' patterns
            check_demo(corpus, timed_demo(corpus, Path(tmp) / f"warm-{corpus.name}")[0])
        for i in range(rounds):  # interleaved, so a slow phase of the machine hits both
            for corpus in corpora:
                report, wall = timed_demo(corpus, Path(tmp) / f"{i}-{corpus.name}")
                check_demo(corpus, report)
                walls.setdefault(corpus.name, []).append(wall)
                files[corpus.name] = len(corpus.files)
    per_corpus = {
        name: {
            "files": files[name],
            "rounds": rounds,
            "wall_s": [round(w, 4) for w in times],
            "files_per_s": round(files[name] * rounds / sum(times), 2),
        }
        for name, times in walls.items()
    }
    total_files = sum(files[name] * rounds for name in walls)
    total_wall = sum(sum(times) for times in walls.values())
    return {
        "rounds": rounds,
        "files_per_s": round(total_files / total_wall, 2),
        "wall_s": round(total_wall, 4),
        "files": total_files,
        "corpora": per_corpus,
    }


# --------------------------------------------------------------------------- entry points


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    """``iterations`` is the number of files to generate; ``warmup`` the untimed files."""
    n_files = iterations or (QUICK_FILES if quick else DEFAULT_FILES)
    n_warm = DEFAULT_WARMUP_FILES if warmup is None else warmup
    with scaled_corpus(n_files) as corpus, fresh_workspace() as (store, profile):
        warm_s = warm_up(corpus, profile, n_warm)
        first, ingest_s = timed_ingest(corpus, store, profile)
        again, rerun_s = timed_ingest(corpus, store, profile)
        check(corpus, first, again)
    demo = run_demo(QUICK_DEMO_ROUNDS if quick else DEMO_ROUNDS)

    files_per_s = n_files / ingest_s
    facts_per_s = first.facts / ingest_s
    status = "PASS" if files_per_s >= TARGET_FILES_PER_S else "MISS"
    target = f"≥ {TARGET_FILES_PER_S:g} files/s"
    rows = [
        _row("ingest throughput", files_per_s, "files/s", target, status),
        _row("demo corpora throughput (ACME + Harbour, no OCR)", demo["files_per_s"], "files/s"),
        _row(
            "ACME demo corpus throughput (no OCR)",
            demo["corpora"]["acme"]["files_per_s"],
            "files/s",
        ),
        _row(
            "Harbour demo corpus throughput", demo["corpora"]["harbour"]["files_per_s"], "files/s"
        ),
        _row("ingest facts throughput", facts_per_s, "facts/s"),
        _row("ingest wall time", ingest_s, "s"),
        _row("re-run (all skipped) wall time", rerun_s, "s"),
        _row("corpus generation wall time", corpus.generation_s, "s"),
        _row("files", n_files, "files"),
        _row("facts", first.facts, "facts"),
        _row("text blocks", first.blocks, "blocks"),
    ]
    return {
        "benchmark": NAME,
        "description": "ingest a generated corpus of decks and workbooks into a fresh workspace",
        "params": {
            "files": n_files,
            "warmup_files": n_warm,
            "corpus": "generate_scaled_corpus: pptx and xlsx in turn, one 3×3 table each",
            "store": "SQLite file in a temporary workspace (WAL)",
            "profile": "shipped ACME example",
        },
        "target": {
            "metric": "ingest.files_per_s",
            "min_files_per_s": TARGET_FILES_PER_S,
            "machine": "2-core reference machine",
            "status": status,
        },
        "generation_s": round(corpus.generation_s, 4),
        "warmup_s": round(warm_s, 4),
        "ingest": {
            "wall_s": round(ingest_s, 4),
            "files_per_s": round(files_per_s, 2),
            "facts_per_s": round(facts_per_s, 1),
            "files": n_files,
            "facts": first.facts,
            "blocks": first.blocks,
            "review_items": first.review,
        },
        "rerun": {
            "wall_s": round(rerun_s, 4),
            "skipped": again.count(Outcome.SKIPPED),
            "files_per_s": round(n_files / rerun_s, 1),
        },
        "demo": demo,
        "rows": rows,
    }


def _row(
    metric: str, value: float, unit: str, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {
        "metric": metric,
        "value": round(float(value), 4),
        "unit": unit,
        "target": target,
        "status": status,
    }


def profile_ingest(top: int = 15, n_files: int = DEFAULT_FILES) -> str:
    """cProfile of one ingest run over ``n_files`` (after warm-up): top functions."""
    with scaled_corpus(n_files) as corpus, fresh_workspace() as (store, profile):
        warm_up(corpus, profile, DEFAULT_WARMUP_FILES)
        profiler = cProfile.Profile()
        profiler.enable()
        ingest((), store, profile, files=corpus.files)
        profiler.disable()
    out = io.StringIO()
    out.write(f"cProfile: ingest of {n_files} generated files into a fresh workspace\n")
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    out.write(f"\n--- top {top} by cumulative ---\n")
    stats.sort_stats("cumulative").print_stats(top)
    out.write(f"\n--- top {top} by tottime ---\n")
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.run_all import standalone

    sys.exit(standalone(run, description=__doc__, profile=profile_ingest))
