"""The demo corpus's ground truth: its records, and how they follow from the table specs.

``compute_ground_truth`` applies the mapping rules (see ``corpus.py``) to each document's
placed tables — no document is read back — and the records round-trip through
``ground_truth.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragspine.demo.corpus_model import METRIC_UNITS, Column, PlacedTable, Row, Val

GROUND_TRUTH_VERSION = 1
GROUND_TRUTH_NAME = "ground_truth.json"

DEFAULT_CHANNEL = "TOTAL"


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class DocumentTruth:
    doc: str
    sensitivity: str
    kind: str


@dataclass(frozen=True)
class FactTruth:
    metric_code: str
    entity: str
    channel: str
    period_type: str
    period: str
    value: float
    unit: str
    doc: str
    locator: str
    sensitivity: str

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The natural key (metric, entity, period type, period, channel)."""
        return (self.metric_code, self.entity, self.period_type, self.period, self.channel)


@dataclass(frozen=True)
class ReviewTruth:
    doc: str
    locator: str
    reason: str
    value: float | None = None  # the parsed value, for ``low_confidence``


@dataclass(frozen=True)
class TrickyCase:
    name: str
    doc: str
    locator: str
    note: str


@dataclass(frozen=True)
class GroundTruth:
    version: int
    documents: tuple[DocumentTruth, ...]
    facts: tuple[FactTruth, ...]
    review_items: tuple[ReviewTruth, ...]
    tricky_cases: tuple[TrickyCase, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "documents": [asdict(d) for d in self.documents],
            "facts": [asdict(f) for f in self.facts],
            "review_items": [asdict(r) for r in self.review_items],
            "tricky_cases": [asdict(t) for t in self.tricky_cases],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroundTruth:
        return cls(
            version=int(data["version"]),
            documents=tuple(DocumentTruth(**d) for d in data["documents"]),
            facts=tuple(FactTruth(**f) for f in data["facts"]),
            review_items=tuple(ReviewTruth(**r) for r in data["review_items"]),
            tricky_cases=tuple(TrickyCase(**t) for t in data.get("tricky_cases", ())),
        )

    def facts_of(self, doc: str) -> list[FactTruth]:
        return [f for f in self.facts if f.doc == doc]

    def fact_at(self, doc: str, locator: str) -> FactTruth | None:
        return next((f for f in self.facts if f.doc == doc and f.locator == locator), None)


_OCR_SCORE = re.compile(r",confidence=[0-9.]+$")


def truth_locator(stored: str) -> str:
    """A stored locator as the ground truth states it: without the OCR engine's score.

    An OCR'd value's locator ends with the engine's score for the cell
    (``page=3,extraction=ocr,table=1,row=2,col=2,confidence=0.97``). The spec cannot know that
    score, only that the value was read — one scored under the threshold would be a
    ``low_confidence`` review item, not a fact — so comparisons drop it.
    """
    return _OCR_SCORE.sub("", stored)


def load_ground_truth(path: str | Path) -> GroundTruth:
    """Read a ``ground_truth.json`` written by the generator (or the corpus folder holding it)."""
    target = Path(path)
    if target.is_dir():
        target = target / GROUND_TRUTH_NAME
    return GroundTruth.from_dict(json.loads(target.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- derivation


@dataclass
class DocSpec:
    """One corpus document as far as the ground truth is concerned."""

    doc: str  # path relative to the corpus root, posix
    kind: str  # pptx | xlsx | pdf | docx | md
    sensitivity: str
    tables: list[PlacedTable] = field(default_factory=list)
    issues: list[ReviewTruth] = field(default_factory=list)  # reader-level (needs_ocr)


def split_period(label: str) -> tuple[str, str]:
    """FY2024 -> ("FY", "2024"); 2025H1 -> ("H1", "2025"); 2025Q3 -> ("Q3", "2025")."""
    if label.startswith("FY"):
        return "FY", label[2:]
    return label[4:], label[:4]


def table_outcomes(doc: DocSpec, placed: PlacedTable) -> list[FactTruth | ReviewTruth]:
    """What the mapping rules make of one table, in row-major order, before conflicts."""
    spec = placed.spec
    spec.validate()
    if spec.ambiguous:
        return [ReviewTruth(doc.doc, placed.prefix, "ambiguous_entity")]
    out: list[FactTruth | ReviewTruth] = []
    first_row = len(spec.header)
    for i, row in enumerate(spec.rows):
        grid_row = first_row + i
        if row.codes is None:
            label_col = spec.n_label_cols - 1
            out.append(
                ReviewTruth(doc.doc, placed.cell_locator(grid_row, label_col), "unmapped_label")
            )
            continue
        for j, (column, cell) in enumerate(zip(spec.columns, row.cells, strict=True)):
            if column.codes is None or not isinstance(cell, Val):
                continue  # a text column, a note, a dash: nothing to map
            grid_col = spec.n_label_cols + j
            locator = placed.value_locator(grid_row, grid_col, row, column)
            out.append(_value_outcome(doc, placed, row, column, cell, locator))
    return out


def _value_outcome(
    doc: DocSpec, placed: PlacedTable, row: Row, column: Column, cell: Val, locator: str
) -> FactTruth | ReviewTruth:
    spec = placed.spec
    assert row.codes is not None and column.codes is not None
    codes = row.codes.union(column.codes).fill(spec.title_codes).fill(spec.context_codes)
    if not (codes.entity and codes.period and codes.metric):
        raise ValueError(f"{doc.doc} {locator}: the spec leaves a dimension to context: {codes}")
    unit_kind = METRIC_UNITS[codes.metric]
    marker = row.unit or column.unit or spec.title_unit
    if marker is None and doc.kind != "xlsx" and not cell.percent and unit_kind[1] != "count":
        # Keep context out of unit resolution: every non-workbook amount names its unit nearby
        # (a count needs none; its table's title and context then name no unit).
        raise ValueError(f"{doc.doc} {locator}: no unit marker in header or title")
    if unit_kind[1] == "ratio":
        if marker is not None and marker.code != "PCT":
            raise ValueError(f"{doc.doc} {locator}: ratio under a non-percent marker")
        unit, value = "PCT", cell.shown
    elif cell.percent:
        if marker is not None:
            raise ValueError(f"{doc.doc} {locator}: percent cell under a unit marker")
        return ReviewTruth(doc.doc, locator, "unit_mismatch")
    else:
        if marker is not None and marker.code == "PCT":
            raise ValueError(f"{doc.doc} {locator}: amount under a percent marker")
        unit = marker.code if marker else unit_kind[0]
        value = cell.shown * (marker.scale if marker else 1.0)
    value = round(float(value), 6)
    if cell.approx:
        return ReviewTruth(doc.doc, locator, "low_confidence", value)
    period_type, period = split_period(codes.period or "")
    return FactTruth(
        metric_code=codes.metric,
        entity=codes.entity,
        channel=codes.channel or DEFAULT_CHANNEL,
        period_type=period_type,
        period=period,
        value=value,
        unit=unit,
        doc=doc.doc,
        locator=locator,
        sensitivity=doc.sensitivity,
    )


def compute_ground_truth(
    docs: Iterable[DocSpec], tricky_cases: Sequence[TrickyCase] = ()
) -> GroundTruth:
    """Apply the table rules and the conflict rule (documents in sorted path order)."""
    ordered = sorted(docs, key=lambda d: d.doc)
    facts: list[FactTruth] = []
    reviews: list[ReviewTruth] = []
    accepted: dict[tuple[str, str, str, str, str], FactTruth] = {}
    for doc in ordered:
        reviews.extend(doc.issues)
        seen_here: dict[tuple[str, str, str, str, str], FactTruth] = {}
        for placed in doc.tables:
            for outcome in table_outcomes(doc, placed):
                if isinstance(outcome, ReviewTruth):
                    reviews.append(outcome)
                    continue
                key = outcome.key
                if key in seen_here:
                    if seen_here[key].value != outcome.value:
                        reviews.append(ReviewTruth(doc.doc, outcome.locator, "conflict"))
                    continue  # same value repeated in one document: dropped silently
                earlier = accepted.get(key)
                if earlier is not None and earlier.value != outcome.value:
                    reviews.append(ReviewTruth(doc.doc, outcome.locator, "conflict"))
                    continue
                seen_here[key] = outcome
                facts.append(outcome)
        for key, fact in seen_here.items():
            accepted.setdefault(key, fact)
    documents = tuple(DocumentTruth(d.doc, d.sensitivity, d.kind) for d in ordered)
    return GroundTruth(
        version=GROUND_TRUTH_VERSION,
        documents=documents,
        facts=tuple(facts),
        review_items=tuple(reviews),
        tricky_cases=tuple(tricky_cases),
    )
