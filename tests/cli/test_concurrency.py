"""Readers and writers of one workspace, as separate `ragspine` processes.

Questions only read: they never take the search index's writer lock nor touch the index or the
database, so any number run beside an ingest; an index that is missing or behind the store is
replaced by an in-memory one for that process. Writers (ingest, review, documents remove) take
the workspace's write lock, so two ingests run one after the other. Every process here is a
real `python -m ragspine.cli` over a real workspace built in tmp_path.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pptx
import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.demo.corpus import generate_corpus
from ragspine.demo.tour import build_demo_workspace
from ragspine.retrieval.retriever import INDEX_DIR
from ragspine.storage.sqlite_store import BUSY_SECONDS
from ragspine.workspace import DB_NAME, Workspace

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    "COLUMNS": "200",
}
runner = CliRunner()

REVENUE = "香港FY2025的REVENUE是多少"
REVENUE_ANSWER = "3,105 百万美元"
WHY = "为什么香港收入增长"
WHY_SOURCE = ("decks/ACME_FY2025_Review.pptx", "slide=3,")
ASKERS = 16


def ragspine(*args: str, nice: int = 0) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "ragspine.cli", *args]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    return subprocess.Popen(
        command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def ask(ws: Path, question: str, *, nice: int = 0) -> tuple[int, dict[str, object], str]:
    process = ragspine("ask", question, "--workspace", str(ws), "--json", nice=nice)
    out, err = process.communicate(timeout=110)
    answer: dict[str, object] = json.loads(out) if process.returncode == 0 else {}
    return process.returncode, answer, err


def correct(question: str, answer: dict[str, object]) -> bool:
    """The structured answer states the fact; the narrative one cites the explaining slide."""
    if question == REVENUE:
        return REVENUE_ANSWER in str(answer["answer"])
    sources = answer["sources"]
    assert isinstance(sources, list)
    doc, locator = WHY_SOURCE
    return any(s["doc"] == doc and s["locator"].startswith(locator) for s in sources)


def files_of(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time in nanoseconds."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workspace, report = build_demo_workspace(tmp_path_factory.mktemp("demo") / "ws")
    assert not report.failures
    return workspace.root


@pytest.fixture
def ws(demo: Path, tmp_path: Path) -> Path:
    """A fresh copy of the ingested demo workspace, corpus and index included."""
    return Path(shutil.copytree(demo, tmp_path / "ws"))


def test_an_ask_writes_neither_the_index_nor_the_database(ws: Path) -> None:
    index, database = files_of(ws / INDEX_DIR), (ws / DB_NAME).read_bytes()

    for question in (REVENUE, WHY):
        code, answer, err = ask(ws, question)
        assert code == 0, err
        assert correct(question, answer)
        assert "note:" not in err  # the index the ingest left is current

    assert files_of(ws / INDEX_DIR) == index
    assert (ws / DB_NAME).read_bytes() == database


def test_an_ask_without_an_index_answers_from_memory_and_creates_none(ws: Path) -> None:
    shutil.rmtree(ws / INDEX_DIR)  # as a workspace ingested by an older ragspine

    code, answer, err = ask(ws, WHY)

    assert code == 0, err
    assert correct(WHY, answer)
    assert err.count("note:") == 1 and "ragspine ingest" in err
    assert not (ws / INDEX_DIR).exists()


def test_an_ask_on_an_empty_database_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / DB_NAME).touch()

    result = runner.invoke(app, ["ask", REVENUE, "--workspace", str(ws)])

    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "is not a RAGSpine workspace" in result.stderr
    assert (ws / DB_NAME).stat().st_size == 0


def test_two_concurrent_ingests_run_one_after_the_other(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    ws = tmp_path / "ws"
    runs = [ragspine("ingest", str(corpus), "--workspace", str(ws)) for _ in range(2)]
    outputs = [run.communicate(timeout=110) for run in runs]

    assert [run.returncode for run in runs] == [0, 0], outputs
    files = {_summary_count(out, "files") for out, _ in outputs}
    ingested = sorted(_summary_count(out, "ingested") for out, _ in outputs)
    # One of them did the work; the other waited for it and found every file unchanged.
    assert len(files) == 1 and ingested == [0, *files]
    assert any("waiting: another command is writing" in err for _, err in outputs)


def _summary_count(output: str, column: str) -> int:
    lines = output.splitlines()
    header = next(i for i, line in enumerate(lines) if column in line and "files" in line)
    names = [cell.strip() for cell in lines[header].split("┃")[1:-1]]
    values = next(
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in lines[header + 1 :]
        if "│" in line
    )
    return int(values[names.index(column)])


def rewrite_corpus_files(corpus: Path) -> int:
    """Change the bytes, not the content, of the deck both questions are answered from and of
    the Markdown memos, so a re-ingest really rewrites those documents; returns how many."""
    deck_path = corpus / WHY_SOURCE[0]
    deck = pptx.Presentation(str(deck_path))
    deck.core_properties.revision = deck.core_properties.revision + 1
    deck.save(str(deck_path))
    memos = sorted((corpus / "memos").glob("*.md"))
    for memo in memos:
        memo.write_text(memo.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return 1 + len(memos)


def test_sixteen_asks_loop_through_a_reingest_without_a_failure(ws: Path) -> None:
    changed = rewrite_corpus_files(ws / "corpus")
    started = time.monotonic()
    ingest = ragspine("ingest", str(ws / "corpus"), "--workspace", str(ws))

    def loop(worker: int) -> list[tuple[str, int, bool, str]]:
        # The asks run niced so the ingest keeps a core and ends within the test's budget.
        done: list[tuple[str, int, bool, str]] = []
        while not done or ingest.poll() is None:
            question = (REVENUE, WHY)[(worker + len(done)) % 2]
            code, answer, err = ask(ws, question, nice=10)
            done.append((question, code, code == 0 and correct(question, answer), err))
        return done

    with ThreadPoolExecutor(ASKERS) as pool:
        results = [r for rs in pool.map(loop, range(ASKERS)) for r in rs]
    out, err = ingest.communicate(timeout=10)

    assert ingest.returncode == 0, out + err
    assert _summary_count(out, "ingested") == changed
    failures = [(q, code, e) for q, code, ok, e in results if not ok]
    assert not failures, failures[:3]
    assert len(results) >= ASKERS
    assert time.monotonic() - started < 120


def test_creating_a_workspace_another_command_is_writing_waits_for_it(tmp_path: Path) -> None:
    """A write transaction longer than SQLite's busy timeout (an ingest's) held by another
    writer: creating the workspace again waits for the write lock instead of failing with
    "database is locked"."""
    ws = Workspace.create(tmp_path / "ws")
    held, waited = threading.Event(), threading.Event()

    def long_writer() -> None:
        with ws.write_lock(), sqlite3.connect(ws.db_path, isolation_level=None) as conn:
            conn.execute("BEGIN IMMEDIATE")
            held.set()
            waited.wait(timeout=BUSY_SECONDS + 30)
            time.sleep(BUSY_SECONDS + 1)  # past the busy timeout
            conn.execute("COMMIT")

    writer = threading.Thread(target=long_writer)
    writer.start()
    assert held.wait(timeout=30)
    again = Workspace.create(ws.root, on_wait=waited.set)
    writer.join()
    assert waited.is_set() and again.db_path == ws.db_path
