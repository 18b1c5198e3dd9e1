"""Ingestion jobs over a real workspace: uploads stored inside it, jobs run on the queue's
worker thread until done, a bad file failing alone, and jobs surviving a close or a crash."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.agent.types import AnswerKind
from ragspine.demo.corpus import generate_corpus
from ragspine.errors import UsageError
from ragspine.facade import RAGSpine
from ragspine.service.http.uploads import UploadLimits, new_batch_name, store_upload
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobFile, JobState, JobStatus
from ragspine.storage.facts import utc_timestamp
from ragspine.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
WORKBOOK = "workbooks/ACME_5Y_Financials.xlsx"
MEMO = "memos/CN_Regulation_Update.md"
STRATEGY = "memos/Strategy_2026.md"
# Answered from the workbook only.
QUESTION = "集团FY2021的REVENUE是多少"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace.create(tmp_path / "ws")


@pytest.fixture
def queue(workspace: Workspace) -> Iterator[InProcessJobQueue]:
    jobs = InProcessJobQueue(workspace, poll_seconds=0.05)
    yield jobs
    jobs.close()


def upload(workspace: Workspace, corpus: Path, *names: str) -> list[JobFile]:
    batch = new_batch_name()
    return [
        store_upload(workspace, batch, Path(name).name, (corpus / name).read_bytes())
        for name in names
    ]


def wait_until(
    queue: InProcessJobQueue, job_id: str, *states: JobState, timeout: float = 30
) -> JobStatus:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = queue.status(job_id)
        assert status is not None
        if status.state in states:
            return status
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} still {status.state} after {timeout} s")


def ask(workspace: Workspace, question: str) -> tuple[AnswerKind, list[str]]:
    with RAGSpine.open(workspace.root, read_only=True) as rag:
        result = rag.ask(question)
    return result.answer_kind, [s.doc for s in result.sources]


# --------------------------------------------------------------------------- running jobs


def test_a_job_runs_off_the_callers_thread_and_its_files_answer(
    workspace: Workspace, corpus: Path
) -> None:
    finished: list[tuple[JobStatus, str]] = []
    queue = InProcessJobQueue(
        workspace,
        poll_seconds=0.05,
        on_finished=lambda s: finished.append((s, threading.current_thread().name)),
    )
    try:
        assert ask(workspace, QUESTION)[0] is AnswerKind.NOT_FOUND
        job_id = queue.submit(upload(workspace, corpus, WORKBOOK, MEMO))

        status = wait_until(queue, job_id, JobState.DONE, JobState.FAILED)
    finally:
        queue.close()

    assert status.state is JobState.DONE and status.error == ""
    assert (status.files_total, status.files_done, status.progress) == (2, 2, 1.0)
    assert [(r.name, r.outcome, r.error) for r in status.results] == [
        ("ACME_5Y_Financials.xlsx", "ingested", ""),
        ("CN_Regulation_Update.md", "ingested", ""),
    ]
    assert status.results[0].facts > 0 and status.results[1].chunks > 0
    assert ask(workspace, QUESTION) == (AnswerKind.FOUND, ["uploads/ACME_5Y_Financials.xlsx"])
    [(reported, thread)] = finished
    assert reported == status
    assert thread != threading.current_thread().name and thread.startswith("ragspine-jobs")


def test_a_corrupt_file_fails_alone_with_its_reason(
    workspace: Workspace, corpus: Path, queue: InProcessJobQueue
) -> None:
    files = upload(workspace, corpus, WORKBOOK)
    files.append(store_upload(workspace, new_batch_name(), "broken.pdf", b"%PDF-1.7 not really"))

    status = wait_until(queue, queue.submit(files), JobState.DONE, JobState.FAILED)

    assert status.state is JobState.DONE
    good, bad = status.results
    assert (good.outcome, good.error) == ("ingested", "")
    assert bad.name == "broken.pdf" and bad.outcome == "failed"
    assert "broken.pdf" in bad.error
    assert str(workspace.uploads_path) not in bad.error  # a result never shows server paths
    assert ask(workspace, QUESTION)[0] is AnswerKind.FOUND


def test_a_job_that_cannot_run_is_failed_with_the_reason(
    workspace: Workspace, corpus: Path, queue: InProcessJobQueue
) -> None:
    workspace.profile_path.write_text("[company\nbroken", encoding="utf-8")

    status = wait_until(
        queue, queue.submit(upload(workspace, corpus, MEMO)), JobState.DONE, JobState.FAILED
    )

    assert status.state is JobState.FAILED
    assert "profile.toml" in status.error
    assert status.files_done == 0


def test_submit_refuses_files_that_are_not_uploads_of_this_workspace(
    workspace: Workspace, corpus: Path, queue: InProcessJobQueue
) -> None:
    with pytest.raises(UsageError, match="not an upload"):
        queue.submit([JobFile("memo.md", corpus / MEMO)])
    with pytest.raises(UsageError, match="at least one file"):
        queue.submit([])
    assert queue.status("no-such-job") is None


def test_ready_while_the_worker_runs(workspace: Workspace) -> None:
    queue = InProcessJobQueue(workspace, workers=2, poll_seconds=0.05)
    assert queue.readiness() == "ok"

    queue.close()

    assert queue.readiness() == "not running"


# --------------------------------------------------------------------------- restarts


def raw_job(workspace: Workspace, job_id: str) -> tuple[str, int]:
    """The job's state and finished files, read from ``service.db`` as another process would."""
    with sqlite3.connect(workspace.service_db_path) as conn:
        (state,) = conn.execute("SELECT state FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        (done,) = conn.execute(
            "SELECT count(*) FROM job_files WHERE job_id = ? AND outcome <> ''", (job_id,)
        ).fetchone()
    return state, done


