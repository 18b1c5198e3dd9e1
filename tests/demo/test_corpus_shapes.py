"""The demo corpus's regression documents: each real-document shape is in the files as declared,
and the ground truth of the scanned page follows whether OCR is installed — checked both ways
through the real readers and the ingestion pipeline.

The no-extra path points the real availability check at a module that does not exist, as
``tests/ingestion/test_ocr.py`` does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import docx
import pdfplumber
import pytest

from ragspine.demo import corpus_shapes as shapes
from ragspine.demo.corpus import GroundTruth, generate_corpus
from ragspine.demo.corpus_truth import ReviewTruth, truth_locator
from ragspine.ingestion import ocr
from ragspine.ingestion.pipeline import ingest
from ragspine.ingestion.readers.pdf_reader import PdfReader
from ragspine.profile.loader import load_profile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

needs_engine = pytest.mark.skipif(
    not ocr.ocr_available(), reason="the ocr extra is not installed (`make test` installs it)"
)

SCANNED_PAGE = "page=3"
# (metric, entity, period, value, unit, locator) of each fact; (locator, reason) of each item
Outcomes = tuple[set[tuple[str, str, str, float, str, str]], set[tuple[str, str]]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    root = tmp_path_factory.mktemp("corpus")
    return root, generate_corpus(root, ocr=True)


def _scanned_facts(truth: GroundTruth) -> list[str]:
    return [f.locator for f in truth.facts_of(shapes.SUPPLEMENT) if "extraction=ocr" in f.locator]


def test_the_scanned_table_is_facts_with_ocr_and_a_review_item_without(tmp_path: Path) -> None:
    with_ocr = generate_corpus(tmp_path / "with", ocr=True)
    without = generate_corpus(tmp_path / "without", ocr=False)
    for path in (tmp_path / "with").rglob("*.pdf"):
        twin = tmp_path / "without" / path.relative_to(tmp_path / "with")
        assert path.read_bytes() == twin.read_bytes()  # only the truth depends on OCR
    assert _scanned_facts(with_ocr) == [
        "page=3,extraction=ocr,table=1,row=2,col=2",
        "page=3,extraction=ocr,table=1,row=2,col=3",
    ]
    assert _scanned_facts(without) == []
    unread = ReviewTruth(shapes.SUPPLEMENT, SCANNED_PAGE, "needs_ocr")
    assert unread in without.review_items and unread not in with_ocr.review_items
    assert set(with_ocr.facts) - set(without.facts) == {
        f for f in with_ocr.facts if "extraction=ocr" in f.locator
    }
    assert set(without.review_items) - set(with_ocr.review_items) == {unread}


def test_the_default_truth_follows_the_installed_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = generate_corpus(tmp_path / "a")
    assert bool(_scanned_facts(installed)) == ocr.ocr_available()
    monkeypatch.setattr(ocr, "_ENGINE_MODULE", "ragspine_no_such_ocr_engine")
    assert _scanned_facts(generate_corpus(tmp_path / "b")) == []


def _ingest_supplement(root: Path, work: Path) -> SQLiteWorkspaceStore:
    folder = work / "reports"
    folder.mkdir(parents=True)
    shutil.copy(root / shapes.SUPPLEMENT, folder)
    store = SQLiteWorkspaceStore(work / "ws.db")
    store.init_schema()
    report = ingest([work / "reports"], store, load_profile())
    assert report.failures == []
    return store


def _outcomes(store: SQLiteWorkspaceStore) -> Outcomes:
    facts = {
        (f.metric_code, f.entity, f.period, f.value, f.unit, truth_locator(f.source_locator))
        for f in store.list_facts()
    }
    return facts, {(r.locator, r.reason) for r in store.list_review()}


def _expected(truth: GroundTruth) -> Outcomes:
    facts = {
        (f.metric_code, f.entity, f.period, f.value, f.unit, f.locator)
        for f in truth.facts_of(shapes.SUPPLEMENT)
    }
    reviews = {(r.locator, r.reason) for r in truth.review_items if r.doc == shapes.SUPPLEMENT}
    return facts, reviews


@needs_engine
def test_with_ocr_the_scanned_table_is_ingested_as_declared(tmp_path: Path) -> None:
    truth = generate_corpus(tmp_path / "corpus", ocr=True)
    store = _ingest_supplement(tmp_path / "corpus", tmp_path / "ws")
    assert _outcomes(store) == _expected(truth)
    scanned = [f for f in store.list_facts() if "extraction=ocr" in f.source_locator]
    assert len(scanned) == 2
    for fact in scanned:
        score = float(fact.source_locator.rsplit(",confidence=", 1)[1])
        assert ocr.MIN_CONFIDENCE <= score <= 1.0


def test_without_ocr_the_scanned_page_waits_as_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ocr, "_ENGINE_MODULE", "ragspine_no_such_ocr_engine")
    truth = generate_corpus(tmp_path / "corpus")
    store = _ingest_supplement(tmp_path / "corpus", tmp_path / "ws")
    assert _outcomes(store) == _expected(truth)
    [unread] = [r for r in store.list_review() if r.locator == SCANNED_PAGE]
    assert unread.reason == "needs_ocr"


def test_the_supplement_pages_have_the_declared_shapes(corpus: tuple[Path, GroundTruth]) -> None:
    root, _ = corpus
    with pdfplumber.open(root / shapes.SUPPLEMENT) as pdf:
        columns, unruled, scan = pdf.pages
        words = {w["text"] for w in unruled.extract_words()}
        assert {"1998", "2046", "245", "251"} <= words
        assert unruled.lines == [] and unruled.rects == []
        assert scan.chars == [] and len(scan.images) == 1
        left = [w for w in columns.extract_words() if w["text"] == "Basis"]
        right = [w for w in columns.extract_words() if w["text"] == "Reading"]
        assert len(left) == len(right) == 1
        assert left[0]["x0"] < columns.width / 2 < right[0]["x0"]
        assert abs(left[0]["top"] - right[0]["top"]) < 1  # the columns start on one line


def test_the_two_column_page_reads_column_by_column(corpus: tuple[Path, GroundTruth]) -> None:
    root, _ = corpus
    document = PdfReader().read(root / shapes.SUPPLEMENT)
    page_one = " ".join(b.text for b in document.blocks if b.locator.startswith("page=1,"))
    order = [page_one.find(start) for start in ("Basis of", "The amounts", "Reading the", "A scan")]
    assert -1 not in order and order == sorted(order), page_one


def test_the_word_review_names_entity_and_year_only_around_its_table(
    corpus: tuple[Path, GroundTruth],
) -> None:
    root, truth = corpus
    document = docx.Document(str(root / shapes.MACAU_REVIEW))
    assert [p.text for p in document.sections[0].header.paragraphs] == ["ACME Macau"]
    [table] = document.tables
    grid = [[cell.text for cell in row.cells] for row in table.rows]
    assert grid[0] == ["", "本年", "上年"]
    assert grid[1] == ["代理人数量", "2050", "2010"]
    facts = {
        f.locator: (f.metric_code, f.entity, f.period, f.value)
        for f in truth.facts_of(shapes.MACAU_REVIEW)
    }
    assert facts["table=1,row=2,col=2"] == ("AGENT_COUNT", "ACME_MO", "2020", 2050.0)
    assert facts["table=1,row=2,col=3"] == ("AGENT_COUNT", "ACME_MO", "2019", 2010.0)
    body = "\n".join(p.text for p in document.paragraphs)
    assert "澳门" not in body and "Macau" not in body
