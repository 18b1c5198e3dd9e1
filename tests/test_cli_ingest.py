"""`ragspine ingest`, `ragspine review …` and `ragspine demo` from the outside: what they print,
what they write (or do not write) and the exit codes scripts rely on.

Most tests use typer's CliRunner; the ones marked "subprocess" run the installed console script,
as `make demo` and a shell user do.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ragspine.cli import app
from ragspine.demo.corpus import GroundTruth, generate_corpus
from ragspine.profile.loader import example_profile_path
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.test_cli import ragspine_command

# Wide enough that Rich never wraps a table row or a locator.
runner = CliRunner(env={"COLUMNS": "250"})
ENV = {**os.environ, "COLUMNS": "250", "PYTHONIOENCODING": "utf-8"}

SUMMARY_COLUMNS = [
    "files",
    "ingested",
    "skipped",
    "metadata",
    "failed",
    "facts",
    "blocks",
    "review items",
]
DEMO_REVIEW_REASONS = Counter(
    {
        "conflict": 1,
        "unmapped_label": 2,
        "ambiguous_entity": 1,
        "low_confidence": 1,
        "unit_mismatch": 1,
        "needs_ocr": 1,
    }
)
MEMO = "memos/CN_Regulation_Update.md"


@pytest.fixture(scope="module")
def corpus_and_truth(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    root = tmp_path_factory.mktemp("corpus")
    return root, generate_corpus(root)


@pytest.fixture
def corpus(corpus_and_truth: tuple[Path, GroundTruth], tmp_path: Path) -> Path:
    """A private copy of the demo corpus, free to change."""
    return Path(shutil.copytree(corpus_and_truth[0], tmp_path / "corpus"))


@pytest.fixture
def truth(corpus_and_truth: tuple[Path, GroundTruth]) -> GroundTruth:
    return corpus_and_truth[1]


@pytest.fixture
def workspace(corpus: Path, tmp_path: Path) -> Path:
    """A workspace holding the ingested demo corpus."""
    ws = tmp_path / "ws"
    result = invoke("ingest", str(corpus), "--workspace", str(ws))
    assert result.exit_code == 0, result.output
    return ws


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def table_rows(output: str) -> list[list[str]]:
    """The body rows of the Rich tables in ``output``, as lists of stripped cell texts."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in output.splitlines()
        if line.startswith("│")
    ]


def summary(output: str) -> dict[str, int]:
    """The ingestion summary table's one row, by column name."""
    header = next(line for line in output.splitlines() if "┃ files" in line)
    names = [cell.strip() for cell in header.split("┃")[1:-1]]
    assert names == SUMMARY_COLUMNS
    row = next(r for r in table_rows(output) if len(r) == len(names) and r[0].isdigit())
    return dict(zip(names, map(int, row), strict=True))


def dump(ws: Path) -> list[str]:
    """Every row of the workspace database, as SQL: equal dumps mean nothing was written."""
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        return list(conn.iterdump())


def manifest(ws: Path) -> list[tuple[str, str, int]]:
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        rows = conn.execute("SELECT doc_id, ingested_at, n_facts FROM documents ORDER BY doc_id")
        return [(str(d), str(at), int(n)) for d, at, n in rows]


def fact_count(ws: Path) -> int:
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM fact_metric").fetchone()[0])


def review_items(ws: Path) -> list[ReviewItem]:
    with SQLiteWorkspaceStore(ws / "ragspine.db") as store:
        return store.list_review()


def item_with(ws: Path, reason: str) -> ReviewItem:
    return next(item for item in review_items(ws) if item.reason == reason)


def expected_summary(truth: GroundTruth, *, blocks: int) -> dict[str, int]:
    n = len(truth.documents)
    counts = [n, n, 0, 0, 0, len(truth.facts), blocks, len(truth.review_items)]
    return dict(zip(SUMMARY_COLUMNS, counts, strict=True))


def blocks_in(ws: Path) -> int:
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM text_blocks").fetchone()[0])


# --------------------------------------------------------------------------- ingest