def test_close_finishes_the_current_file_and_the_next_queue_resumes_the_job(
    workspace: Workspace, corpus: Path
) -> None:
    queue = InProcessJobQueue(workspace, poll_seconds=0.05)
    files = upload(workspace, corpus, WORKBOOK, MEMO, STRATEGY)
    with workspace.write_lock():  # the worker claims the job, then waits for the lock
        job_id = queue.submit(files)
        wait_until(queue, job_id, JobState.RUNNING)
        closing = threading.Thread(target=queue.close)
        closing.start()
        deadline = time.monotonic() + 30
        while queue.readiness() == "ok":
            assert time.monotonic() < deadline, "close() did not stop the queue"
            time.sleep(0.01)
    closing.join(timeout=30)

    assert not closing.is_alive()
    assert raw_job(workspace, job_id) == ("queued", 1)
    assert ask(workspace, QUESTION)[0] is AnswerKind.FOUND  # what was ingested is searchable

    again = InProcessJobQueue(workspace, poll_seconds=0.05)
    try:
        status = wait_until(again, job_id, JobState.DONE, JobState.FAILED)
    finally:
        again.close()
    assert (status.state, status.files_done) == (JobState.DONE, 3)
    # The first file was not read twice: its result is the one recorded before the close.
    assert [r.outcome for r in status.results] == ["ingested", "ingested", "ingested"]


CRASHING_QUEUE = """
import sys, time
from pathlib import Path
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobFile
from ragspine.workspace import Workspace

queue = InProcessJobQueue(Workspace.open(sys.argv[1]), poll_seconds=0.05)
job_id = queue.submit([JobFile(Path(p).name, Path(p)) for p in sys.argv[2:]])
while queue.status(job_id).state.value != "running":
    time.sleep(0.02)
print(job_id, flush=True)
time.sleep(60)
"""


