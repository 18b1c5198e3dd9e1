"""A deterministic ACME demo corpus (pptx, xlsx, pdf, docx, md) with exact ground truth.

``generate_corpus(out_dir)`` writes the document set and ``out_dir/ground_truth.json`` and
returns the same data; ``generate_scaled_corpus(out_dir, n)`` writes ``n`` small canonical
decks and workbooks for the ingest throughput benchmark. The same code always writes the same
bytes (pinned document properties, fixed zip timestamps, reportlab ``invariant`` mode).

The ground truth is computed from the generation spec, not by reading the files back, with the
mapping rules the ingestion pipeline implements:

- R1 a header label maps when, after removing unit markers, punctuation and whitespace, profile
  aliases and period expressions cover it fully ("其他收入" does not map: "其他" is left over);
- R2 header rows / row-header columns are the leading rows / columns without a value cell; a
  column's header is its header cells joined top to bottom ("2025" merged over "Q2" -> "2025 Q2");
- R3 dimensions come from the cell's row ∪ column header, then the table title, the table's
  context and the document title; a first entity source naming two entities -> one
  ``ambiguous_entity`` review for the table; the channel defaults to TOTAL;
- R4 the first unit marker of row header, column header, title, context, then the cell's number
  format decides the unit (US$bn x1000, 人民币亿元 x100 -> CNY_M, a percent -> PCT); an amount
  whose cell is a percent -> ``unit_mismatch``;
- R5 "(45)" is -45, full-width digits parse, "—" is skipped, "约1,300" -> ``low_confidence``;
- R6 locators: pptx ``slide=S,table=T,row=<codes>,col=<codes>``, xlsx ``sheet=X,cell=B4``,
  pdf/docx/md ``<prefix>,row=R,col=C`` (1-based);
- R7 documents in sorted path order; a key stated earlier with another value -> ``conflict``;
- R8 an unmapped row or column label -> ``unmapped_label`` at the label cell, its values dropped;
- R9 sensitivity: the highest of the filename pattern (else INTERNAL), keywords and sidecar.

How the corpus avoids the rules' grey zones (so any faithful pipeline agrees): every table
names entity, period and metric in its headers or its title; unit markers sit in a header or
the title (workbook rows may have none and take the profile unit or the percent format); text
near a table whose channel must default to TOTAL never names a channel; corner cells (in a
header row *and* a label column) carry no label, at most a unit note.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragspine.demo import corpus_content as content
from ragspine.demo import corpus_shapes as shapes
from ragspine.demo.corpus_model import USD_M, Codes, Row, TableSpec, Val
from ragspine.demo.corpus_truth import (
    GROUND_TRUTH_NAME,
    DocSpec,
    DocumentTruth,
    FactTruth,
    GroundTruth,
    ReviewTruth,
    TrickyCase,
    compute_ground_truth,
    load_ground_truth,
)
from ragspine.demo.corpus_writers import (
    DeckSpec,
    FlowSpec,
    PdfSpec,
    SheetSpec,
    SlideSpec,
    WorkbookSpec,
    write_docx,
    write_md,
    write_pdf,
    write_pptx,
    write_xlsx,
)
from ragspine.ingestion.ocr import ocr_available

__all__ = [
    "GROUND_TRUTH_NAME",
    "SIDECARS",
    "CorpusDocument",
    "DocumentTruth",
    "FactTruth",
    "GroundTruth",
    "ReviewTruth",
    "TrickyCase",
    "demo_documents",
    "generate_corpus",
    "generate_scaled_corpus",
    "load_ground_truth",
]

DocumentSpec = DeckSpec | WorkbookSpec | PdfSpec | FlowSpec

# Sidecars: ``<file name>.meta.json`` may raise the level the other sensitivity rules give.
SIDECARS: dict[str, str] = dict(content.SIDECARS)


@dataclass(frozen=True)
class CorpusDocument:
    """One document of the demo corpus: where it goes, its spec and its sensitivity."""

    doc: str
    kind: str
    spec: DocumentSpec
    sensitivity: str

    def placed_tables(self, ocr: bool | None = None) -> DocSpec:
        """The document's tables and the review items raised outside them (a scanned page, a
        planted instruction); ``ocr``: whether scanned pages are read (by default, whether the
        ``ocr`` extra is installed)."""
        if ocr is None:
            ocr = ocr_available()
        spec = self.spec
        if isinstance(spec, FlowSpec):
            held = [
                ReviewTruth(self.doc, locator, "suspicious_instruction")
                for locator in spec.instruction_locators()
            ]
            return DocSpec(
                self.doc, self.kind, self.sensitivity, spec.placed_tables(self.kind), held
            )
        if isinstance(spec, PdfSpec):
            unread = [
                ReviewTruth(self.doc, f"page={p}", "needs_ocr") for p in spec.unread_pages(ocr)
            ]
            return DocSpec(self.doc, self.kind, self.sensitivity, spec.placed_tables(ocr), unread)
        return DocSpec(self.doc, self.kind, self.sensitivity, spec.placed_tables())

    def write(self, root: Path) -> None:
        path = root / self.doc
        spec = self.spec
        if isinstance(spec, DeckSpec):
            write_pptx(path, spec)
        elif isinstance(spec, WorkbookSpec):
            write_xlsx(path, spec)
        elif isinstance(spec, PdfSpec):
            write_pdf(path, spec)
        elif self.kind == "docx":
            write_docx(path, spec)
        else:
            write_md(path, spec)


def demo_documents() -> list[CorpusDocument]:
    """The demo corpus's documents, in sorted path order."""
    builders: list[tuple[str, str, Callable[[], DocumentSpec]]] = [
        (content.DECK_FY2024, "pptx", content.deck_fy2024),
        (content.DECK_FY2025, "pptx", content.deck_fy2025),
        (content.DECK_H1, "pptx", content.deck_h1),
        (content.DECK_Q3, "pptx", content.deck_q3),
        (content.WORKBOOK, "xlsx", content.workbook),
        (content.ANNUAL_REPORT, "pdf", content.annual_report),
        (content.HK_MEMO, "docx", content.hk_memo),
        (content.CN_MEMO, "md", content.cn_memo),
        (content.STRATEGY, "md", content.strategy_memo),
        (content.BOARD, "docx", content.board_minutes),
        (shapes.CHART_DECK, "pptx", shapes.chart_deck),
        (shapes.SUMMARY_BOOK, "xlsx", shapes.summary_book),
        (shapes.SUPPLEMENT, "pdf", shapes.supplement),
        (shapes.MACAU_REVIEW, "docx", shapes.macau_review),
    ]
    sensitivity = {**content.SENSITIVITY, **shapes.SENSITIVITY}
    documents = [
        CorpusDocument(doc, kind, build(), sensitivity[doc]) for doc, kind, build in builders
    ]
    return sorted(documents, key=lambda d: d.doc)


