"""Merged value cells and repeated headers through the real readers and the ingest pipeline:
a merged figure is one fact at its anchor or one review item, never a fact per spanned cell."""

from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches

from ragspine.ingestion.pipeline import discover, ingest
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.profiles import acme

Facts = list[tuple[str, str, float]]
Review = list[tuple[str, str]]


def _ingest(corpus: Path, db: Path) -> tuple[Facts, Review]:
    with SQLiteWorkspaceStore(db) as store:
        store.init_schema()
        report = ingest((), store, acme(), files=discover([corpus]))
        assert report.failures == []
        facts = sorted((f.period, f.source_locator, f.value) for f in store.list_facts())
        review = sorted((r.reason, r.locator) for r in store.list_review())
    return facts, review


def test_a_workbook_value_merged_across_period_columns_is_reviewed_once(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "HK"
    sheet.append(["香港 (US$m)"])
    sheet.append(["Metric", "FY2023", "FY2024", "FY2025", "FY2025"])
    sheet.append(["收入", 1320, None, 1400, None])
    sheet.append(["净利润", 80, 90, 95, None])
    sheet.merge_cells("B3:C3")  # one figure over two years: which one?
    sheet.merge_cells("D2:E2")  # a wide FY2025 column ...
    sheet.merge_cells("D3:E3")  # ... whose merged value is one figure
    book.save(corpus / "hk.xlsx")

    facts, review = _ingest(corpus, tmp_path / "ws.db")

    assert facts == [
        ("2023", "sheet=HK,cell=B4", 80.0),
        ("2024", "sheet=HK,cell=C4", 90.0),
        ("2025", "sheet=HK,cell=D3", 1400.0),
        ("2025", "sheet=HK,cell=D4", 95.0),
    ]
    assert review == [("ambiguous_cell", "sheet=HK,cell=B3")]


def test_a_deck_table_with_two_fy2024_columns_names_each_cell(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    assert slide.shapes.title is not None
    slide.shapes.title.text = "香港业务回顾（百万美元）"
    shape = slide.shapes.add_table(2, 4, Inches(1), Inches(2), Inches(6), Inches(1))
    for c, text in enumerate(["", "FY2024", "FY2024", "FY2025"]):
        shape.table.cell(0, c).text = text
    for c, text in enumerate(["收入", "1,320", "1,330", "1,400"]):
        shape.table.cell(1, c).text = text
    deck.save(corpus / "review.pptx")

    facts, review = _ingest(corpus, tmp_path / "ws.db")

    assert facts == [("2025", "slide=1,table=1,row=REVENUE,col=FY2025", 1400.0)]
    assert review == [
        ("ambiguous_cell", "slide=1,table=1,row=REVENUE,col=FY2024#2"),
        ("ambiguous_cell", "slide=1,table=1,row=REVENUE,col=FY2024#3"),
    ]
