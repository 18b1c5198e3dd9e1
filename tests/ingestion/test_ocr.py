"""Scanned PDF pages are read by OCR (the ``ocr`` extra) into facts whose locators say so.

The scans (``tests/scans.py``) are pictures of pages drawn with reportlab: no text layer.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pdfplumber
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from ragspine.ingestion import ocr
from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, ReaderIssue
from ragspine.ingestion.readers.pdf_reader import PdfReader
from ragspine.ingestion.tables import ReviewReason, TableMapping, map_table
from ragspine.profile.glossary import Glossary
from tests.profiles import acme_glossary
from tests.scans import (
    EN_PROSE,
    EN_ROWS,
    EN_TITLE,
    SYSTEM_CJK_FONT,
    ZH_PROSE,
    ZH_ROWS,
    ZH_TITLE,
    chinese_page,
    english_page,
    rendered,
    write_scan,
)

Fact = tuple[str, str, str, float, str]  # metric, entity, period, value, locator

needs_engine = pytest.mark.skipif(
    not ocr.ocr_available(), reason="the ocr extra is not installed (`make test` installs it)"
)


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return acme_glossary()


def _facts(mapped: TableMapping) -> set[Fact]:
    return {(f.metric_code, f.entity, f.period.label, f.value, f.locator) for f in mapped.facts}


def _read(path: Path) -> ExtractedDocument:
    return PdfReader().read(path)


def test_scans_carry_no_text_layer(tmp_path: Path) -> None:
    """The fixture is honest: without OCR the scan reads as a page without text."""
    path = write_scan(tmp_path / "scan.pdf", english_page)
    with pdfplumber.open(path) as pdf:
        assert pdf.pages[0].chars == []
        assert len(pdf.pages[0].images) == 1


@needs_engine
def test_english_scanned_table_becomes_facts_with_ocr_locators(
    tmp_path: Path, glossary: Glossary
) -> None:
    document = _read(write_scan(tmp_path / "ACME_scan.pdf", english_page))
    assert document.issues == []
    [table] = document.tables
    assert (table.locator_prefix, table.locator_style) == (
        "page=1,extraction=ocr,table=1",
        LocatorStyle.GRID,
    )
    assert [[c.text for c in row] for row in table.cells] == EN_ROWS
    assert table.title == EN_TITLE
    assert all(c.confidence is not None for row in table.cells for c in row)

    mapped = map_table(table, glossary)
    assert mapped.review == []
    prefix = "page=1,extraction=ocr,table=1"
    got = {(m, e, p, v, loc.rsplit(",confidence=", 1)[0]) for m, e, p, v, loc in _facts(mapped)}
    expected = {
        (code, "ACME_HK", year, value, f"{prefix},row={r + 1},col={c + 1}")
        for r, (code, values) in enumerate(
            [
                ("REVENUE", (1200.0, 1320.0)),
                ("OPERATING_PROFIT", (300.0, 350.5)),
                ("NBV", (85.2, 92.1)),
            ],
            start=1,
        )
        for c, (year, value) in enumerate(zip(("FY2023", "FY2024"), values, strict=True), start=1)
    }
    assert got == expected
    for fact in mapped.facts:
        score = float(fact.locator.rsplit(",confidence=", 1)[1])
        assert ocr.MIN_CONFIDENCE <= score <= 1.0

    [block] = [b for b in document.blocks if b.text == EN_PROSE]
    assert block.locator.startswith("page=1,extraction=ocr,para=")


@needs_engine
def test_chinese_scanned_table_becomes_facts(tmp_path: Path, glossary: Glossary) -> None:
    assert SYSTEM_CJK_FONT.exists(), "install fonts-wqy-microhei (`make test` does)"
    document = _read(write_scan(tmp_path / "scan.pdf", chinese_page))
    [table] = document.tables
    assert [[c.text for c in row] for row in table.cells] == ZH_ROWS
    assert table.title == ZH_TITLE

    mapped = map_table(table, glossary)
    assert mapped.review == []
    values = {
        ("REVENUE", "FY2023"): 1180.0,
        ("REVENUE", "FY2024"): 1265.0,
        ("OPERATING_PROFIT", "FY2023"): 298.0,
        ("OPERATING_PROFIT", "FY2024"): 341.0,
        ("NBV", "FY2023"): 76.4,
        ("NBV", "FY2024"): 88.9,
    }
    got = {(m, p): v for m, e, p, v, _ in _facts(mapped) if e == "ACME_HK"}
    assert got == values
    units = {f.unit for f in mapped.facts}
    assert units == {"USD_M"}
    revenue_2024 = next(f for f in mapped.facts if f.value == 1265.0)
    assert revenue_2024.locator.startswith("page=1,extraction=ocr,table=1,row=2,col=3,confidence=")
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("page=1,extraction=ocr,para=1", ZH_TITLE),
        ("page=1,extraction=ocr,para=2", ZH_PROSE),
    ]


@needs_engine
def test_low_confidence_cells_go_to_review_with_the_proposed_fact(
    tmp_path: Path, glossary: Glossary
) -> None:
    document = _read(write_scan(tmp_path / "blurred.pdf", english_page, blur=3.2))
    [table] = document.tables
    mapped = map_table(table, glossary)
    doubtful = [r for r in mapped.review if r.reason == ReviewReason.LOW_CONFIDENCE]
    assert doubtful, "a blurred scan should leave some cell below the threshold"
    for item in doubtful:
        assert item.fact is not None
        score = float(item.locator.rsplit(",confidence=", 1)[1])
        assert score < ocr.MIN_CONFIDENCE
        assert item.fact.locator == item.locator
        assert "OCR read" in item.detail
    reviewed = {item.locator for item in doubtful}
    assert not reviewed & {f.locator for f in mapped.facts}
    for fact in mapped.facts:
        assert float(fact.locator.rsplit(",confidence=", 1)[1]) >= ocr.MIN_CONFIDENCE


@needs_engine
def test_page_with_a_partial_text_layer_is_read_by_ocr(tmp_path: Path, glossary: Glossary) -> None:
    header = "ACME Group appendix, scanned copy"
    path = write_scan(tmp_path / "stamped.pdf", english_page, typed_header=header)
    with pdfplumber.open(path) as pdf:
        assert "".join(c["text"] for c in pdf.pages[0].chars) == header
    document = _read(path)
    assert document.issues == []
    [table] = document.tables
    assert [[c.text for c in row] for row in table.cells] == EN_ROWS
    texts = [b.text for b in document.blocks]
    assert header in texts
    assert all(",extraction=ocr," in b.locator for b in document.blocks)
    assert {f.value for f in map_table(table, glossary).facts} == {
        1200.0,
        1320.0,
        300.0,
        350.5,
        85.2,
        92.1,
    }


def test_without_the_extra_the_review_item_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real availability check, pointed at an engine module that is not installed.
    monkeypatch.setattr(ocr, "_ENGINE_MODULE", "ragspine_no_such_ocr_engine")
    assert not ocr.ocr_available()
    document = _read(write_scan(tmp_path / "scan.pdf", english_page))
    assert document.tables == [] and document.blocks == []
    [issue] = document.issues
    assert issue.locator == "page=1"
    assert issue.reason.startswith("needs OCR: page has no text layer")
    assert "pip install 'ragspine[ocr]'" in issue.reason


@needs_engine
def test_a_scan_without_text_stays_a_needs_ocr_item(tmp_path: Path) -> None:
    def blank(canvas: Canvas) -> None:
        canvas.setFillGray(0.9)
        canvas.rect(100, 300, 300, 200, fill=1, stroke=0)

    document = _read(write_scan(tmp_path / "blank.pdf", blank))
    assert document.issues == [
        ReaderIssue("page=1", "needs OCR: page has no text layer, and OCR found no text on it")
    ]


def test_confidence_mark_rounds_down() -> None:
    assert ocr.confidence_mark(0.996) == "confidence=0.99"
    assert ocr.confidence_mark(1.0) == "confidence=1.00"
    assert ocr.confidence_mark(0.9) == "confidence=0.90"


def _line(text: str, x0: float, top: float, x1: float, confidence: float = 0.99) -> ocr.OcrLine:
    return ocr.OcrLine(text, (x0, top, x1, top + 30), confidence)


def test_layout_rebuilds_rows_columns_and_a_spanning_header() -> None:
    """Word boxes as the engine returns them: numbers right-aligned, a header over two columns."""
    lines = [
        _line("Key figures", 100, 0, 300),
        _line("Fiscal year", 480, 100, 760),
        _line("FY2023", 520, 150, 600),
        _line("FY2024", 690, 150, 770),
        _line("Revenue", 100, 200, 220),
        _line("1,200", 530, 201, 600),
        _line("1,320", 700, 199, 770),
        _line("Operating profit", 100, 250, 330),
        _line("300", 555, 250, 600),
        _line("350", 725, 251, 770, confidence=0.91),
        _line("Source: management accounts", 100, 330, 500),
    ]
    content = ocr.layout(lines, "page=2,extraction=ocr")
    [table] = content.tables
    assert table.locator_prefix == "page=2,extraction=ocr,table=1"
    assert [[c.text for c in row] for row in table.cells] == [
        ["", "Fiscal year", "Fiscal year"],
        ["", "FY2023", "FY2024"],
        ["Revenue", "1,200", "1,320"],
        ["Operating profit", "300", "350"],
    ]
    assert [c.merged for c in table.cells[0]] == [False, True, True]
    assert table.cells[3][2].confidence == 0.91
    assert table.cells[0][0].confidence is None
    assert (table.title, table.context) == ("Key figures", ("Source: management accounts",))
    assert [(b.locator, b.text) for b in content.blocks] == [
        ("page=2,extraction=ocr,para=1", "Key figures"),
        ("page=2,extraction=ocr,para=2", "Source: management accounts"),
    ]


def test_a_value_is_no_surer_than_the_headers_naming_it() -> None:
    lines = [
        _line("Metric", 100, 100, 200),
        _line("FY2024", 500, 100, 600, confidence=0.70),
        _line("Revenue", 100, 150, 220),
        _line("1,320", 520, 150, 600, confidence=0.99),
    ]
    [table] = ocr.layout(lines, "page=1,extraction=ocr").tables
    assert table.cells[1][1].confidence == 0.70
    assert table.cells[0][1].confidence == 0.70
    assert table.cells[1][0].confidence == 0.99


def test_wrapped_prose_joins_into_paragraphs() -> None:
    lines = [
        _line("Revenue grew strongly", 100, 100, 500),
        _line("as demand recovered.", 100, 135, 480),
        _line("香港业务收入增长主要来自", 100, 260, 500),
        _line("保险产品的强劲需求。", 100, 295, 480),
    ]
    content = ocr.layout(lines, "page=1,extraction=ocr", heading="Review")
    assert content.tables == []
    assert [(b.text, b.title) for b in content.blocks] == [
        ("Revenue grew strongly as demand recovered.", "Review"),
        ("香港业务收入增长主要来自保险产品的强劲需求。", "Review"),
    ]


def test_a_searchable_scan_is_read_from_its_text_layer(tmp_path: Path) -> None:
    """A scan that carries invisible OCR text over its picture needs no OCR of ours."""
    picture = rendered(english_page)
    path = tmp_path / "searchable.pdf"
    width, height = A4
    canvas = Canvas(str(path), pagesize=A4)
    canvas.drawImage(ImageReader(picture), 0, 0, width, height)
    text = canvas.beginText(60, 650)
    text.setTextRenderMode(3)  # invisible, as OCR tools write it
    text.setFont("Helvetica", 11)
    text.textLine(EN_PROSE)
    canvas.drawText(text)
    canvas.save()
    document = _read(path)
    assert document.issues == []
    assert [(b.locator, b.text) for b in document.blocks] == [("page=1,para=1", EN_PROSE)]


@needs_engine
def test_ocr_works_in_a_process_that_loaded_the_vector_index(tmp_path: Path) -> None:
    # onnxruntime segfaults on load in a process holding usearch's compiled module (core
    # dependency): the engine must run in its own process. A child interpreter keeps a crash
    # from taking the test run with it.
    scan = write_scan(tmp_path / "scan.pdf", english_page)
    script = (
        "import sys, usearch.index\n"
        "from ragspine.ingestion.readers.pdf_reader import PdfReader\n"
        "document = PdfReader().read(__import__('pathlib').Path(sys.argv[1]))\n"
        "print(len(document.tables), len(document.issues))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(scan)], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["1", "0"]


@pytest.mark.skipif(sys.platform != "linux", reason="the kernel's parent-death signal is Linux's")
def test_the_ocr_process_ends_with_the_process_that_started_it() -> None:
    """An ingest killed with SIGKILL (the OOM killer) takes its OCR process with it, instead of
    leaving it reading a page for nobody with the models' memory."""
    script = (
        "import os, time\n"
        "from ragspine.ingestion import ocr\n"
        "worker = ocr._worker()\n"
        "print(worker.submit(os.getpid).result(), flush=True)\n"
        "worker.submit(time.sleep, 120)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child), "the OCR process outlived the ingest"


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, waiting for init to reap it, has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
