"""Crash trials at service scale (docs/reliability.md): `ragspine ingest` into a workspace,
`ragspine worker` on PostgreSQL + Redis and `ragspine serve` receiving uploads, each killed
with SIGKILL at random points (seeded; the seed is printed), then checked:

(a) every document is whole — its rows equal a clean run's rows for it — or absent;
(b) running again (the ingest again, a worker restarted, the server restarted) converges on
    the store of a clean run, compared row by row;
(c) every job acknowledged is eventually done, or failed with a reason, never lost;
(d) no lock held and no half-written file left behind, no child process outliving its parent.

The CI variant runs a few trials of each; ``make crash`` (``RAGSPINE_RELIABILITY=long``) at
least 50. The figures are printed and saved under ``test-artifacts/reliability/``.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import signal
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ragspine.demo.corpus import generate_corpus
from ragspine.ingestion.pipeline import METADATA_SUFFIX, SourceFile, ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.uploads import upload_doc_id
from ragspine.service.jobs.queue import JobFile, JobState, JobStatus
from ragspine.service.jobs.rq_jobs import RetryPolicy, RQJobQueue, queue_name_for
from ragspine.service.keys.store import KeyStore
from ragspine.workspace import DB_NAME, SERVICE_DB_NAME, UPLOADS_NAME, Workspace
from tests.cli.test_concurrency import rewrite_corpus_files
from tests.reliability.conftest import long_budget
from tests.reliability.store_rows import (
    DocumentRows,
    difference,
    document_rows,
    half_documents,
    held_locks,
    index_matches_store,
    partial_files,
    workspace_rows,
)
from tests.reliability.trials import (
    ARTIFACTS,
    ENV,
    Run,
    Spans,
    Tally,
    measure_spans,
    ragspine_command,
    reaches_kill_point,
    run_to_end,
    seeded_rng,
)
from tests.scaleout.processes import free_port
from tests.service.test_rq_jobs import _children, _lapse_heartbeats

pytestmark = pytest.mark.reliability

LONG = long_budget()
INGEST_TRIALS = 50 if LONG else 8


def trial_corpus(folder: Path) -> Path:
    """The demo corpus; in the CI variant without its two PDFs, whose scanned pages (OCR, 11 of
    the 13 s a clean ingest takes) would take the whole budget."""
    generate_corpus(folder)
    (folder / "ground_truth.json").unlink()
    if not LONG:
        for pdf in folder.rglob("*.pdf"):
            pdf.unlink()
    return folder


def _ingest(corpus: Path, ws: Path) -> list[str]:
    return ragspine_command("ingest", str(corpus), "--workspace", str(ws))


def test_an_ingest_killed_at_random_points_leaves_whole_documents_and_converges(
    tmp_path: Path,
) -> None:
    """Rounds alternate between a first ingest into an empty workspace and a re-ingest of
    rewritten files into a copy of the clean one; each round's ingest is killed at random
    points and run again until it ends, then compared with the clean run."""
    rng, seed = seeded_rng("embedded ingest")
    tally = Tally("embedded ingest", seed)
    first = trial_corpus(tmp_path / "corpus")
    second = Path(shutil.copytree(first, tmp_path / "corpus-2"))
    tally.count("documents", sum(1 for p in first.rglob("*") if p.suffix in _KINDS))
    tally.count("documents rewritten", rewrite_corpus_files(second))
    clean, updated = tmp_path / "clean", tmp_path / "updated"
    run = Run(_ingest(first, clean), tmp_path / "clean.log")
    spans = measure_spans(run, (clean / DB_NAME).exists)
    shutil.copytree(clean, updated)
    update_duration = run_to_end(_ingest(second, updated), tmp_path / "updated.log")
    reference, reference_2 = workspace_rows(clean), workspace_rows(updated)
    assert reference and reference != reference_2

    round_no, ws = 0, None
    while tally.trials < INGEST_TRIALS or ws is not None:
        if ws is None:
            round_no += 1
            ws = tmp_path / f"ws-{round_no}"
            if round_no % 2 == 0:
                shutil.copytree(clean, ws)
        # A first ingest's work begins once it made the store; a re-ingest's from the start.
        corpus, round_spans = (
            (second, Spans(update_duration, update_duration))
            if round_no % 2 == 0
            else (first, spans)
        )
        versions = (reference, reference_2) if round_no % 2 == 0 else (reference,)
        final = versions[-1]
        run = Run(_ingest(corpus, ws), tmp_path / f"ws-{round_no}.log")
        working = (ws / DB_NAME).exists
        if tally.trials >= INGEST_TRIALS or not reaches_kill_point(run, rng, round_spans, working):
            assert run.finished_within(300) and run.process.returncode == 0, run.tail()
            _check_converged(tally, ws, final)
            tally.runs_completed += 1
            ws = None
            continue
        tally.trials += 1
        alone = rng.random() < 0.5
        tally.kills_alone += alone
        if not run.kill(alone=alone):
            tally.anomaly(f"a child of the ingest outlived it ({run.log.name})")
        _check_killed(tally, ws, *versions)

    tally.report()
    assert not tally.anomalies, tally.anomalies


_KINDS = {".pptx", ".xlsx", ".docx", ".pdf", ".md", ".txt"}


def _check_converged(tally: Tally, ws: Path, reference: dict[str, DocumentRows]) -> None:
    found = workspace_rows(ws)
    before = len(tally.anomalies)
    if found != reference:
        differing = sorted(
            d for d in found.keys() | reference.keys() if found.get(d) != reference.get(d)
        )
        tally.anomaly(f"{ws.name} did not converge: {differing}")
    # Locks first: opening the index below makes this process a tantivy reader, whose
    # watcher takes `.tantivy-meta.lock` for a moment now and then.
    for name in partial_files(ws) + held_locks(ws):
        tally.anomaly(f"{ws.name}: {name} left behind")
    if not index_matches_store(ws):
        tally.anomaly(f"{ws.name}: the search index does not match the store")
    if len(tally.anomalies) > before:
        # Kept for a post-mortem: pytest's temporary folders are soon reused.
        kept = ARTIFACTS / f"{tally.scenario.replace(' ', '-')}-{tally.seed}-{ws.name}"
        shutil.copytree(ws, kept, dirs_exist_ok=True)
        shutil.copy(ws.parent / f"{ws.name}.log", kept.with_suffix(".log"))


# --- `ragspine worker` on PostgreSQL + Redis -------------------------------------------------

WORKER_TRIALS = 50 if LONG else 8
JOBS = 3
SENDER = "portal"
# Retried at once: the trials do not wait out a production backoff (10 s, 60 s, 300 s).
RETRY_AT_ONCE = RetryPolicy(retries=2, intervals=(0,), timeout=300)


@contextmanager
def fresh_schema(url: str, redis_cleanup: list[str]) -> Iterator[str]:
    """A schema of its own (upgraded; dropped afterwards) and so an RQ queue of its own."""
    import psycopg
    from psycopg import sql

    from ragspine.storage.postgres import PostgresDatabase, upgrade

    name = f"test_{uuid.uuid4().hex[:20]}"
    redis_cleanup.append(queue_name_for(name))
    db = PostgresDatabase(url, schema=name)
    try:
        upgrade(db)
    finally:
        db.close()
    try:
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def upload_jobs(corpus: Path) -> list[list[JobFile]]:
    """The corpus files as ``JOBS`` jobs of uploads, as the API would queue them."""
    files = [
        JobFile(p.name, p, upload_doc_id(SENDER, p.name))
        for p in sorted(corpus.rglob("*"))
        if p.suffix in _KINDS and not p.name.endswith(METADATA_SUFFIX)
    ]
    return [files[n::JOBS] for n in range(JOBS)]


def submit_all(url: str, redis_url: str, schema: str, jobs: list[list[JobFile]]) -> list[str]:
    queue = RQJobQueue(url, redis_url, schema=schema, retry=RETRY_AT_ONCE)
    try:
        return [queue.submit(files, submitter=SENDER) for files in jobs]
    finally:
        queue.close()


def job_states(url: str, redis_url: str, schema: str, ids: list[str]) -> list[JobStatus]:
    queue = RQJobQueue(url, redis_url, schema=schema)
    try:
        found = [queue.status(job_id) for job_id in ids]
    finally:
        queue.close()
    assert all(s is not None for s in found), "a job's row is gone"
    return [s for s in found if s is not None]


def schema_rows(url: str, schema: str) -> dict[str, DocumentRows]:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with PostgresWorkspaceStore(url, schema=schema, read_only=True) as store:
        return document_rows(store)


def _any_job_started(url: str, schema: str) -> bool:
    import psycopg

    with psycopg.connect(url) as conn:
        query = f"SELECT count(*) FROM {schema}.jobs WHERE state <> 'queued'"
        return bool(conn.execute(query).fetchone()[0])  # type: ignore[index]


def _worker(url: str, redis_url: str, schema: str) -> list[str]:
    target = ["--database-url", url, "--schema", schema, "--redis-url", redis_url]
    return ragspine_command("worker", "--burst", *target)


class CleanRuns:
    """Clean, sequential runs of the jobs' files in a given order, in schemas of their own.

    A document's rows depend on what was stored before it (the first value stated for a
    figure is approved, a different one stated later goes to review), and a job retried after
    its worker died runs after the jobs queued behind it. So a store is compared with a clean
    run of the documents in the order they were committed, one ingest per job's run of them.
    """

    def __init__(
        self, url: str, redis_cleanup: list[str], jobs: list[list[JobFile]], folder: Path
    ) -> None:
        self._url, self._cleanup = url, redis_cleanup
        # Each file alone in a folder, as a worker unpacks it: no sidecar beside it.
        self._files = {}
        for n, file in enumerate(f for job in jobs for f in job):
            (folder / str(n)).mkdir(parents=True)
            self._files[file.document] = Path(shutil.copy(file.path, folder / str(n)))
        self._job_of = {f.document: n for n, job in enumerate(jobs) for f in job}
        self._runs: dict[tuple[tuple[str, ...], ...], dict[str, DocumentRows]] = {}
        self.queued = tuple(tuple(f.document for f in job) for job in jobs)
        self.reordered = 0

    def half_documents(self, found: dict[str, DocumentRows], schema: str) -> list[str]:
        """The documents of ``found`` (read from ``schema``) that are not whole: equal to
        neither a clean run in the order the jobs were queued nor one in commit order."""
        half = half_documents(found, self.rows(self.queued))
        if half:
            self.reordered += 1
            half = half_documents(found, self.rows(self.order(schema)))
        return half

    def order(self, schema: str) -> tuple[tuple[str, ...], ...]:
        """The documents of ``schema`` in commit order, grouped by the job run storing them."""
        from ragspine.storage.postgres import PostgresWorkspaceStore

        with PostgresWorkspaceStore(self._url, schema=schema, read_only=True) as store:
            documents = sorted(store.list_documents(), key=lambda d: d.ingested_at)
        groups: list[list[str]] = []
        for document in documents:
            job = self._job_of[document.doc_id]
            if groups and self._job_of[groups[-1][-1]] == job:
                groups[-1].append(document.doc_id)
            else:
                groups.append([document.doc_id])
        return tuple(tuple(g) for g in groups)

    def rows(self, order: tuple[tuple[str, ...], ...]) -> dict[str, DocumentRows]:
        from ragspine.storage.postgres import PostgresWorkspaceStore

        if order not in self._runs:
            with (
                fresh_schema(self._url, self._cleanup) as schema,
                PostgresWorkspaceStore(self._url, schema=schema) as store,
            ):
                for group in order:
                    files = [SourceFile(d, self._files[d]) for d in group]
                    ingest([], store, load_profile(None), files=files)
                self._runs[order] = document_rows(store)
        return self._runs[order]


def test_a_worker_killed_at_random_points_loses_no_job_and_converges(
    postgres_url: str, redis_url: str, redis_queue_cleanup: list[str], tmp_path: Path
) -> None:
    """Rounds of three jobs over the corpus's files on a fresh schema; burst workers killed at
    random points — the whole process group (the machine dies) or only the job's process (the
    OOM killer) — and started again until every job is done, then compared with a clean run.
    A job killed past its retries is failed with its reason and sent again, as a client does."""
    rng, seed = seeded_rng("rq worker")
    tally = Tally("rq worker", seed)
    jobs = upload_jobs(trial_corpus(tmp_path / "corpus"))
    tally.count("documents", sum(len(j) for j in jobs))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**ENV, "TMPDIR": str(scratch)}
    clean = CleanRuns(postgres_url, redis_queue_cleanup, jobs, tmp_path / "unpacked")
    with fresh_schema(postgres_url, redis_queue_cleanup) as schema:
        submit_all(postgres_url, redis_url, schema, jobs)
        run = Run(_worker(postgres_url, redis_url, schema), tmp_path / "clean.log", env=env)
        spans = measure_spans(run, lambda: _any_job_started(postgres_url, schema))
        assert schema_rows(postgres_url, schema) == clean.rows(clean.queued)

    rounds = 0
    while tally.trials < WORKER_TRIALS:
        rounds += 1
        with fresh_schema(postgres_url, redis_queue_cleanup) as schema:
            ids = submit_all(postgres_url, redis_url, schema, jobs)
            round_ = WorkerRound(
                (postgres_url, redis_url, schema), dict(zip(ids, jobs, strict=True)), clean
            )
            _worker_round(tally, rng, spans, round_, tmp_path, env)
            found = schema_rows(postgres_url, schema)
            reference = clean.rows(clean.queued)
            if found != reference:
                reference = clean.rows(clean.order(schema))
        for doc_id in sorted(
            d for d in found.keys() | reference.keys() if found.get(d) != reference.get(d)
        ):
            why = difference(found.get(doc_id), reference.get(doc_id))
            tally.anomaly(f"round {rounds}: {doc_id} differs from a clean run: {why}")
        # onnxruntime (OCR) keeps a file of its own there, `.ses`: not one of a worker's.
        for path in [p for p in scratch.rglob("*") if p.is_file() and p.name != ".ses"]:
            # A worker's scratch files outlive it only until the next worker starts.
            tally.anomaly(f"round {rounds}: {path.relative_to(scratch)} left behind")
            path.unlink()
        tally.runs_completed += 1

    tally.count("checks that needed the commit order", clean.reordered)
    tally.report()
    assert not tally.anomalies, tally.anomalies


@dataclass(frozen=True)
class WorkerRound:
    deployment: tuple[str, str, str]
    jobs: dict[str, list[JobFile]]
    clean: CleanRuns


def _worker_round(
    tally: Tally,
    rng: random.Random,
    spans: Spans,
    round_: WorkerRound,
    tmp_path: Path,
    env: dict[str, str],
) -> None:
    """Kill workers until the trials are spent, then run them until every job is done."""
    url, redis_url, schema = round_.deployment
    ids = list(round_.jobs)
    idle = 0
    while True:
        run = Run(_worker(*round_.deployment), tmp_path / f"{schema}.log", env=env)
        started = functools.partial(_any_job_started, url, schema)
        if tally.trials >= WORKER_TRIALS or not reaches_kill_point(run, rng, spans, started):
            assert run.finished_within(300) and run.process.returncode == 0, run.tail()
            states = job_states(url, redis_url, schema, ids)
            failed = [s for s in states if s.state is JobState.FAILED]
            for status in failed:
                if not status.error:
                    tally.anomaly(f"job {status.job_id} failed without a reason")
                tally.count("jobs failed with a reason, sent again")
            if failed:
                submit_all(url, redis_url, schema, [round_.jobs[s.job_id] for s in failed])
            if all(s.state is JobState.DONE for s in states):
                return
            if not failed and _wait_for_a_retry(redis_url, queue_name_for(schema)):
                continue  # a retry's delay was still running: that worker had nothing yet
            idle = 0 if failed else idle + 1
            if idle >= 3:  # three workers in a row found nothing to run: the job is lost
                tally.anomaly(f"jobs lost in {schema}: {[s.state.value for s in states]}")
                return
            continue
        tally.trials += 1
        horses = _children(run.process.pid)
        alone = bool(horses) and rng.random() < 0.5
        if alone:
            tally.kills_alone += 1
            for pid in horses:
                os.kill(pid, signal.SIGKILL)
        elif not run.kill(alone=False):
            tally.anomaly("a process of the worker's group outlived the kill")
        found = schema_rows(url, schema)
        for doc_id in round_.clean.half_documents(found, schema):
            why = difference(found[doc_id], round_.clean.rows(round_.clean.queued).get(doc_id))
            tally.anomaly(f"{doc_id} is half written: {why}")
        if alone:
            if not run.finished_within(300) or run.process.returncode != 0:
                tally.anomaly(f"the worker did not survive its job process\n{run.tail()}")
                run.stop()
        else:
            _lapse_heartbeats(redis_url, queue_name_for(schema))


def _wait_for_a_retry(redis_url: str, queue_name: str) -> bool:
    """Wait out the delay of the retry RQ scheduled first (a job whose process died is tried
    again 10 s later); whether one was waiting. A retry already due is not waited for: the
    next worker's scheduler must queue it."""
    import redis
    from rq.registry import ScheduledJobRegistry

    with redis.Redis.from_url(redis_url) as client:
        registry = ScheduledJobRegistry(queue_name, connection=client)
        first = client.zrange(registry.key, 0, 0, withscores=True)
        if not first:
            return False
        delay = float(first[0][1]) - float(client.time()[0])
        if delay <= 0:
            return False
    time.sleep(delay + 0.5)
    return True


