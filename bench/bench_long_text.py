"""Long-text ingestion: one huge paragraph must cost time in proportion to its length.

Each case writes one file holding a single paragraph of mixed Chinese/English report prose
(metric, entity, period and number mentions, "other revenue", ratio suffixes — everything the
per-text passes look at) and ingests it alone into a fresh in-memory store with the shipped ACME
profile, the way ``ragspine ingest`` does. The wall time of each case is the best of
``iterations`` runs (default 3, 1 with ``--quick``), after one untimed warm-up ingest.

* ``.md`` at 60k, 120k, 240k and 1M characters (20k and 40k with ``--quick``);
* a 1M-character one-line ``.txt``, a Word document with one 1M-character paragraph and a deck
  with a 200k-character text box (skipped with ``--quick``).

**Target: doubling the text at most 2.5x the time** (``.md`` 240k vs 120k; 2x is linear, the
margin absorbs noise). Before the one-pass fix a 120k paragraph took 20.5 s, 2.8x its 60k time,
and a megabyte never finished.

    .venv/bin/python bench/bench_long_text.py [--quick] [--iterations RUNS] [--json]
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docx import Document
from pptx import Presentation
from pptx.util import Inches

from ragspine.ingestion.pipeline import Outcome, discover, ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

NAME = "long_text"
TARGET_DOUBLING = 2.5
DEFAULT_RUNS = 3
QUICK_RUNS = 1
# Numbered sentences: a text repeating one sentence compresses so well that the zip-bomb
# guard (``ingestion.safety``) refuses the Word document before it is read.
PROSE = (
    "香港分部FY2024收入为{n:,}百万美元，较上年增长5.2%，其他收入下降。"
    "Macau revenue was {n} USD million in 2025H1 and the NBV margin rose to 55.2%. "
)

Writer = Callable[[Path, str], None]


def _text(chars: int) -> str:
    sentences = (PROSE.format(n=n) for n in range(chars // len(PROSE) + 1))
    return "".join(sentences)[:chars]


def _markdown(path: Path, text: str) -> None:
    path.write_text(f"# 香港业务回顾\n\n{text}\n", encoding="utf-8")


def _plain(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _docx(path: Path, text: str) -> None:
    document = Document()
    document.add_paragraph(text)
    document.save(str(path))


def _pptx(path: Path, text: str) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(5))
    box.text_frame.text = text
    deck.save(str(path))


def _case_seconds(
    suffix: str, writer: Writer, chars: int, runs: int, profile: DomainProfile
) -> float:
    """Best wall time of ``runs`` ingests of one ``chars``-character paragraph."""
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-long-") as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        writer(corpus / f"long{suffix}", _text(chars))
        files = discover([corpus])
        best = float("inf")
        for _ in range(runs):
            with SQLiteWorkspaceStore(":memory:") as store:
                store.init_schema()
                start = time.perf_counter()
                report = ingest((), store, profile, files=files)
                best = min(best, time.perf_counter() - start)
            if report.count(Outcome.INGESTED) != 1:
                raise RuntimeError(f"bench_long_text: {suffix} of {chars} chars did not ingest")
    return best


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    """``iterations`` is the runs per case (the best counts); ``warmup`` is unused."""
    runs = iterations or (QUICK_RUNS if quick else DEFAULT_RUNS)
    profile = load_profile()
    _case_seconds(".md", _markdown, 1_000, 1, profile)  # imports and the profile's matchers
    md_sizes = (20_000, 40_000) if quick else (60_000, 120_000, 240_000, 1_000_000)
    cases: list[tuple[str, Writer, int]] = [(".md", _markdown, n) for n in md_sizes]
    if not quick:
        cases += [
            (".txt", _plain, 1_000_000),
            (".docx", _docx, 1_000_000),
            (".pptx", _pptx, 200_000),
        ]
    seconds = {
        f"{suffix} {chars:,} chars": _case_seconds(suffix, writer, chars, runs, profile)
        for suffix, writer, chars in cases
    }
    small, large = (f".md {n:,} chars" for n in (md_sizes[:2] if quick else md_sizes[1:3]))
    doubling = seconds[large] / seconds[small]
    status = "PASS" if doubling <= TARGET_DOUBLING else "MISS"
    rows = [
        _row(f"time ratio {large} / {small}", doubling, "x", f"≤ {TARGET_DOUBLING:g}x", status),
        *(_row(f"ingest {case}", value, "s") for case, value in seconds.items()),
    ]
    return {
        "benchmark": NAME,
        "description": "ingest one file holding a single huge paragraph",
        "params": {"runs_per_case": runs, "prose": PROSE, "store": "SQLite :memory:"},
        "target": {"metric": "doubling ratio", "max": TARGET_DOUBLING, "status": status},
        "seconds": {case: round(value, 4) for case, value in seconds.items()},
        "doubling": round(doubling, 3),
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


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.run_all import standalone

    sys.exit(standalone(run, description=__doc__))