def test_a_job_left_running_by_a_killed_process_runs_again(
    workspace: Workspace, corpus: Path
) -> None:
    files = upload(workspace, corpus, WORKBOOK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    with workspace.write_lock():  # the other process's worker claims the job and waits here
        process = subprocess.Popen(
            [sys.executable, "-c", CRASHING_QUEUE, str(workspace.root)]
            + [str(f.path) for f in files],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        job_id = process.stdout.readline().strip()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    assert raw_job(workspace, job_id) == ("running", 0)

    queue = InProcessJobQueue(workspace, poll_seconds=0.05)
    try:
        status = wait_until(queue, job_id, JobState.DONE, JobState.FAILED)
    finally:
        queue.close()

    assert (status.state, status.files_done) == (JobState.DONE, 1)
    assert ask(workspace, QUESTION)[0] is AnswerKind.FOUND


def test_a_running_job_of_a_live_queue_is_not_taken_over(
    workspace: Workspace, corpus: Path
) -> None:
    first = InProcessJobQueue(workspace, poll_seconds=0.05)
    with workspace.write_lock():
        job_id = first.submit(upload(workspace, corpus, MEMO))
        wait_until(first, job_id, JobState.RUNNING)
        owner = job_owner(workspace, job_id)
        second = InProcessJobQueue(workspace, poll_seconds=0.05)
        # The second queue checked the running jobs' owners before its constructor returned.
        assert (raw_job(workspace, job_id), job_owner(workspace, job_id)) == (("running", 0), owner)
        # A job left running by an ended process, planted after the second queue started:
        # only an idle round of its worker (the first queue's waits for the lock) can queue
        # it again, and that round checks the live queue's job in the same pass.
        plant_orphan(workspace, ORPHAN)
        deadline = time.monotonic() + 30
        while job_owner(workspace, ORPHAN) == DEAD_OWNER:
            assert time.monotonic() < deadline, "the second queue ran no idle round"
            time.sleep(0.02)
        assert raw_job(workspace, job_id) == ("running", 0)
        assert job_owner(workspace, job_id) == owner
    wait_until(first, job_id, JobState.DONE)
    second.close()
    first.close()


def test_uploads_no_job_names_are_removed_before_the_service_starts(
    workspace: Workspace, corpus: Path
) -> None:
    queued = upload(workspace, corpus, MEMO)
    first = InProcessJobQueue(workspace, poll_seconds=0.05)
    job_id = first.submit(queued)
    wait_until(first, job_id, JobState.DONE)
    first.close()
    # A process killed after storing a request's files and before queueing their job.
    stray = upload(workspace, corpus, WORKBOOK)
    partial = stray[0].path.parent / ".part-0123"
    partial.write_bytes(b"half a file")

    second = InProcessJobQueue(workspace, poll_seconds=0.05)
    assert stray[0].path.exists()  # a queue alone leaves them: its caller may submit them yet
    second.remove_unqueued_uploads()
    second.close()

    assert [f.path.exists() for f in queued] == [True]
    assert not stray[0].path.exists() and not partial.exists()
    assert not stray[0].path.parent.exists()


def test_uploads_are_left_alone_while_another_queue_runs(
    workspace: Workspace, corpus: Path
) -> None:
    other = InProcessJobQueue(workspace, poll_seconds=0.05)
    try:
        pending = upload(workspace, corpus, WORKBOOK)  # the other process has yet to queue it
        second = InProcessJobQueue(workspace, poll_seconds=0.05)
        second.remove_unqueued_uploads()
        second.close()
        assert pending[0].path.exists()
    finally:
        other.close()


ORPHAN = "planted-orphan"
# An owner name whose lock file does not exist: a queue whose process has ended.
DEAD_OWNER = "0" * 32


def plant_orphan(workspace: Workspace, job_id: str) -> None:
    """A job of no files left running by ``DEAD_OWNER``, written as another process would."""
    now = utc_timestamp()
    with sqlite3.connect(workspace.service_db_path) as conn:
        conn.execute(
            "INSERT INTO jobs (job_id, state, owner, created_at, updated_at) "
            "VALUES (?, 'running', ?, ?, ?)",
            (job_id, DEAD_OWNER, now, now),
        )


def job_owner(workspace: Workspace, job_id: str) -> str:
    with sqlite3.connect(workspace.service_db_path) as conn:
        (owner,) = conn.execute("SELECT owner FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
    return str(owner)


# --------------------------------------------------------------------------- uploads


def files_under(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


HOSTILE_NAMES = [
    "../../etc/passwd",
    "../../evil.md",
    "..\\..\\evil.md",
    "/abs/x.pdf",
    "C:\\Users\\me\\report.md",
    "..",
    ".",
    "",
    "   ",
    ".hidden.md",
    "a\x00b.md",
    "nul.md\x00.pdf",
    "a/b/../../c.md",
    "x.md.meta.json",
    "line\nbreak.md",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_no_upload_name_writes_outside_its_batch_folder(tmp_path: Path, name: str) -> None:
    workspace = Workspace.create(tmp_path / "ws")
    before = files_under(tmp_path)
    batch = new_batch_name()

    try:
        stored = store_upload(workspace, batch, name, b"# memo\n\nrevenue grew.\n")
    except UsageError:
        stored = None

    new = set(files_under(tmp_path)) - set(before)
    assert files_under(tmp_path).items() >= before.items()
    if stored is None:
        assert new == set()
    else:
        assert new == {stored.path}
        assert stored.path.parent == workspace.uploads_path / batch
        assert not stored.path.name.startswith(".")
        assert "\x00" not in stored.name and "/" not in stored.name and "\\" not in stored.name
    assert not (tmp_path / "etc").exists() and not (tmp_path / "evil.md").exists()


def test_kept_names_are_the_clean_base_name_and_collisions_are_numbered(
    workspace: Workspace,
) -> None:
    batch = new_batch_name()

    first = store_upload(workspace, batch, "q3/香港 报告.md", b"one")
    second = store_upload(workspace, batch, "香港 报告.md", io.BytesIO(b"two"))
    windows = store_upload(workspace, batch, "docs\\deck?.pptx", b"three")

    assert (first.name, first.path.read_bytes()) == ("香港 报告.md", b"one")
    assert (second.path.name, second.path.read_bytes()) == ("香港 报告-2.md", b"two")
    assert windows.path.name == "deck_.pptx"


@pytest.mark.parametrize(
    "name", ["../x.md", "q3/../x.md", "/etc/x.md", "\\x.md", "C:\\x.md", "%2e%2e%2fx.md", "x%00.md"]
)
def test_a_name_with_a_path_is_refused_not_cut_to_its_base(workspace: Workspace, name: str) -> None:
    with pytest.raises(UsageError, match="holds a path"):
        store_upload(workspace, new_batch_name(), name, b"# x\n")
    assert list(workspace.uploads_path.rglob("*.md")) == []


def test_unsupported_types_and_bad_batch_names_are_refused(workspace: Workspace) -> None:
    with pytest.raises(UsageError, match="not a supported type"):
        store_upload(workspace, new_batch_name(), "tool.exe", b"MZ")
    with pytest.raises(UsageError, match="folder name"):
        store_upload(workspace, "../up", "memo.md", b"x")
    assert not (workspace.root / "up").exists()


@pytest.mark.parametrize("as_stream", [False, True])
def test_an_oversized_upload_is_refused_and_leaves_nothing(
    workspace: Workspace, as_stream: bool
) -> None:
    limits = UploadLimits(max_file_bytes=4096)
    batch = new_batch_name()
    body = b"x" * 4097

    with pytest.raises(UsageError, match=r"big\.md is larger than the upload limit of 4096 bytes"):
        store_upload(
            workspace, batch, "big.md", io.BytesIO(body) if as_stream else body, limits=limits
        )
    fitting = store_upload(workspace, batch, "fits.md", io.BytesIO(body[:4096]), limits=limits)

    assert [p.name for p in (workspace.uploads_path / batch).iterdir()] == [fitting.path.name]
