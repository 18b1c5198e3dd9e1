"""Read with its hidden content, a file's visible figures still stand: a figure a hidden sheet,
row, column, slide or Word cell states for a key the visible content states otherwise is set
aside and counted, never a fact nor a conflict it could win. Through the CLI and the facade.

Every file is built here with the format's own library; the expected facts are written out by
hand from what each file holds.
"""

from __future__ import annotations

from pathlib import Path

import docx
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.facade import RAGSpine
from ragspine.storage.facts import Fact
from ragspine.workspace import Workspace
from tests.hidden_workbook import HIDDEN_CELLS, HK, SET_ASIDE, VISIBLE, write_workbook

runner = CliRunner(env={"COLUMNS": "250"})


def facts(ws: Path) -> set[tuple[str, str, float, str, str]]:
    with RAGSpine.open(ws) as rag:
        return {
            (f.metric_code, f.period, f.value, f.review_status, f.extractor_version or "")
            for f in rag.store.list_facts()
        }


def review_reasons(ws: Path) -> list[tuple[str, str]]:
    with RAGSpine.open(ws) as rag:
        return [(i.locator, i.reason) for i in rag.store.list_review()]


def approved(ws: Path) -> set[tuple[str, str, float]]:
    return {(m, p, v) for m, p, v, s, _ in facts(ws) if s == "approved"}