def generate_corpus(out_dir: Path, *, ocr: bool | None = None) -> GroundTruth:
    """Write the ACME demo corpus and its ``ground_truth.json`` into ``out_dir``.

    The files are the same either way; the ground truth depends on ``ocr``, whether ingestion
    will read scanned pages — by default, whether the ``ocr`` extra is installed. With it the
    scanned table's cells are facts; without it the page is a ``needs_ocr`` review item.
    """
    if ocr is None:
        ocr = ocr_available()
    root = Path(out_dir)
    documents = demo_documents()
    for document in documents:
        document.write(root)
    for doc, level in SIDECARS.items():
        sidecar = root / f"{doc}.meta.json"
        sidecar.write_text(json.dumps({"sensitivity": level}) + "\n", encoding="utf-8")
    specs = [document.placed_tables(ocr) for document in documents]
    tricky = (*content.TRICKY_CASES, *shapes.TRICKY_CASES)
    truth = compute_ground_truth(specs, tricky)
    (root / GROUND_TRUTH_NAME).write_text(truth.to_json(), encoding="utf-8")
    return truth


# --------------------------------------------------------------------------- scaled corpus

_SCALED_ENTITIES: tuple[tuple[str, str, str], ...] = (
    # code, slide title prefix, sheet name
    ("ACME_HK", "香港", "HK"),
    ("ACME_CN", "中国内地", "CN"),
    ("ACME_MO", "澳门", "Macau"),
    ("ACME_GROUP", "集团", "GROUP"),
)
_SCALED_METRICS: tuple[tuple[str, str, int], ...] = (
    ("REVENUE", "收入（百万美元）", 1000),
    ("OPERATING_PROFIT", "营运利润（百万美元）", 300),
    ("NET_PROFIT", "净利润（百万美元）", 240),
    ("NBV", "新业务价值（百万美元）", 400),
    ("EMBEDDED_VALUE", "内含价值（百万美元）", 9000),
)
_SCALED_GRAINS = ("FY", "H1", "Q3")