def test_ingest_prints_the_summary_and_exits_0(
    corpus: Path, truth: GroundTruth, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"

    result = invoke("ingest", str(corpus), "--workspace", str(ws))

    assert result.exit_code == 0, result.output
    assert "Ingestion" in result.stdout
    assert summary(result.stdout) == expected_summary(truth, blocks=blocks_in(ws))
    assert fact_count(ws) == len(truth.facts)


def test_a_second_run_skips_every_file_and_writes_nothing(workspace: Path, corpus: Path) -> None:
    before, documents, facts = dump(workspace), manifest(workspace), fact_count(workspace)

    result = invoke("ingest", str(corpus), "--workspace", str(workspace))

    assert result.exit_code == 0, result.output
    counts = summary(result.stdout)
    assert counts["skipped"] == counts["files"] == len(documents)
    assert counts["ingested"] == counts["facts"] == counts["review items"] == 0
    assert manifest(workspace) == documents  # same ingested_at, same fact counts
    assert fact_count(workspace) == facts
    assert dump(workspace) == before


def test_dry_run_on_a_fresh_path_creates_nothing_and_reports_a_real_run(
    corpus: Path, truth: GroundTruth, tmp_path: Path
) -> None:
    ws = tmp_path / "new" / "ws"

    dry = invoke("ingest", str(corpus), "--workspace", str(ws), "--dry-run")

    assert dry.exit_code == 0, dry.output
    assert "dry run: nothing written" in dry.stdout
    assert not (tmp_path / "new").exists()
    # What a dry run reports is what the real run then does, conflicts between files included.
    real = invoke("ingest", str(corpus), "--workspace", str(ws))
    assert (
        summary(dry.stdout) == summary(real.stdout) == expected_summary(truth, blocks=blocks_in(ws))
    )


def test_dry_run_on_a_workspace_writes_neither_rows_nor_the_profile(
    workspace: Path, corpus: Path
) -> None:
    memo = corpus / MEMO
    memo.write_text(memo.read_text("utf-8").replace("17.5 |", "18.5 |"), "utf-8")
    before = dump(workspace)

    result = invoke(
        "ingest",
        str(corpus),
        "--workspace",
        str(workspace),
        "--dry-run",
        "--profile",
        str(example_profile_path()),
    )

    assert result.exit_code == 0, result.output
    counts = summary(result.stdout)
    assert (counts["ingested"], counts["skipped"]) == (1, counts["files"] - 1)
    assert dump(workspace) == before
    assert not (workspace / "profile.toml").exists()


def test_a_bad_file_fails_alone_and_exits_1_subprocess(
    corpus: Path, truth: GroundTruth, tmp_path: Path
) -> None:
    empty = corpus / "decks" / "empty.pptx"
    empty.write_bytes(b"")
    ws = tmp_path / "ws"

    done = subprocess.run(
        [*ragspine_command(), "ingest", str(corpus), "--workspace", str(ws)],
        capture_output=True,
        encoding="utf-8",
        env=ENV,
        timeout=120,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    assert f"failed decks/empty.pptx: {empty}: empty file (0 bytes)" in done.stdout.splitlines()
    counts = summary(done.stdout)
    assert (counts["files"], counts["ingested"], counts["failed"]) == (
        len(truth.documents) + 1,
        len(truth.documents),
        1,
    )
    assert fact_count(ws) == len(truth.facts)


def test_a_missing_path_exits_2_and_creates_no_workspace(tmp_path: Path) -> None:
    missing, ws = tmp_path / "nowhere", tmp_path / "ws"

    result = invoke("ingest", str(missing), "--workspace", str(ws))

    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {missing}: no such file or folder"
    assert not ws.exists()


def test_a_malformed_profile_exits_2_naming_the_file(corpus: Path, tmp_path: Path) -> None:
    bad, ws = tmp_path / "broken.toml", tmp_path / "ws"
    bad.write_text("[company\nname = 'ACME'\n", encoding="utf-8")

    for extra in ([], ["--dry-run"]):
        result = invoke(
            "ingest", str(corpus), "--workspace", str(ws), "--profile", str(bad), *extra
        )

        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"error: {bad}: "), result.stderr
        assert not ws.exists()


# --------------------------------------------------------------------------- review


def test_review_list_shows_the_open_items(workspace: Path) -> None:
    result = invoke("review", "list", "--workspace", str(workspace))

    assert result.exit_code == 0, result.output
    rows = [r for r in table_rows(result.stdout) if len(r) == 6]
    items = review_items(workspace)
    assert Counter(i.reason for i in items) == DEMO_REVIEW_REASONS
    assert [r[:5] for r in rows] == [
        [str(i.item_id), "open", i.reason, i.doc_id, i.locator] for i in items
    ]
    low = next(r for r in rows if r[2] == "low_confidence")
    assert low[5] == "ACME_GROUP REVENUE 2025Q3 = 1300.0 USD_M"


def test_review_show_prints_the_item_with_its_proposed_fact(workspace: Path) -> None:
    item = item_with(workspace, "low_confidence")

    result = invoke("review", "show", str(item.item_id), "--workspace", str(workspace))

    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["item_id"], shown["reason"], shown["state"]) == (
        item.item_id,
        item.reason,
        "open",
    )
    assert shown["proposed"]["value"] == 1300.0
    assert shown["proposed"]["source_locator"] == item.locator