def test_the_cli_reads_hidden_content_on_request_and_visible_figures_win(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    ws = tmp_path / "ws"
    skipped = runner.invoke(app, ["ingest", str(path), "--workspace", str(ws)])
    assert skipped.exit_code == 0, skipped.output
    assert f"hk.xlsx: {HIDDEN_CELLS} hidden cells skipped" in skipped.output
    assert approved(ws) == VISIBLE

    read = runner.invoke(app, ["ingest", str(path), "--workspace", str(ws), "--include-hidden"])
    assert read.exit_code == 0, read.output
    assert "hidden cells skipped" not in read.output
    assert f"{SET_ASIDE} hidden figures set aside" in read.output
    # The visible figures stand; the one key only the hidden draft states is a fact, recorded
    # as read from hidden content. Nothing hidden is held as a conflict a reviewer could pick.
    assert facts(ws) == {
        *((m, p, v, "approved", "4") for m, p, v in VISIBLE),
        ("REVENUE", "2026", 3000.0, "approved", "4+hidden"),
    }
    assert review_reasons(ws) == []
    listed = runner.invoke(app, ["documents", "list", "--workspace", str(ws)])
    assert listed.exit_code == 0, listed.output
    assert "hidden cells skipped" not in listed.output


def test_the_facade_counts_and_names_what_it_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "hk.xlsx"
    write_workbook(path)
    with RAGSpine.open(tmp_path / "ws", create=True) as rag:
        (result,) = rag.ingest(path, include_hidden=True).results
    assert (result.facts, result.review, result.hidden) == (5, 0, 0)
    (note,) = result.warnings
    assert note.startswith(f"{SET_ASIDE} hidden figures set aside: visible content states")
    assert "sheet=Draft,cell=B4" in note and "and 2 more" in note


MEMO_2026 = "# Hong Kong\n\n## Key figures FY2026\n\n| | US$m |\n|---|---|\n| Revenue | 3,100 |\n"


def revenue_2026(ws: Path) -> list[Fact]:
    with RAGSpine.open(ws) as rag:
        return [
            f for f in rag.store.list_facts() if (f.metric_code, f.period) == ("REVENUE", "2026")
        ]


def test_a_hidden_figure_never_holds_back_another_documents_visible_one(tmp_path: Path) -> None:
    book, memo = tmp_path / "hk.xlsx", tmp_path / "memo.md"
    write_workbook(book)
    memo.write_text(MEMO_2026, encoding="utf-8")
    ws = tmp_path / "ws"
    with RAGSpine.open(ws, create=True) as rag:
        rag.ingest(book, include_hidden=True)
        (result,) = rag.ingest(memo).results
    # The memo's visible 3,100 is stored beside the draft's hidden 3,000, not held back as a
    # conflict; answers take the newer statement, the memo's.
    assert (result.facts, result.review) == (1, 0)
    stated = {(f.source_doc_id, f.value, f.review_status) for f in revenue_2026(ws)}
    assert stated == {("hk.xlsx", 3000.0, "approved"), ("memo.md", 3100.0, "approved")}
    with RAGSpine.open(ws) as rag:
        shown = rag.store.get_fact("REVENUE", "ACME_HK", "FY", "2026")
    assert shown is not None and shown.value == 3100.0
    assert review_reasons(ws) == []


def test_another_documents_visible_figure_sets_a_hidden_one_aside(tmp_path: Path) -> None:
    book, memo = tmp_path / "hk.xlsx", tmp_path / "memo.md"
    write_workbook(book)
    memo.write_text(MEMO_2026, encoding="utf-8")
    ws = tmp_path / "ws"
    with RAGSpine.open(ws, create=True) as rag:
        rag.ingest(memo)
        (result,) = rag.ingest(book, include_hidden=True).results
    assert result.facts == 4 and result.review == 0
    assert result.warnings[0].startswith(f"{SET_ASIDE + 1} hidden figures set aside")
    stated = {(f.source_doc_id, f.value) for f in revenue_2026(ws)}
    assert stated == {("memo.md", 3100.0)}
    assert review_reasons(ws) == []


def test_two_hidden_statements_still_conflict_for_a_reviewer(tmp_path: Path) -> None:
    """Where no visible content states the key, hidden figures are checked as any others."""
    path = tmp_path / "drafts.xlsx"
    book = Workbook()
    for title, value in (("Draft A", 3000), ("Draft B", 3050)):
        sheet = book.create_sheet(title)
        sheet["A1"] = HK
        sheet["A3"], sheet["B3"] = "Metric", "FY2026"
        sheet["A4"], sheet["B4"] = "Revenue", value
        sheet.sheet_state = "hidden"
    shown = book.worksheets[0]
    shown["A1"] = "Notes only"
    book.save(path)
    ws = tmp_path / "ws"
    with RAGSpine.open(ws, create=True) as rag:
        (result,) = rag.ingest(path, include_hidden=True).results
    assert (result.facts, result.review) == (1, 1)
    assert review_reasons(ws) == [("sheet=Draft B,cell=B4", "conflict")]


def test_a_hidden_slide_and_a_hidden_word_cell_lose_to_visible_ones(tmp_path: Path) -> None:
    deck = Presentation()
    layout = deck.slide_layouts[5]  # title only
    for number, value in ((1, "9,999"), (2, "2,710")):
        slide = deck.slides.add_slide(layout)
        assert slide.shapes.title is not None
        slide.shapes.title.text = HK
        grid = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
        grid.cell(0, 1).text = "FY2025"
        grid.cell(1, 0).text = "Revenue"
        grid.cell(1, 1).text = value
        if number == 1:
            slide._element.set("show", "0")  # the hidden draft comes first
    deck.save(str(tmp_path / "deck.pptx"))
    memo = docx.Document()
    memo.add_heading(HK, level=1)
    table = memo.add_table(rows=3, cols=2)
    table.cell(0, 1).text = "FY2025"
    table.cell(1, 0).text = "Net profit"
    table.cell(1, 1).paragraphs[0].add_run("4,444").font.hidden = True
    table.cell(2, 0).text = "Net profit"
    table.cell(2, 1).text = "547"
    memo.save(str(tmp_path / "memo.docx"))

    ws = tmp_path / "ws"
    Workspace.create(ws)
    with RAGSpine.open(ws) as rag:
        report = rag.ingest(tmp_path / "deck.pptx", tmp_path / "memo.docx", include_hidden=True)
    notes = {r.doc_id: r.warnings for r in report.results}
    assert notes["deck.pptx"][0].startswith("1 hidden figure set aside")
    assert notes["memo.docx"][0].startswith("1 hidden figure set aside")
    assert approved(ws) == {("REVENUE", "2025", 2710.0), ("NET_PROFIT", "2025", 547.0)}
    assert review_reasons(ws) == []
