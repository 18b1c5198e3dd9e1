"""One huge paragraph ingests: every per-text step is one pass, so a megabyte is seconds.

The scaling figure (2x text → ~2x time) is measured in ``bench/bench_long_text.py``; here only
that the file ingests at all, within a budget far above what a linear pass needs.
"""

from __future__ import annotations

import time
from pathlib import Path

from ragspine.ingestion.pipeline import Outcome, discover, ingest
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.profiles import acme

# Before the fix a 120k-character paragraph took 20 s; a megabyte never finished.
BUDGET_S = 60.0
SENTENCE = "香港分部FY2024收入为1,234百万港元，较上年增长5.2%。Other revenue in Macau rose. "


def test_a_one_megabyte_paragraph_ingests(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    paragraph = (SENTENCE * (1_000_000 // len(SENTENCE) + 1))[:1_000_000]
    (corpus / "long.md").write_text(f"# 收入 revenue{' ' * 50_000}x\n\n{paragraph}\n", "utf-8")
    with SQLiteWorkspaceStore(tmp_path / "ws.db") as store:
        store.init_schema()
        start = time.perf_counter()
        report = ingest((), store, acme(), files=discover([corpus]))
        elapsed = time.perf_counter() - start
    assert [r.outcome for r in report.results] == [Outcome.INGESTED]
    assert report.blocks == 2  # the heading and the paragraph
    assert elapsed < BUDGET_S