def test_review_show_of_an_unknown_item_exits_2(workspace: Path) -> None:
    result = invoke("review", "show", "999", "--workspace", str(workspace))

    assert result.exit_code == 2
    assert result.stderr.strip() == "error: no review item 999"


def _question_for(item: ReviewItem) -> str:
    proposed = item.proposed
    assert proposed is not None
    period_type, period = str(proposed["period_type"]), str(proposed["period"])
    label = f"FY{period}" if period_type == "FY" else f"{period}{period_type}"
    return f"What was {proposed['entity']} {proposed['metric_code']} in {label}?"


def test_approving_a_correction_makes_ask_answer_with_it(workspace: Path) -> None:
    item = item_with(workspace, "low_confidence")
    question = _question_for(item)
    ask = ("ask", question, "--workspace", str(workspace))
    assert invoke(*ask).stdout.startswith("Not found:")

    approved = invoke(
        "review", "approve", str(item.item_id), "--correct", "1299", "--workspace", str(workspace)
    )

    assert approved.exit_code == 0, approved.output
    assert approved.stdout.strip() == f"item {item.item_id}: approved"
    answer = invoke(*ask)
    assert answer.exit_code == 0, answer.output
    first = answer.stdout.splitlines()[0]
    assert ": US$ 1,299 m (source: " in first
    assert f"{item.doc_id} · {item.locator}" in first
    shown = invoke("review", "show", str(item.item_id), "--workspace", str(workspace)).stdout
    assert "approved: value 1299 USD_M (corrected from 1300.0)" in shown


def test_approving_twice_says_already_approved(workspace: Path) -> None:
    item_id = str(item_with(workspace, "low_confidence").item_id)
    approve = ("review", "approve", item_id, "--workspace", str(workspace))
    assert invoke(*approve).stdout.strip() == f"item {item_id}: approved"
    audit_before = dump(workspace)

    again = invoke(*approve)

    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == f"item {item_id}: approved (already approved)"
    assert dump(workspace) == audit_before


def test_an_item_without_a_fact_cannot_be_approved(workspace: Path) -> None:
    item_id = item_with(workspace, "unmapped_label").item_id

    result = invoke("review", "approve", str(item_id), "--workspace", str(workspace))

    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: review item {item_id} (unmapped_label) has no fact to approve"
    )
    assert f"ragspine review map {item_id} --metric CODE" in result.stderr
    assert next(i for i in review_items(workspace) if i.item_id == item_id).state == "open"


def test_reject_closes_the_item_and_is_idempotent(workspace: Path) -> None:
    item_id = str(item_with(workspace, "conflict").item_id)
    reject = ("review", "reject", item_id, "--note", "deck typo", "--workspace", str(workspace))

    first, second = invoke(*reject), invoke(*reject)

    assert (first.exit_code, second.exit_code) == (0, 0)
    assert first.stdout.strip() == f"item {item_id}: rejected"
    assert second.stdout.strip() == f"item {item_id}: rejected (already rejected)"
    states = {str(i.item_id): i.state for i in review_items(workspace)}
    assert states[item_id] == ReviewState.REJECTED
    listed = invoke("review", "list", "--state", "rejected", "--workspace", str(workspace))
    assert [r[0] for r in table_rows(listed.stdout) if len(r) == 6] == [item_id]
    approve = invoke("review", "approve", item_id, "--workspace", str(workspace))
    assert approve.exit_code == 2
    assert "was rejected" in approve.stderr


# --------------------------------------------------------------------------- demo


def test_demo_answers_from_the_generated_documents_and_skips_them_next_time(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws-demo"

    first = invoke("demo", "--workspace", str(ws))
    second = invoke("demo", "--workspace", str(ws))

    assert first.exit_code == 0, first.output
    assert "decks/ACME_FY2025_Review.pptx · slide=2,table=1,row=REVENUE,col=FY2025" in first.stdout
    assert "workbooks/ACME_5Y_Financials.xlsx · sheet=HK,cell=" in first.stdout
    assert summary(first.stdout)["ingested"] == summary(first.stdout)["files"] > 0
    assert second.exit_code == 0, second.output
    counts = summary(second.stdout)
    assert (counts["ingested"], counts["skipped"]) == (0, counts["files"])


def test_demo_runs_through_the_installed_entry_point_subprocess(tmp_path: Path) -> None:
    # What `make demo` runs: no options, the workspace lands in ./demo-workspace.
    done = subprocess.run(
        [*ragspine_command(), "demo"],
        cwd=tmp_path,
        capture_output=True,
        encoding="utf-8",
        env=ENV,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "slide=2,table=1,row=REVENUE,col=FY2025" in done.stdout
    assert (tmp_path / "demo-workspace" / "ragspine.db").is_file()
    assert (tmp_path / "demo-workspace" / "corpus" / "ground_truth.json").is_file()
