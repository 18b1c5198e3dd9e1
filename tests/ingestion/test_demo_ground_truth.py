"""Acceptance: on the demo corpus the pipeline reproduces the ground truth exactly, re-runs
write nothing, and a change to one file or its metadata touches only that document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragspine.demo.corpus import generate_corpus
from ragspine.demo.corpus_truth import truth_locator
from ragspine.ingestion.pipeline import Outcome, ingest
from ragspine.profile.loader import load_profile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

FactRow = tuple[str, str, str, str, str, float, str, str, str, str]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root)
    return root


def fresh_store(tmp_path: Path) -> SQLiteWorkspaceStore:
    store = SQLiteWorkspaceStore(tmp_path / "ws.db")
    store.init_schema()
    return store


def stored_facts(store: SQLiteWorkspaceStore) -> set[FactRow]:
    return {
        (
            f.metric_code,
            f.entity,
            f.channel,
            f.period_type,
            f.period,
            round(f.value, 6),
            f.unit,
            f.source_doc_id,
            truth_locator(f.source_locator),
            f.sensitivity,
        )
        for f in store.list_facts()
    }


def test_facts_and_review_items_equal_the_ground_truth(corpus: Path, tmp_path: Path) -> None:
    truth = json.loads((corpus / "ground_truth.json").read_text(encoding="utf-8"))
    store = fresh_store(tmp_path)
    report = ingest([corpus], store, load_profile())
    assert report.failures == []
    expected = {
        (
            f["metric_code"],
            f["entity"],
            f["channel"],
            f["period_type"],
            f["period"],
            round(f["value"], 6),
            f["unit"],
            f["doc"],
            f["locator"],
            f["sensitivity"],
        )
        for f in truth["facts"]
    }
    got = stored_facts(store)
    assert got - expected == set(), "precision below 1.0"
    assert expected - got == set(), "recall below 1.0"
    assert len(got) == len(truth["facts"])
    raised = {(r.doc_id, r.locator, r.reason) for r in store.list_review()}
    assert raised == {(r["doc"], r["locator"], r["reason"]) for r in truth["review_items"]}
    sensitivity = {d["doc"]: d["sensitivity"] for d in truth["documents"]}
    assert {d.doc_id: d.sensitivity for d in store.list_documents()} == sensitivity
    low = next(r for r in store.list_review() if r.reason == "low_confidence")
    assert low.proposed is not None and low.proposed["value"] == 1300.0


def test_rerunning_an_unchanged_corpus_writes_nothing(corpus: Path, tmp_path: Path) -> None:
    store = fresh_store(tmp_path)
    ingest([corpus], store, load_profile())
    before = (store.list_documents(), store.list_facts(), store.list_blocks(), store.list_review())
    again = ingest([corpus], store, load_profile())
    assert {r.outcome for r in again.results} == {Outcome.SKIPPED}
    after = (store.list_documents(), store.list_facts(), store.list_blocks(), store.list_review())
    assert after == before


def test_changing_one_file_replaces_exactly_that_documents_rows(
    corpus: Path, tmp_path: Path
) -> None:
    work = tmp_path / "corpus"
    shutil.copytree(corpus, work)
    store = fresh_store(tmp_path)
    ingest([work], store, load_profile())
    memo = work / "memos" / "CN_Regulation_Update.md"
    doc_id = "memos/CN_Regulation_Update.md"
    others_before = [f for f in store.list_facts() if f.source_doc_id != doc_id]
    old = store.list_facts(doc_id=doc_id)
    assert old
    text = memo.read_text(encoding="utf-8")
    old_cell = f"| {_format(old[0].value / 100)} |"  # 亿元 in the memo, CNY_M in the store
    assert old_cell in text
    memo.write_text(text.replace(old_cell, "| 99.5 |", 1), encoding="utf-8")
    report = ingest([work], store, load_profile())
    assert [(r.doc_id, r.outcome) for r in report.results if r.outcome != Outcome.SKIPPED] == [
        (doc_id, Outcome.INGESTED)
    ]
    assert [f for f in store.list_facts() if f.source_doc_id != doc_id] == others_before
    new = {(f.natural_key, f.value) for f in store.list_facts(doc_id=doc_id)}
    assert (old[0].natural_key, 9950.0) in new
    assert (old[0].natural_key, old[0].value) not in new


def _format(value: float) -> str:
    return f"{value:g}"


def test_changed_metadata_is_reapplied_without_rereading(corpus: Path, tmp_path: Path) -> None:
    work = tmp_path / "corpus"
    shutil.copytree(corpus, work)
    store = fresh_store(tmp_path)
    ingest([work], store, load_profile())
    doc_id = "workbooks/ACME_5Y_Financials.xlsx"
    sidecar = work / "workbooks" / "ACME_5Y_Financials.xlsx.meta.json"
    sidecar.write_text(json.dumps({"sensitivity": "RESTRICTED"}), encoding="utf-8")
    report = ingest([work], store, load_profile())
    changed = [(r.doc_id, r.outcome) for r in report.results if r.outcome != Outcome.SKIPPED]
    assert changed == [(doc_id, Outcome.METADATA)]
    assert {f.sensitivity for f in store.list_facts(doc_id=doc_id)} == {"RESTRICTED"}
    assert {r.sensitivity for r in store.list_review() if r.doc_id == doc_id} == {"RESTRICTED"}
    sidecar.unlink()
    ingest([work], store, load_profile())
    assert {f.sensitivity for f in store.list_facts(doc_id=doc_id)} == {"INTERNAL"}


def test_same_file_name_in_two_folders_are_two_documents(corpus: Path, tmp_path: Path) -> None:
    root = tmp_path / "two"
    for folder in ("hk", "cn"):
        (root / folder).mkdir(parents=True)
    shutil.copy(corpus / "memos" / "CN_Regulation_Update.md", root / "hk" / "report.md")
    shutil.copy(corpus / "memos" / "Strategy_2026.md", root / "cn" / "report.md")
    store = fresh_store(tmp_path)
    ingest([root], store, load_profile())
    assert [d.doc_id for d in store.list_documents()] == ["cn/report.md", "hk/report.md"]


def test_a_changed_profile_remaps_unchanged_files(corpus: Path, tmp_path: Path) -> None:
    store = fresh_store(tmp_path)
    profile = load_profile()
    ingest([corpus], store, profile)
    widened = profile.model_copy(update={"competitors": profile.competitors[:1]})
    report = ingest([corpus], store, widened)
    assert {r.outcome for r in report.results} == {Outcome.INGESTED}
