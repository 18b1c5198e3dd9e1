"""The child process the reader fuzzer sends mutants to, one JSON line each way.

``python -m tests.reliability.fuzz_worker CORPUS`` reads requests ``{"path", "document",
"beside"}`` on stdin and answers each with ``{"outcome", "problem"}`` on the stdout it started
with (libraries printing on stdout are sent to stderr). For a mutant it runs the real path,
``ingest`` into a SQLite workspace (safety checks, the reader, the mapping, the store) within
tight ``SafetyLimits``. ``problem`` is empty when the mutant ingested or failed with the
project's own error naming it; otherwise it says what went wrong (the ingest boundary's
catch-all, with where ``read_document`` raised; an exception out of ``ingest``; an error not
naming the file). With
``beside`` the mutant is also ingested in a folder after good demo files, which must get
exactly the facts, passages and review items they get alone ("fails alone").

The parent kills this process when an answer does not come in time (a hang) and starts another.
OCR is switched off: a scanned page would send every mutant of it to the OCR models, and OCR
is not a reader of the file's bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

from ragspine.errors import IngestError
from ragspine.ingestion import ocr
from ragspine.ingestion.pipeline import UNEXPECTED, Outcome, ingest
from ragspine.ingestion.readers import read_document
from ragspine.ingestion.safety import SafetyLimits
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

# A reader keeps to these; the parent's timeout is well above ``max_seconds``, so a mutant that
# outlasts it ran past the budget's own check: a hang.
LIMITS = SafetyLimits(max_seconds=10.0)
# Good demo files the "fails alone" sample ingests before the mutant (small: one table each).
GOOD = ("memos/CN_Regulation_Update.md", "workbooks/ACME_Macau_Summary.xlsx")
BESIDE_PREFIX = "zz_"  # sorts after the good files, so it is ingested last


@dataclass(frozen=True)
class Contribution:
    """What a folder's good files put in the store, comparable across two stores."""

    facts: frozenset[tuple[object, ...]]
    blocks: frozenset[tuple[object, ...]]
    review: frozenset[tuple[object, ...]]


def _names(message: str, path: Path) -> bool:
    return str(path) in message or path.name in message


def _traceback(path: Path) -> str:
    """Where reading ``path`` alone raises, for the report of a mutant the ingest failed on."""
    try:
        read_document(path, LIMITS)
    except IngestError:
        return ""
    except Exception:  # what the fuzzer is looking for
        return "read_document raised:\n" + traceback.format_exc(limit=-8)
    return ""


def _ingest(path: Path, store: SQLiteWorkspaceStore, profile: DomainProfile) -> tuple[str, str]:
    """(outcome, problem) of ingesting ``path`` alone into ``store``."""
    try:
        report = ingest([path], store, profile, limits=LIMITS)
    except Exception:  # the ingest must never raise for a file's sake
        return "crash", "ingest raised:\n" + traceback.format_exc(limit=-8)
    [result] = report.results
    if result.outcome != Outcome.FAILED:
        return result.outcome.value, ""
    if f": {UNEXPECTED}: " in result.error:
        return "failed", f"the ingest boundary caught an unexpected error: {result.error}"
    if not _names(result.error, path):
        return "failed", f"failure not naming the file: {result.error}"
    return "failed", ""


def _contribution(store: SQLiteWorkspaceStore, docs: set[str]) -> Contribution:
    facts = frozenset(
        (f.source_doc_id, f.source_locator, f.metric_code, f.entity, f.period, f.value, f.unit)
        for doc in docs
        for f in store.list_facts(doc_id=doc)
    )
    blocks = frozenset(
        (b.doc_id, b.position, b.locator, b.text) for doc in docs for b in store.list_blocks(doc)
    )
    review = frozenset(
        (r.doc_id, r.locator, r.reason) for r in store.list_review() if r.doc_id in docs
    )
    return Contribution(facts, blocks, review)


def _folder_ingest(
    folder: Path, profile: DomainProfile, docs: set[str]
) -> tuple[Contribution, dict[str, str]]:
    with (
        tempfile.TemporaryDirectory(prefix="fuzz-beside-") as tmp,
        SQLiteWorkspaceStore(Path(tmp) / "ragspine.db") as store,
    ):
        store.init_schema()
        report = ingest([folder], store, profile, limits=LIMITS)
        outcomes = {r.doc_id: r.outcome.value for r in report.results}
        return _contribution(store, docs), outcomes


class Worker:
    def __init__(self, corpus: Path, scratch: Path) -> None:
        self.corpus = corpus
        self.scratch = scratch
        self.profile = load_profile()
        self.store = SQLiteWorkspaceStore(scratch / "ragspine.db")
        self.store.init_schema()
        self.good = scratch / "good"
        for name in GOOD:
            target = self.good / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(corpus / name, target)
        self.good_docs = set(GOOD)
        self.baseline, _ = _folder_ingest(self.good, self.profile, self.good_docs)

    def handle(self, path: Path, document: Path, beside: bool) -> dict[str, str]:
        outcome, problem = _ingest(document, self.store, self.profile)
        if problem and document == path:
            problem = f"{problem}\n{_traceback(path)}"
        if beside and not problem:
            problem = self._beside(path, document)
        return {"outcome": outcome, "problem": problem}

    def _beside(self, path: Path, document: Path) -> str:
        """'' when the good files keep what they get alone with the mutant ingested after."""
        folder = self.scratch / "beside"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(self.good, folder)
        for part in {path, document}:
            shutil.copy(part, folder / (BESIDE_PREFIX + part.name))
        got, outcomes = _folder_ingest(folder, self.profile, self.good_docs)
        wrong = {doc: outcomes.get(doc) for doc in GOOD if outcomes.get(doc) != "ingested"}
        if wrong:
            return f"good files beside the mutant were not ingested: {wrong}"
        if got != self.baseline:
            return "good files beside the mutant got other facts, passages or review items"
        return ""


def main(corpus: str) -> int:
    # Keep the protocol's stdout for answers: whatever a library prints goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    ocr._ENGINE_MODULE = "ragspine_ocr_switched_off_for_fuzzing"
    with tempfile.TemporaryDirectory(prefix="fuzz-worker-") as scratch:
        worker = Worker(Path(corpus), Path(scratch))
        answers.write(json.dumps({"ready": True}) + "\n")
        answers.flush()
        for line in sys.stdin:
            request = json.loads(line)
            answer = worker.handle(
                Path(request["path"]), Path(request["document"]), bool(request["beside"])
            )
            answers.write(json.dumps(answer) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
