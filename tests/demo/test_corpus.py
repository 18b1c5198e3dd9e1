"""The demo corpus generator: deterministic bytes, files that open, locators that point at the
numbers they claim, and a ground truth whose every entry follows from the mapping rules.

The "spec vs profile" tests re-check the generator's declarations against the ACME profile
(alias coverage of every header label, what each title names, no channel word near a table
whose channel must default to TOTAL, the sensitivity rule of each document), so a typo in the
corpus cannot silently put a wrong expectation into the ground truth.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import docx
import pdfplumber
import pytest
from openpyxl import load_workbook  # type: ignore[import-untyped, unused-ignore]
from pptx import Presentation

from ragspine.demo import corpus_content as content
from ragspine.demo import corpus_shapes as shapes
from ragspine.demo.corpus import (
    GROUND_TRUTH_NAME,
    SIDECARS,
    CorpusDocument,
    GroundTruth,
    demo_documents,
    generate_corpus,
    generate_scaled_corpus,
    load_ground_truth,
)
from ragspine.demo.corpus_model import (
    METRIC_UNITS,
    REVIEW_REASONS,
    Codes,
    PlacedTable,
    TableSpec,
)
from ragspine.demo.corpus_writers import DeckSpec, FlowSpec, PdfSpec, TableBlock, WorkbookSpec
from ragspine.profile.matching import mask
from ragspine.profile.periods import find_periods
from tests.profiles import acme, acme_glossary

KINDS = {"pptx", "xlsx", "pdf", "docx", "md"}
UNITS = {"USD_M", "CNY_M", "PCT", "COUNT"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    root = tmp_path_factory.mktemp("corpus")
    return root, generate_corpus(root, ocr=True)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- determinism


def test_generation_is_byte_for_byte_deterministic(
    corpus: tuple[Path, GroundTruth], tmp_path: Path
) -> None:
    root, truth = corpus
    again = generate_corpus(tmp_path, ocr=True)
    first, second = _files(root), _files(tmp_path)
    assert sorted(first) == sorted(second)
    for name in first:
        assert first[name] == second[name], name
    assert again == truth


def test_ground_truth_json_matches_the_returned_data(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    assert load_ground_truth(root) == truth
    raw = json.loads((root / GROUND_TRUTH_NAME).read_text(encoding="utf-8"))
    assert raw["version"] == 1
    fact = raw["facts"][0]
    assert set(fact) == {
        "metric_code",
        "entity",
        "channel",
        "period_type",
        "period",
        "value",
        "unit",
        "doc",
        "locator",
        "sensitivity",
    }


# --------------------------------------------------------------------------- the corpus


def test_the_corpus_holds_the_documents_the_demo_needs(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    docs = {d.doc: d for d in truth.documents}
    assert set(docs) == {
        "decks/ACME_FY2024_Review.pptx",
        "decks/ACME_FY2025_Review.pptx",
        "decks/ACME_2025H1_Results.pptx",
        "decks/ACME_2025Q3_Update.pptx",
        "workbooks/ACME_5Y_Financials.xlsx",
        "reports/ACME_annual_report_2025.pdf",
        "memos/HK_Regulatory_Memo.docx",
        "memos/CN_Regulation_Update.md",
        "memos/Strategy_2026.md",
        "memos/board_minutes_2025.docx",
        "decks/ACME_FY2020_Charts.pptx",
        "workbooks/ACME_Macau_Summary.xlsx",
        "reports/ACME_2020_Supplement.pdf",
        "memos/MO_Review_2020.docx",
    }
    for doc in docs.values():
        assert (root / doc.doc).is_file()
        assert doc.kind == Path(doc.doc).suffix[1:]
    assert docs["reports/ACME_annual_report_2025.pdf"].sensitivity == "PUBLIC"
    assert docs["memos/board_minutes_2025.docx"].sensitivity == "RESTRICTED"
    sidecar = json.loads((root / "memos/Strategy_2026.md.meta.json").read_text(encoding="utf-8"))
    assert sidecar == {"sensitivity": "CONFIDENTIAL"}
    assert 80 <= len(truth.facts) <= 250


def test_the_anchor_fact_of_the_brief(corpus: tuple[Path, GroundTruth]) -> None:
    _, truth = corpus
    fact = truth.fact_at("decks/ACME_FY2024_Review.pptx", "slide=2,table=1,row=REVENUE,col=FY2024")
    assert fact is not None
    assert (fact.metric_code, fact.entity, fact.channel, fact.period_type, fact.period) == (
        "REVENUE",
        "ACME_CN",
        "TOTAL",
        "FY",
        "2024",
    )
    assert (fact.value, fact.unit, fact.sensitivity) == (1320.0, "USD_M", "INTERNAL")


def test_every_tricky_outcome_is_in_the_ground_truth(corpus: tuple[Path, GroundTruth]) -> None:
    _, truth = corpus
    reviews = {(r.doc, r.locator): r for r in truth.review_items}

    def fact(doc: str, locator: str) -> tuple[str, str, str, str, float, str]:
        found = truth.fact_at(doc, locator)
        assert found is not None, (doc, locator)
        period = (
            f"FY{found.period}" if found.period_type == "FY" else found.period + found.period_type
        )
        return (found.metric_code, found.entity, found.channel, period, found.value, found.unit)

    assert reviews[(content.DECK_FY2024, "slide=2,table=1,row=4,col=1")].reason == "unmapped_label"
    assert reviews[(content.DECK_FY2024, "slide=5,table=1")].reason == "ambiguous_entity"
    assert not [f for f in truth.facts_of(content.DECK_FY2024) if "slide=5," in f.locator]
    conflict = reviews[(content.DECK_FY2025, "slide=2,table=1,row=REVENUE,col=FY2024")]
    assert conflict.reason == "conflict"
    assert fact(content.DECK_FY2024, "slide=3,table=1,row=REVENUE,col=FY2024")[4] == 2850.0
    assert reviews[(content.DECK_FY2025, "slide=2,table=1,row=3,col=1")].reason == "unmapped_label"
    low = reviews[(content.DECK_Q3, "slide=2,table=1,row=REVENUE/ACME_GROUP,col=2025Q3")]
    assert (low.reason, low.value) == ("low_confidence", 1300.0)
    assert reviews[(content.WORKBOOK, "sheet=Macau,cell=B2")].reason == "unit_mismatch"
    assert reviews[(content.ANNUAL_REPORT, "page=4")].reason == "needs_ocr"
    assert not [r for r in reviews.values() if r.reason == "suspicious_instruction"]
    assert len(truth.review_items) == 7

    assert fact(content.DECK_H1, "slide=2,table=1,row=2025H1,col=REVENUE") == (
        "REVENUE",
        "ACME_HK",
        "TOTAL",
        "2025H1",
        1512.0,
        "USD_M",
    )
    assert fact(content.DECK_Q3, "slide=2,table=1,row=REVENUE/ACME_HK,col=2025Q2")[3] == "2025Q2"
    assert fact(content.DECK_Q3, "slide=2,table=1,row=NBV/ACME_CN,col=2025Q3")[4] == 127.0
    assert truth.fact_at(content.DECK_Q3, "slide=2,table=1,row=NBV/ACME_CN,col=2024Q3") is None
    assert fact(content.DECK_FY2024, "slide=6,table=1,row=NET_PROFIT,col=FY2023")[4] == -45.0
    assert fact(content.DECK_FY2025, "slide=4,table=1,row=ACME_MO,col=FY2025")[:2] == (
        "OPERATING_PROFIT",
        "ACME_MO",
    )
    assert fact(content.DECK_FY2025, "slide=5,table=1,row=NBV/AGENCY,col=FY2025")[2] == "AGENCY"
    assert fact(content.DECK_FY2025, "slide=6,table=1,row=NET_PROFIT,col=FY2025")[1] == "ACME_HK"
    assert fact(content.WORKBOOK, "sheet=HK,cell=E5")[4:] == (57.4, "PCT")
    assert fact(content.WORKBOOK, "sheet=HK,cell=E7")[4:] == (13240.0, "COUNT")
    assert fact(content.ANNUAL_REPORT, "page=2,table=1,row=5,col=2")[4:] == (12500.0, "USD_M")
    assert fact(content.HK_MEMO, "table=1,row=2,col=3")[4] == 750.0
    assert fact(content.CN_MEMO, "section=3,table=1,row=2,col=2")[2:] == (
        "AGENCY",
        "2024H1",
        1050.0,
        "CNY_M",
    )
    board = truth.facts_of(content.BOARD)
    assert board and {f.sensitivity for f in board} == {"RESTRICTED"}
    group_nbv = [f for f in truth.facts if f.metric_code == "NBV" and f.entity == "ACME_GROUP"]
    assert {f.doc for f in group_nbv} == {content.BOARD}


def test_tricky_cases_point_at_listed_documents_and_outcomes(
    corpus: tuple[Path, GroundTruth],
) -> None:
    _, truth = corpus
    docs = {d.doc for d in truth.documents}
    fact_locators = {(f.doc, f.locator) for f in truth.facts}
    review_locators = {(r.doc, r.locator) for r in truth.review_items}
    silent = {  # cases whose point is that nothing comes out of that cell
        (content.DECK_FY2024, "slide=2,table=1,row=1,col=4"),
        (content.DECK_Q3, "slide=2,table=1,row=NBV/ACME_CN,col=2024Q3"),
        (content.WORKBOOK, "sheet=GROUP,cell=A1"),
    }
    assert len(truth.tricky_cases) >= 10
    for case in truth.tricky_cases:
        assert case.doc in docs
        where = (case.doc, case.locator)
        if where in silent:
            assert where not in fact_locators and where not in review_locators
        elif case.locator != "document":
            assert where in fact_locators or where in review_locators, case.name


# --------------------------------------------------------------------------- consistency


def _check_consistency(truth: GroundTruth, root: Path) -> None:
    docs = {d.doc: d for d in truth.documents}
    assert len(docs) == len(truth.documents)
    for doc in docs.values():
        assert doc.kind in KINDS
        assert (root / doc.doc).is_file()
    keys = Counter((f.doc, f.key) for f in truth.facts)
    assert not [k for k, n in keys.items() if n > 1], "duplicate fact keys within a document"
    locators = Counter((f.doc, f.locator) for f in truth.facts)
    assert not [k for k, n in locators.items() if n > 1], "two facts at one locator"
    values: dict[tuple[str, ...], set[float]] = {}
    for f in truth.facts:
        assert f.doc in docs
        assert f.sensitivity == docs[f.doc].sensitivity
        assert f.unit in UNITS
        assert f.metric_code in METRIC_UNITS
        assert f.period_type in {"FY", "H1", "H2", "Q1", "Q2", "Q3", "Q4"}
        assert re.fullmatch(r"(19|20)\d\d", f.period)
        if METRIC_UNITS[f.metric_code][1] == "ratio":
            assert f.unit == "PCT"
        values.setdefault(f.key, set()).add(f.value)
    # Facts never disagree: a disagreement is a conflict review, not a second fact.
    assert not [k for k, v in values.items() if len(v) > 1]
    for r in truth.review_items:
        assert r.doc in docs
        assert r.reason in REVIEW_REASONS
        assert r.locator


def test_ground_truth_is_internally_consistent(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    _check_consistency(truth, root)
    assert [d.doc for d in truth.documents] == sorted(d.doc for d in truth.documents)


def test_metric_units_mirror_the_profile() -> None:
    profile = acme()
    assert {m.code: (m.unit, m.kind) for m in profile.metrics} == METRIC_UNITS


# --------------------------------------------------------------------------- files hold it


def _number(text: str) -> float:
    """A test-side reading of a displayed number: "(45)", "１，３２０", "57.4%", "12.5"."""
    text = text.translate({0xFF10 + i: str(i) for i in range(10)}).replace("，", ",")
    text = text.strip().rstrip("%").replace(",", "")
    negative = text.startswith("(") and text.endswith(")")
    value = float(text.strip("()"))
    return -value if negative else value


def _scale(row_label: str, col_label: str) -> float:
    labels = row_label + " " + col_label
    if "US$bn" in labels:
        return 1000.0
    if "亿元" in labels:
        return 100.0
    return 1.0


def _placed(document: CorpusDocument) -> dict[str, PlacedTable]:
    return {p.prefix: p for p in document.placed_tables().tables}


def _semantic_position(table: TableSpec, row_key: str, col_key: str) -> tuple[int, int]:
    rows = [i for i, r in enumerate(table.rows) if r.codes is not None and r.codes.key() == row_key]
    cols = [
        j for j, c in enumerate(table.columns) if c.codes is not None and c.codes.key() == col_key
    ]
    assert len(rows) == 1 and len(cols) == 1, (row_key, col_key)
    return len(table.header) + rows[0], table.n_label_cols + cols[0]


def test_pptx_cells_hold_the_ground_truth_numbers(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    for document in demo_documents():
        if document.kind != "pptx":
            continue
        deck = Presentation(str(root / document.doc))
        assert isinstance(document.spec, DeckSpec)
        assert len(deck.slides) == len(document.spec.slides)
        placed = _placed(document)
        facts = truth.facts_of(document.doc)
        assert facts
        for fact in facts:
            if ",chart=" in fact.locator:
                _check_chart_value(deck, fact.locator, fact.value)
                continue
            found = re.fullmatch(r"(slide=(\d+),table=(\d+)),row=([^,]+),col=([^,]+)", fact.locator)
            assert found, fact.locator
            prefix, slide_no, table_no, row_key, col_key = found.groups()
            frames = [s for s in deck.slides[int(slide_no) - 1].shapes if s.has_table]
            table = frames[int(table_no) - 1].table
            r, c = _semantic_position(placed[prefix].spec, row_key, col_key)
            text = table.cell(r, c).text
            assert text == placed[prefix].spec.grid_text()[r][c]
            assert _number(text) == pytest.approx(fact.value), fact.locator


def _check_chart_value(deck: Any, locator: str, value: float) -> None:
    """The number stored in the chart under the named series and category."""
    found = re.fullmatch(r"slide=(\d+),chart=(\d+),series=([^,]+),category=([^,]+)", locator)
    assert found, locator
    slide_no, chart_no, series_name, category = found.groups()
    charts = [s.chart for s in deck.slides[int(slide_no) - 1].shapes if s.has_chart]
    plot = charts[int(chart_no) - 1].plots[0]
    [series] = [s for s in plot.series if s.name == series_name]
    assert dict(zip(plot.categories, series.values, strict=True))[category] == value, locator


def test_the_chart_slide_has_no_table_and_a_titled_chart(
    corpus: tuple[Path, GroundTruth],
) -> None:
    root, truth = corpus
    slide = Presentation(str(root / shapes.CHART_DECK)).slides[1]
    assert not [s for s in slide.shapes if s.has_table]
    [chart] = [s.chart for s in slide.shapes if s.has_chart]
    assert chart.chart_title.text_frame.text == "ACME集团主要数据（百万美元）"
    assert len(truth.facts_of(shapes.CHART_DECK)) == 4


def test_xlsx_cells_hold_the_ground_truth_numbers(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    book = load_workbook(root / content.WORKBOOK, data_only=True)
    assert book.sheetnames == ["GROUP", "HK", "CN", "Macau", "HK_Channels"]
    facts = truth.facts_of(content.WORKBOOK)
    assert len(facts) > 50
    for fact in facts:
        found = re.fullmatch(r"sheet=([^,]+),cell=([A-Z]+\d+)", fact.locator)
        assert found, fact.locator
        cell = book[found[1]][found[2]]
        value = float(cell.value) * (100 if "%" in cell.number_format else 1)
        assert value == pytest.approx(fact.value), fact.locator
    mismatch = book["Macau"]["B2"]
    assert mismatch.number_format == "0.0%" and book["Macau"]["A2"].value == "收入"


def test_the_summary_sheet_names_its_entity_only_in_a1(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    sheet = load_workbook(root / shapes.SUMMARY_BOOK)["Summary"]
    assert sheet["A1"].value == "ACME Macau — summary (US$m)"
    assert [sheet.cell(2, c).value for c in (2, 3)] == ["FY2019", "FY2020"]
    facts = truth.facts_of(shapes.SUMMARY_BOOK)
    assert len(facts) == 4 and {f.entity for f in facts} == {"ACME_MO"}
    for fact in facts:
        ref = fact.locator.removeprefix("sheet=Summary,cell=")
        assert sheet[ref].value == fact.value, fact.locator


def _grid_facts(truth: GroundTruth, doc: str) -> list[tuple[str, int, int, float]]:
    out = []
    for fact in truth.facts_of(doc):
        found = re.fullmatch(r"(.+),row=(\d+),col=(\d+)", fact.locator)
        assert found, fact.locator
        out.append((found[1], int(found[2]) - 1, int(found[3]) - 1, fact.value))
    return out


def _check_grid(grid: list[list[str]], r: int, c: int, value: float) -> None:
    scale = _scale(grid[r][0], grid[0][c])
    assert _number(grid[r][c]) * scale == pytest.approx(value), (grid[r], grid[0][c])


def test_pdf_report_tables_text_and_scanned_page(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    with pdfplumber.open(root / content.ANNUAL_REPORT) as pdf:
        assert len(pdf.pages) == 4
        first_line = pdf.pages[0].extract_text().splitlines()[0]
        assert first_line == "ACME Group Annual Report 2025"
        assert "代理人渠道" in pdf.pages[2].extract_text()
        assert not pdf.pages[3].chars and pdf.pages[3].images
        page_text = pdf.pages[1].extract_text().splitlines()
        caption = page_text.index("Table 1: Hong Kong key figures (US$m unless stated)")
        assert page_text[caption + 1].startswith("FY2024")  # the caption sits right above
        facts = _grid_facts(truth, content.ANNUAL_REPORT)
        assert len(facts) == 8
        for prefix, r, c, value in facts:
            page, table = map(int, re.findall(r"\d+", prefix))
            grid = pdf.pages[page - 1].extract_tables()[table - 1]
            _check_grid([[cell or "" for cell in row] for row in grid], r, c, value)


def test_docx_tables_hold_the_ground_truth_numbers(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    for doc in (content.HK_MEMO, content.BOARD):
        document = docx.Document(str(root / doc))
        assert document.paragraphs[0].style is not None
        assert document.paragraphs[0].style.name == "Heading 1"
        facts = _grid_facts(truth, doc)
        assert facts
        for prefix, r, c, value in facts:
            table = document.tables[int(prefix.removeprefix("table=")) - 1]
            grid = [[cell.text for cell in row.cells] for row in table.rows]
            _check_grid(grid, r, c, value)
    memo_text = "\n".join(p.text for p in docx.Document(str(root / content.HK_MEMO)).paragraphs)
    assert "strictly confidential" in memo_text
    board_text = "\n".join(p.text for p in docx.Document(str(root / content.BOARD)).paragraphs)
    assert "董事会决议" in board_text


def test_markdown_table_holds_the_ground_truth_numbers(corpus: tuple[Path, GroundTruth]) -> None:
    root, truth = corpus
    lines = (root / content.CN_MEMO).read_text(encoding="utf-8").splitlines()
    headings = 0
    sections: dict[int, list[list[str]]] = {}
    for line in lines:
        if line.startswith("#"):
            headings += 1
        elif line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            sections.setdefault(headings, []).append(cells)
    facts = _grid_facts(truth, content.CN_MEMO)
    assert len(facts) == 6
    for prefix, r, c, value in facts:
        section = int(re.findall(r"\d+", prefix)[0])
        _check_grid(sections[section], r, c, value)
    strategy = (root / content.STRATEGY).read_text(encoding="utf-8")
    assert strategy.startswith("# ACME Group Strategy 2026")


# --------------------------------------------------------------------------- spec vs profile

_UNIT_MARKERS = re.compile(
    r"单位[:：]\S*|US\$\s?m(?:illion)?\b|USD\s?m\b|US\$bn|US\$'000|人民币亿元|十亿美元|亿元|"
    r"百万美元|美元百万|千美元|bps|基点|%"
)
_REFERENCE_DAY = date(2025, 12, 31)


def _named(text: str) -> dict[str, set[str]]:
    """What a title/context names by substring: entities, metrics, channels, periods."""
    glossary = acme_glossary()
    competitor_spans = [(h.start, h.end) for h in glossary.competitors.finditer(text)]
    text = mask(text, competitor_spans)
    named: dict[str, set[str]] = {"entity": set(), "metric": set(), "channel": set()}
    hits = list(glossary.terms.finditer(text))
    for i, hit in enumerate(hits):
        home_then_region = (
            hit.code == "ACME_GROUP"
            and i + 1 < len(hits)
            and hits[i + 1].kind == "entity"
            and not text[hit.end : hits[i + 1].start].strip()
        )
        if not home_then_region:
            named[hit.kind].add(hit.code)
    named["period"] = {m.period.label for m in find_periods(text, _REFERENCE_DAY)}
    return named


def _label_codes(label: str) -> Codes | None:
    """Codes of a header label under full coverage (R1), or None when something is left."""
    glossary = acme_glossary()
    text = _UNIT_MARKERS.sub(" ", label)
    found: dict[str, str] = {}
    spans = []
    for hit in glossary.terms.finditer(text):
        assert found.setdefault(hit.kind, hit.code) == hit.code, label
        spans.append((hit.start, hit.end))
    text = mask(text, spans)
    periods = find_periods(text, _REFERENCE_DAY)
    assert len(periods) <= 1, label
    text = mask(text, [(m.start, m.end) for m in periods])
    if re.sub(r"[\W_]", "", text):
        return None
    return Codes(
        period=periods[0].period.label if periods else None,
        metric=found.get("metric"),
        entity=found.get("entity"),
        channel=found.get("channel"),
    )


def _single(named: set[str]) -> str | None:
    assert len(named) <= 1, named
    return next(iter(named), None)


def _all_tables(documents: list[CorpusDocument]) -> list[tuple[CorpusDocument, PlacedTable]]:
    return [(d, p) for d in documents for p in d.placed_tables().tables]


def _check_table_against_profile(table: TableSpec) -> None:
    for row in table.rows:
        assert _label_codes(" ".join(label for label in row.labels if label)) == row.codes
    for j, column in enumerate(table.columns):
        if column.codes is None:
            continue
        c = table.n_label_cols + j
        header = " ".join(r[c] for r in table.header if r[c])
        if column.relative:
            _check_relative_header(table, header, column.codes)
            continue
        assert _label_codes(header) == column.codes, header
    named = _named(table.title)
    if table.ambiguous:
        assert len(named["entity"]) >= 2
        assert not any(r.codes and r.codes.entity for r in table.rows)
        return
    declared = Codes(
        period=_single(named["period"]),
        metric=_single(named["metric"]),
        entity=_single(named["entity"]),
        channel=_single(named["channel"]),
    )
    assert declared == table.title_codes, table.title


def _check_relative_header(table: TableSpec, header: str, codes: Codes) -> None:
    """ "本年"/"上年" resolve against the period the title or context names, not today."""
    anchor = table.title_codes.period or table.context_codes.period
    named = _label_codes(header)  # resolved against the reference day's year
    assert anchor and named and named.period and named.period.startswith("FY"), header
    years_back = _REFERENCE_DAY.year - int(named.period.removeprefix("FY"))
    assert codes == Codes(period=f"FY{int(anchor.removeprefix('FY')) - years_back}"), header


def test_every_header_label_and_title_maps_as_declared() -> None:
    tables = _all_tables(demo_documents())
    assert len(tables) >= 15
    for _, placed in tables:
        _check_table_against_profile(placed.spec)


def _context_text(document: CorpusDocument, placed: PlacedTable) -> str:
    """Generously everything near a table: the whole slide (notes too), page or document."""
    spec = document.spec
    if isinstance(spec, DeckSpec):
        slide = spec.slides[int(placed.prefix.split(",")[0].removeprefix("slide=")) - 1]
        return "\n".join((*slide.body, slide.notes, spec.slides[0].title))
    if isinstance(spec, PdfSpec):
        page = int(placed.prefix.split(",")[0].removeprefix("page="))
        return spec.page_text(page) + "\n" + spec.title
    if isinstance(spec, WorkbookSpec):
        return ""
    assert isinstance(spec, FlowSpec)
    return spec.all_text()


def test_text_near_a_table_never_names_the_channel_it_must_default() -> None:
    for document, placed in _all_tables(demo_documents()):
        table = placed.spec
        defaults_channel = any(
            r.codes is not None
            and c.codes is not None
            and not r.codes.union(c.codes).fill(table.title_codes).channel
            for r in table.rows
            for c in table.columns
        )
        if table.ambiguous or not defaults_channel:
            continue
        named = _named(_context_text(document, placed))["channel"] - {"TOTAL"}
        assert not named, (document.doc, placed.prefix, named)


def test_context_names_what_the_spec_leaves_to_it() -> None:
    """A table whose entity or period comes from around it (page header, headings): the text
    there names exactly that, and the title does not."""
    with_context = [
        (d, p) for d, p in _all_tables(demo_documents()) if p.spec.context_codes != Codes()
    ]
    assert with_context
    for document, placed in with_context:
        table = placed.spec
        spec = document.spec
        assert isinstance(spec, FlowSpec)  # the only kind that leaves dimensions to context
        around = [spec.page_header, *(b.text for b in spec.blocks if not isinstance(b, TableBlock))]
        named = _named("\n".join(around))
        for dimension in ("entity", "period"):
            declared = getattr(table.context_codes, dimension)
            if declared:
                assert named[dimension] == {declared}, (document.doc, dimension)
                assert not getattr(table.title_codes, dimension)


def test_each_document_sensitivity_follows_the_rules() -> None:
    """Re-derived by hand: the highest matching file-name rule (else the default), raised by
    any keyword in the text, raised again by a sidecar — never lowered."""
    profile = acme()
    rules = profile.sensitivity
    rank = {"PUBLIC": 0, "INTERNAL": 1, "CONFIDENTIAL": 2, "RESTRICTED": 3}
    for document in demo_documents():
        name = Path(document.doc).name
        named = [r.level for r in rules.filename_rules if fnmatch.fnmatch(name.lower(), r.pattern)]
        text = document.spec.all_text()
        levels = [
            max(named, key=lambda level: rank[level]) if named else rules.default,
            *(r.level for r in rules.keyword_rules if r.keyword in text),
            *([SIDECARS[document.doc]] if document.doc in SIDECARS else []),
        ]
        expected = max(levels, key=lambda level: rank[level])
        assert document.sensitivity == expected, document.doc


# --------------------------------------------------------------------------- scaled corpus


def test_scaled_corpus_of_20_files(tmp_path: Path) -> None:
    truth = generate_scaled_corpus(tmp_path, 20)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.*"))
    documents = [d.doc for d in truth.documents]
    assert len(documents) == 20
    assert written == sorted([*documents, GROUND_TRUTH_NAME])
    kinds = [Path(d).suffix for d in sorted(documents, key=lambda d: d.split("_")[-1])]
    assert kinds == [".pptx", ".xlsx"] * 10  # alternating, by file number
    assert load_ground_truth(tmp_path) == truth
    _check_consistency(truth, tmp_path)
    assert not truth.review_items
    assert Counter(f.doc for f in truth.facts) == dict.fromkeys(documents, 9)
    assert {f.entity for f in truth.facts} == {"ACME_HK", "ACME_CN", "ACME_MO", "ACME_GROUP"}
    assert {f.period_type for f in truth.facts} >= {"FY", "H1", "Q3"}

    deck_fact = next(f for f in truth.facts if f.doc.endswith(".pptx"))
    deck = Presentation(str(tmp_path / deck_fact.doc))
    table = next(s for s in deck.slides[0].shapes if s.has_table).table
    row_key, col_key = re.findall(r"(?:row|col)=([^,]+)", deck_fact.locator)
    cells = [[table.cell(r, c).text for c in range(4)] for r in range(4)]
    r = next(i for i, row in enumerate(cells) if _label_codes(row[0]) == Codes(metric=row_key))
    c = next(j for j, text in enumerate(cells[0]) if _label_codes(text) == Codes(period=col_key))
    assert _number(cells[r][c]) == deck_fact.value

    book_fact = next(f for f in truth.facts if f.doc.endswith(".xlsx"))
    located = re.fullmatch(r"sheet=([^,]+),cell=(\w+)", book_fact.locator)
    assert located is not None
    sheet, ref = located.groups()
    assert load_workbook(tmp_path / book_fact.doc)[sheet][ref].value == book_fact.value


def test_scaled_tables_map_as_declared() -> None:
    from ragspine.demo.corpus import scaled_documents

    for _, placed in _all_tables(scaled_documents(12)):
        _check_table_against_profile(placed.spec)