# --- `ragspine serve --workspace` receiving uploads ------------------------------------------

SERVE_TRIALS = 50 if LONG else 8
JOB_SECONDS = 240
FINAL = ("done", "failed")


class Uploader:
    """A client sending files one request each, as fast as the server takes them, that
    remembers which were acknowledged (202 and the job's id) and sends the rest again to the
    next server when the connection breaks (the server died)."""

    def __init__(self, token: str, files: list[Path]) -> None:
        self.base = ""
        self._auth = {"Authorization": f"Bearer {token}"}
        self.unsent = list(files)
        self.acknowledged: dict[str, Path] = {}
        self.states: dict[str, str] = {}
        self.refused: list[str] = []
        self._thread: threading.Thread | None = None

    def start(self, base: str) -> None:
        self.base = base
        self._thread = threading.Thread(target=self._send, daemon=True)
        self._thread.start()

    @property
    def sending(self) -> bool:
        return self._thread is not None

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=JOB_SECONDS)
            assert not self._thread.is_alive(), "an upload hung"
        self._thread = None

    def finished(self) -> bool:
        """Everything sent and every acknowledged job done or failed (read from the server)."""
        if self.unsent or self._thread is None or self._thread.is_alive():
            return False
        try:
            self.refresh()
        except httpx.HTTPError:
            return False
        return all(self.states[j] in FINAL for j in self.acknowledged)

    def refresh(self) -> None:
        """Read each acknowledged job's state that is not final yet ("lost" for a 404)."""
        for job_id in self.acknowledged:
            if self.states.get(job_id) in FINAL:
                continue
            response = httpx.get(f"{self.base}/v1/jobs/{job_id}", headers=self._auth, timeout=30)
            if response.status_code == 404:
                self.states[job_id] = "lost"
                continue
            response.raise_for_status()
            body = response.json()
            self.states[job_id] = body["state"]
            if body["state"] == "failed":
                self.refused.append(f"job {job_id} failed: {body['error'] or 'no reason'}")

    def _send(self) -> None:
        while self.unsent:
            path = self.unsent[0]
            try:
                response = httpx.post(
                    f"{self.base}/v1/ingest/jobs",
                    files=[("files", (path.name, path.read_bytes()))],
                    headers=self._auth,
                    timeout=60,
                )
            except httpx.HTTPError:
                return  # the server is gone: the file goes to the next one
            if response.status_code != 202:
                self.refused.append(f"{path.name}: {response.status_code} {response.text}")
                return
            self.acknowledged[response.json()["job_id"]] = self.unsent.pop(0)


