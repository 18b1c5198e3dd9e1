"""A batch with every kind of bad file: each fails alone, naming the file and the reason, and
the store ends up exactly as if only the good documents had been given — never half a document.

The good documents are the demo corpus, whose ground truth says what they must contribute. The
bad ones sit next to them (same folders, so failures interleave with successes in document-id
order) and go through the real pipeline into a real SQLite workspace store.
"""

from __future__ import annotations

import sqlite3
import zipfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from ragspine.demo.corpus import GroundTruth, generate_corpus
from ragspine.demo.corpus_truth import truth_locator
from ragspine.errors import StoreError
from ragspine.ingestion.pipeline import IngestReport, Outcome, ingest
from ragspine.ingestion.safety import SafetyLimits
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.ingestion.readers.samples import OLE_HEADER, PNG_HEADER, make, office_zip, truncate

MiB = 1024 * 1024


@dataclass(frozen=True)
class BadFile:
    doc_id: str
    reason: str  # a fragment the failure message must contain


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _truncated_docx(path: Path) -> None:
    truncate(make(path))


def _encrypted_pdf(path: Path) -> None:
    pdf = canvas.Canvas(str(path), encrypt="secret")
    pdf.drawString(72, 750, "收入 1,320")
    pdf.save()


def _png_named_pdf(path: Path) -> None:
    path.write_bytes(PNG_HEADER + bytes(256))


def _password_protected_office(path: Path) -> None:
    # What Office writes for a password-protected file: an OLE container, not a ZIP package.
    path.write_bytes(OLE_HEADER + bytes(4096))


def _ratio_bomb(path: Path) -> None:
    """One 50 MB entry that deflates to about 50 KB."""
    office_zip(path, {}, main_folder="word/")
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("word/media/image1.bin", "w") as entry,
    ):
        for _ in range(50):
            entry.write(bytes(MiB))


def _crowded_bomb(path: Path) -> None:
    office_zip(path, {f"word/media/{i}.xml": b"" for i in range(5001)}, main_folder="word/")


def _wide_bomb(path: Path) -> None:
    """225 MB in entries under the 1 MB ratio floor: only the total-size cap can catch it."""
    part = bytes(900 * 1024)
    office_zip(path, {f"ppt/media/part{i}.bin": part for i in range(250)}, main_folder="ppt/")


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "decks/empty.pptx": (_empty, "empty file (0 bytes)"),
    "memos/cut_in_half.docx": (_truncated_docx, "truncated or corrupt ZIP package"),
    "reports/locked.pdf": (_encrypted_pdf, "encrypted PDF"),
    "reports/scan.pdf": (_png_named_pdf, "content is PNG, not PDF"),
    "workbooks/2026_plan_locked.xlsx": (_password_protected_office, "password-protected"),
    "memos/bomb.docx": (_ratio_bomb, "zip bomb suspected: entry 'word/media/image1.bin' expands"),
    "memos/crowded.docx": (_crowded_bomb, "zip bomb suspected: 5003 entries > limit 5000"),
    "decks/wide.pptx": (_wide_bomb, "bytes uncompressed > limit 209715200 bytes"),
}
OVERSIZED = "memos/huge_notes.md"