def _scaled_value(metric_index: int, entity_index: int, year: int, grain: str) -> float:
    """One value per key, so documents that repeat a key always agree (no conflicts)."""
    base = _SCALED_METRICS[metric_index][2]
    share = {"FY": 1.0, "H1": 0.5, "Q3": 0.25}[grain]
    return float(round((base + 37 * entity_index + 23 * (year - 2015)) * share))


def _scaled_table(index: int) -> tuple[TableSpec, str, str]:
    entity_index = index % len(_SCALED_ENTITIES)
    entity, title_prefix, sheet = _SCALED_ENTITIES[entity_index]
    grain = _SCALED_GRAINS[(index // 4) % len(_SCALED_GRAINS)]
    first_year = 2016 + (index * 7) % 8
    years = (first_year, first_year + 1, first_year + 2)
    periods = tuple(f"FY{y}" if grain == "FY" else f"{y}{grain}" for y in years)
    metric_indexes = [(index + k) % len(_SCALED_METRICS) for k in range(3)]
    rows = tuple(
        Row(
            (_SCALED_METRICS[m][1],),
            Codes(metric=_SCALED_METRICS[m][0]),
            tuple(Val(_scaled_value(m, entity_index, y, grain)) for y in years),
            unit=USD_M,
        )
        for m in metric_indexes
    )
    table = content.simple_table(f"{title_prefix}经营数据", Codes(entity=entity), periods, rows)
    return table, sheet, table.title


def scaled_documents(n_files: int) -> list[CorpusDocument]:
    documents: list[CorpusDocument] = []
    for i in range(1, n_files + 1):
        table, sheet, title = _scaled_table(i)
        if i % 2:
            spec: DocumentSpec = DeckSpec((SlideSpec(title, table=table),))
            doc, kind = f"decks/deck_{i:04d}.pptx", "pptx"
        else:
            renamed = TableSpec(
                title=sheet,
                title_codes=table.title_codes,
                header=table.header,
                columns=table.columns,
                rows=table.rows,
            )
            spec = WorkbookSpec((SheetSpec(sheet, renamed),))
            doc, kind = f"workbooks/book_{i:04d}.xlsx", "xlsx"
        documents.append(CorpusDocument(doc, kind, spec, "INTERNAL"))
    return documents


def generate_scaled_corpus(out_dir: Path, n_files: int) -> GroundTruth:
    """Write ``n_files`` small decks and workbooks (alternating) plus their ground truth."""
    if n_files < 0:
        raise ValueError("n_files must be >= 0")
    root = Path(out_dir)
    documents = scaled_documents(n_files)
    for document in documents:
        document.write(root)
    truth = compute_ground_truth([d.placed_tables() for d in documents])
    (root / GROUND_TRUTH_NAME).write_text(truth.to_json(), encoding="utf-8")
    return truth
