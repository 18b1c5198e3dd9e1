"""The newest upload of a document wins on the embedded in-process queue too: two jobs of one
document claimed by two worker threads at once, in whichever order they get the workspace's
write lock, leave the newer content; the older job is ``done`` (written, then replaced) or
``superseded`` (its file left alone), never the winner."""

from __future__ import annotations

from pathlib import Path

from ragspine.service.http.uploads import new_batch_name, store_upload
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobState
from ragspine.workspace import Workspace
from tests.service.test_jobs import wait_until


def test_the_newer_of_two_uploads_of_one_document_wins_whichever_thread_writes_first(
    tmp_path: Path,
) -> None:
    seen: set[JobState] = set()
    for round_ in range(3):
        workspace = Workspace.create(tmp_path / f"ws{round_}")
        queue = InProcessJobQueue(workspace, workers=2, poll_seconds=0.05)
        try:
            with workspace.write_lock():  # both threads claim a job, then wait for the lock
                older = queue.submit(
                    [store_upload(workspace, new_batch_name(), "memo.md", b"# M\n\nOlder draft.\n")]
                )
                newer = queue.submit(
                    [store_upload(workspace, new_batch_name(), "memo.md", b"# M\n\nNewer text.\n")]
                )
                wait_until(queue, older, JobState.RUNNING)
                wait_until(queue, newer, JobState.RUNNING)
            old = wait_until(queue, older, JobState.DONE, JobState.SUPERSEDED)
            new = wait_until(queue, newer, JobState.DONE, JobState.SUPERSEDED)
        finally:
            queue.close()
        assert new.state is JobState.DONE, new
        with workspace.fact_store(read_only=True) as store:
            text = " ".join(c.text for c in store.list_chunks("uploads/memo.md"))
        assert "Newer text" in text and "Older draft" not in text, round_
        if old.state is JobState.SUPERSEDED:
            assert [r.outcome for r in old.results] == ["superseded"]
        seen.add(old.state)
    print(f"older job's states over the rounds: {sorted(s.value for s in seen)}")