@dataclass(frozen=True)
class Batch:
    root: Path
    truth: GroundTruth
    limits: SafetyLimits
    bad: tuple[BadFile, ...]


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Batch:
    root = tmp_path_factory.mktemp("batch")
    truth = generate_corpus(root)
    bad = []
    for doc_id, (write, reason) in BAD_FILES.items():
        write(root / doc_id)
        bad.append(BadFile(doc_id, reason))
    # The size limit sits just above every other file, so only the oversized one trips it —
    # and that one is valid Markdown that would otherwise ingest.
    limit = max(p.stat().st_size for p in root.rglob("*") if p.is_file())
    line = "Revenue grew in every region.\n"
    (root / OVERSIZED).write_text("# Notes\n\n" + line * (limit // len(line) + 1), "utf-8")
    bad.append(BadFile(OVERSIZED, f"oversized: {(root / OVERSIZED).stat().st_size} bytes"))
    return Batch(root, truth, SafetyLimits(max_bytes=limit), tuple(bad))


@pytest.fixture
def ingested(batch: Batch, store: SQLiteWorkspaceStore, profile: DomainProfile) -> IngestReport:
    return ingest([batch.root], store, profile, limits=batch.limits)


def _bad_ids(batch: Batch) -> set[str]:
    return {b.doc_id for b in batch.bad}


def _good_ids(batch: Batch) -> set[str]:
    return {d.doc for d in batch.truth.documents}


# --------------------------------------------------------------------------- each bad file


def test_each_bad_file_fails_alone_naming_the_file_and_the_reason(
    batch: Batch, ingested: IngestReport
) -> None:
    results = {r.doc_id: r for r in ingested.results}
    assert set(results) == _good_ids(batch) | _bad_ids(batch)
    for bad in batch.bad:
        result = results[bad.doc_id]
        assert result.outcome == Outcome.FAILED, bad.doc_id
        assert result.error.startswith(f"{batch.root / bad.doc_id}: "), result.error
        assert bad.reason in result.error, result.error
        assert (result.facts, result.blocks, result.review) == (0, 0, 0)
    assert {f.doc_id for f in ingested.failures} == _bad_ids(batch)


def test_failures_interleave_with_successes(batch: Batch, ingested: IngestReport) -> None:
    # Document-id order puts bad files between good ones: a failure never stops the batch.
    order = [r.doc_id for r in ingested.results]
    assert order == sorted(order)
    last_bad = max(order.index(b) for b in _bad_ids(batch))
    first_bad = min(order.index(b) for b in _bad_ids(batch))
    assert any(order.index(g) > last_bad for g in _good_ids(batch))
    assert any(order.index(g) < first_bad for g in _good_ids(batch))


def test_every_good_file_is_ingested(batch: Batch, ingested: IngestReport) -> None:
    outcomes = {r.doc_id: r.outcome for r in ingested.results if r.doc_id in _good_ids(batch)}
    assert outcomes == dict.fromkeys(_good_ids(batch), Outcome.INGESTED)
    assert ingested.facts == len(batch.truth.facts)
    assert ingested.review == len(batch.truth.review_items)


# --------------------------------------------------------------------------- the store


def test_the_store_holds_exactly_the_good_documents(
    batch: Batch, ingested: IngestReport, store: SQLiteWorkspaceStore
) -> None:
    assert [(d.doc_id, d.sensitivity) for d in store.list_documents()] == sorted(
        (d.doc, d.sensitivity) for d in batch.truth.documents
    )
    for bad in _bad_ids(batch):
        assert store.get_document(bad) is None
    # Each fact names the bytes and mapping it came from: its document's manifest row.
    manifest = {d.doc_id: d for d in store.list_documents()}
    for fact in store.list_facts():
        record = manifest[fact.source_doc_id]
        assert (fact.source_file_hash, fact.mapping_version) == (
            record.content_hash,
            record.mapping_version,
        )


def test_facts_blocks_and_review_come_only_from_good_documents(
    batch: Batch, ingested: IngestReport, store: SQLiteWorkspaceStore
) -> None:
    facts = {
        (
            f.source_doc_id,
            truth_locator(f.source_locator),
            f.metric_code,
            f.entity,
            f.period,
            f.value,
            f.unit,
        )
        for f in store.list_facts()
    }
    expected = {
        (f.doc, f.locator, f.metric_code, f.entity, f.period, f.value, f.unit)
        for f in batch.truth.facts
    }
    assert facts == expected
    review = {(i.doc_id, i.locator, i.reason) for i in store.list_review()}
    assert review == {(i.doc, i.locator, i.reason) for i in batch.truth.review_items}
    block_docs = {b.doc_id for b in store.list_blocks()}
    assert block_docs and block_docs <= _good_ids(batch)
    assert store.count_blocks() == ingested.blocks


def test_a_second_run_skips_the_good_files_and_fails_the_bad_ones_again(
    batch: Batch, ingested: IngestReport, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    again = ingest([batch.root], store, profile, limits=batch.limits)

    outcomes = {r.doc_id: r.outcome for r in again.results}
    assert {d for d, o in outcomes.items() if o == Outcome.SKIPPED} == _good_ids(batch)
    assert {d for d, o in outcomes.items() if o == Outcome.FAILED} == _bad_ids(batch)


# --------------------------------------------------------------------------- half a document

MEMO = "memos/CN_Regulation_Update.md"
OLD_ROW, NEW_ROW = "| 合计 | 15.0 | 17.5 |", "| 合计 | 15.0 | 18.5 |"


def _rows_of(db: Path, doc_id: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row the document owns, table by table (review items without their ids)."""
    queries = {
        "documents": "SELECT * FROM documents WHERE doc_id = ?",
        "fact_metric": "SELECT * FROM fact_metric WHERE source_doc_id = ? ORDER BY source_locator",
        "text_blocks": "SELECT * FROM text_blocks WHERE doc_id = ? ORDER BY position",
        "chunks": "SELECT * FROM chunks WHERE doc_id = ? ORDER BY chunk_id",
        "review_items": "SELECT locator, reason, detail, proposed, state FROM review_items "
        "WHERE doc_id = ? ORDER BY item_id",
    }
    with closing(sqlite3.connect(db)) as conn:
        return {table: conn.execute(sql, (doc_id,)).fetchall() for table, sql in queries.items()}


def _fail_inserts_into(db: Path, table: str) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(
            f"CREATE TRIGGER fail_{table} BEFORE INSERT ON {table} "
            "BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END"
        )
        conn.commit()


def _drop_trigger(db: Path, table: str) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"DROP TRIGGER fail_{table}")
        conn.commit()


@pytest.mark.parametrize(
    "table",
    [
        "text_blocks",  # after the new facts were written
        "documents",  # the very last statement, after facts, blocks and review items
    ],
)
def test_a_write_failing_midway_leaves_the_previous_version_intact(
    tmp_path: Path, store: SQLiteWorkspaceStore, profile: DomainProfile, table: str
) -> None:
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    ingest([corpus], store, profile)
    before = _rows_of(store.path, MEMO)
    assert all(before[t] for t in ("documents", "fact_metric", "text_blocks", "chunks"))
    memo = corpus / MEMO
    memo.write_text(memo.read_text("utf-8").replace(OLD_ROW, NEW_ROW), "utf-8")
    _fail_inserts_into(store.path, table)

    with pytest.raises(StoreError, match="simulated disk failure"):
        ingest([corpus], store, profile)

    assert _rows_of(store.path, MEMO) == before
    assert 1850.0 not in {f.value for f in store.list_facts(doc_id=MEMO)}
    # Nothing was left behind to block a retry: once the store works, the new version lands.
    _drop_trigger(store.path, table)
    retry = ingest([corpus], store, profile)
    assert {r.doc_id for r in retry.results if r.outcome == Outcome.INGESTED} == {MEMO}
    after = _rows_of(store.path, MEMO)
    assert after["documents"][0] != before["documents"][0]
    assert 1850.0 in {f.value for f in store.list_facts(doc_id=MEMO)}
    assert 1750.0 not in {f.value for f in store.list_facts(doc_id=MEMO)}


def test_a_file_named_directly_with_an_unsupported_type_fails_alone(tmp_path: Path) -> None:
    from ragspine.ingestion.pipeline import Outcome, ingest
    from ragspine.storage.ingest_store import SQLiteWorkspaceStore

    slides = tmp_path / "slides.key"
    slides.write_bytes(b"keynote")
    store = SQLiteWorkspaceStore(tmp_path / "ws.db")
    store.init_schema()
    (result,) = ingest([slides], store, load_profile()).results
    assert result.outcome == Outcome.FAILED
    assert str(slides) in result.error and "unsupported file type" in result.error