def _serve(ws: Path, port: int) -> list[str]:
    return ragspine_command("serve", "--workspace", str(ws), "--port", str(port))


def _new_workspace(root: Path) -> str:
    """An empty workspace with a key; the key's token."""
    workspace = Workspace.create(root)
    with KeyStore(workspace) as keys:
        _, token = keys.create(SENDER, Sensitivity.INTERNAL)
    return token


def ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _sending(client: Uploader, base: str) -> bool:
    """Whether the client sends; it starts once the server is ready."""
    if not client.sending and ready(base):
        client.start(base)
    return client.sending


def _wait_for(condition: Callable[[], bool], run: Run, seconds: float = JOB_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert run.process.poll() is None, f"the server ended\n{run.tail()}"
        assert time.monotonic() < deadline, f"not within {seconds} s\n{run.tail()}"
        time.sleep(0.1)


def _serve_round(
    tally: Tally,
    rng: random.Random,
    trial: tuple[Spans, dict[str, DocumentRows]] | None,
    ws: Path,
    files: list[Path],
) -> Spans:
    """Servers started — and killed at random points, with ``spans`` and while trials
    remain — until every file is acknowledged and its job has ended; ``trial`` holds the
    spans of a clean run and its rows, ``None`` for the clean run. Returns the last server's
    spans (start-up, then the uploads and their jobs)."""
    client = Uploader(_new_workspace(ws), files)
    while True:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        run = Run(_serve(ws, port), ws.parent / f"{ws.name}.log")
        sending = functools.partial(_sending, client, base)
        try:
            if (
                trial is not None
                and tally.trials < SERVE_TRIALS
                and reaches_kill_point(run, rng, trial[0], sending, client.finished)
            ):
                tally.trials += 1
                alone = rng.random() < 0.5
                tally.kills_alone += alone
                if not run.kill(alone=alone):
                    tally.anomaly("a process of the server outlived it")
                client.join()
                _check_killed(tally, ws, trial[1])
                continue
            start = time.monotonic()
            _wait_for(sending, run)
            begun = time.monotonic()
            _wait_for(client.finished, run)
            last = Spans(begun - start, time.monotonic() - begun)
            break
        finally:
            run.stop()
    client.join()
    for job_id, state in client.states.items():
        if state != "done":
            tally.anomaly(f"{ws.name}: acknowledged job {job_id} is {state}")
    for refused in client.refused:
        tally.anomaly(f"{ws.name}: {refused}")
    tally.count("uploads acknowledged", len(client.acknowledged))
    return last


def _check_killed(tally: Tally, ws: Path, *versions: dict[str, DocumentRows]) -> None:
    found = workspace_rows(ws)
    tally.count("documents found after a kill", len(found))
    for doc_id in half_documents(found, *versions):
        tally.anomaly(f"{doc_id} is half written in {ws.name}")
    for lock in held_locks(ws):
        tally.anomaly(f"{lock} is still held in {ws.name}")


def _unqueued_uploads(ws: Path) -> list[str]:
    """Files kept under ``DIR/uploads`` that no job names: the bytes of a request that was
    never acknowledged, which nothing would ingest or remove."""
    with closing(sqlite3.connect(ws / SERVICE_DB_NAME)) as conn:
        named = {Path(p) for (p,) in conn.execute("SELECT path FROM job_files")}
    uploads = ws / UPLOADS_NAME
    return sorted(
        str(p.relative_to(uploads)) for p in uploads.rglob("*") if p.is_file() and p not in named
    )


def test_a_server_killed_while_taking_uploads_loses_no_acknowledged_one(tmp_path: Path) -> None:
    """A client sends the corpus's files one request each to `ragspine serve`, killed at
    random points (start-up, while it takes uploads, while its jobs ingest them) and started
    again; the client sends again what was not acknowledged. Every acknowledged job must end
    done and the workspace as a clean run's."""
    rng, seed = seeded_rng("embedded serve")
    tally = Tally("embedded serve", seed)
    files = [f.path for job in upload_jobs(trial_corpus(tmp_path / "corpus")) for f in job]
    # Without the scanned PDFs (the ingest's and the worker's trials read them) and, in the CI
    # variant, half of the rest: each round starts again from an empty workspace.
    files = [f for f in files if f.suffix != ".pdf"]
    files = files if LONG else files[::2]
    spans = _serve_round(tally, rng, None, tmp_path / "clean", files)
    reference = workspace_rows(tmp_path / "clean")
    assert len(reference) == len(files)
    tally.counts = {"documents": len(files)}

    rounds = 0
    while tally.trials < SERVE_TRIALS:
        rounds += 1
        ws = tmp_path / f"ws-{rounds}"
        _serve_round(tally, rng, (spans, reference), ws, files)
        tally.runs_completed += 1
        _check_converged(tally, ws, reference)
        for name in _unqueued_uploads(ws):
            tally.anomaly(f"{ws.name}: upload {name} kept without a job")

    tally.report()
    assert not tally.anomalies, tally.anomalies
