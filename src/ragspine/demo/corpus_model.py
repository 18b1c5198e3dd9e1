"""The demo corpus's specification model and the ground truth computed from it.

A table is declared by its *meaning* — which codes each row and column header names, which
unit marker sits where, what each cell shows — and both the file writers and the ground truth
are derived from that declaration. Nothing here parses a document: the expected facts follow
from the mapping rules applied to what we chose to write (see ``corpus.py`` for the rules).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

GROUND_TRUTH_VERSION = 1
GROUND_TRUTH_NAME = "ground_truth.json"

REVIEW_REASONS: frozenset[str] = frozenset(
    {
        "conflict",
        "unmapped_label",
        "ambiguous_entity",
        "missing_entity",
        "missing_period",
        "low_confidence",
        "unit_mismatch",
        "needs_ocr",
    }
)

DEFAULT_CHANNEL = "TOTAL"

# The ACME profile's metrics: code -> (profile unit, kind). Mirrors profile/data/acme.toml; the
# corpus tests check the two agree.
METRIC_UNITS: dict[str, tuple[str, str]] = {
    "REVENUE": ("USD_M", "amount"),
    "OPERATING_PROFIT": ("USD_M", "amount"),
    "NET_PROFIT": ("USD_M", "amount"),
    "NBV": ("USD_M", "amount"),
    "NBV_MARGIN": ("PCT", "ratio"),
    "ROE": ("PCT", "ratio"),
    "EMBEDDED_VALUE": ("USD_M", "amount"),
    "AGENT_COUNT": ("COUNT", "count"),
}


# --------------------------------------------------------------------------- ground truth


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


def load_ground_truth(path: str | Path) -> GroundTruth:
    """Read a ``ground_truth.json`` written by the generator (or the corpus folder holding it)."""
    target = Path(path)
    if target.is_dir():
        target = target / GROUND_TRUTH_NAME
    return GroundTruth.from_dict(json.loads(target.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- table spec


@dataclass(frozen=True)
class Codes:
    """Controlled codes a header (or a title) names; ``period`` is a label: FY2024, 2025H1…"""

    period: str | None = None
    metric: str | None = None
    entity: str | None = None
    channel: str | None = None

    def key(self) -> str:
        """The semantic locator key: codes in the order period, metric, entity, channel."""
        return "/".join(c for c in (self.period, self.metric, self.entity, self.channel) if c)

    def union(self, other: Codes) -> Codes:
        """Row header ∪ column header: a dimension named by both must agree."""
        merged: dict[str, str | None] = {}
        for name in ("period", "metric", "entity", "channel"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine and theirs and mine != theirs:
                raise ValueError(f"headers disagree on {name}: {mine} vs {theirs}")
            merged[name] = mine or theirs
        return Codes(**merged)

    def fill(self, fallback: Codes) -> Codes:
        """Missing dimensions taken from ``fallback`` (a title)."""
        return Codes(
            period=self.period or fallback.period,
            metric=self.metric or fallback.metric,
            entity=self.entity or fallback.entity,
            channel=self.channel or fallback.channel,
        )


@dataclass(frozen=True)
class Unit:
    """A unit marker: the unit it normalises to and the factor applied to the shown number."""

    marker: str  # how the marker reads, e.g. "百万美元", "US$bn", "%"
    code: str
    scale: float = 1.0


USD_M = Unit("百万美元", "USD_M")
USD_M_EN = Unit("US$m", "USD_M")
USD_BN_EN = Unit("US$bn", "USD_M", 1000.0)
CNY_YI = Unit("人民币亿元", "CNY_M", 100.0)
PERCENT = Unit("%", "PCT")


@dataclass(frozen=True)
class Val:
    """A value cell. ``shown`` is the number as displayed, before any unit scale.

    ``percent`` marks a cell that *is* a percent (a "%" suffix in text, a percent number format
    in a workbook, where the stored value is ``shown / 100``). ``approx`` marks an approximate
    figure ("约1,300") that goes to review. ``text`` overrides the displayed text.
    """

    shown: float
    text: str | None = None
    percent: bool = False
    approx: bool = False


@dataclass(frozen=True)
class Skip:
    """A cell with no value ("—", "n/a", ""): silently skipped."""

    text: str = "—"


@dataclass(frozen=True)
class Note:
    """Free text in a non-numeric column (a "备注" column): ignored."""

    text: str


CellSpec = Val | Skip | Note


@dataclass(frozen=True)
class Row:
    """A data row: its row-header cells, the codes they name (None: unmapped), its cells."""

    labels: tuple[str, ...]
    codes: Codes | None
    cells: tuple[CellSpec, ...]
    unit: Unit | None = None  # the unit marker inside the row header, if any
    fmt: str = "{:,.0f}"  # default display of a Val
    xlsx_format: str = "#,##0"


@dataclass(frozen=True)
class Column:
    """A value column: the codes its header names (None: a text-only column) and its unit."""

    codes: Codes | None
    unit: Unit | None = None


@dataclass(frozen=True)
class TableSpec:
    """A table as declared: header rows (whole grid width, corner cells included), columns for
    the value part, rows, the title (and what it names) and merged ranges."""

    title: str
    title_codes: Codes
    header: tuple[tuple[str, ...], ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    title_unit: Unit | None = None
    ambiguous: bool = False  # the title (first entity source) names two or more entities
    merges: tuple[tuple[int, int, int, int], ...] = ()  # (row0, col0, row1, col1) inclusive

    @property
    def n_label_cols(self) -> int:
        return len(self.rows[0].labels)

    def grid_text(self) -> list[list[str]]:
        """The displayed text of every grid cell (merged ranges keep text in the origin)."""
        grid = [list(r) for r in self.header]
        for row in self.rows:
            grid.append([*row.labels, *(display(c, row) for c in row.cells)])
        spanned = {
            (r, c)
            for r0, c0, r1, c1 in self.merges
            for r in range(r0, r1 + 1)
            for c in range(c0, c1 + 1)
            if (r, c) != (r0, c0)
        }
        for r, c in spanned:
            grid[r][c] = ""
        return grid

    def validate(self) -> None:
        width = len(self.header[0])
        if any(len(r) != width for r in self.header):
            raise ValueError(f"{self.title}: ragged header")
        if self.n_label_cols + len(self.columns) != width:
            raise ValueError(f"{self.title}: header width != labels + columns")
        for row in self.rows:
            if len(row.labels) != self.n_label_cols or len(row.cells) != len(self.columns):
                raise ValueError(f"{self.title}: row {row.labels} has the wrong width")


def display(cell: CellSpec, row: Row) -> str:
    if isinstance(cell, Val):
        if cell.text is not None:
            return cell.text
        shown = row.fmt.format(cell.shown)
        return f"{cell.shown:.1f}%" if cell.percent else shown
    return cell.text


def column_letter(index: int) -> str:
    """1 -> A, 27 -> AA."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def split_period(label: str) -> tuple[str, str]:
    """FY2024 -> ("FY", "2024"); 2025H1 -> ("H1", "2025"); 2025Q3 -> ("Q3", "2025")."""
    if label.startswith("FY"):
        return "FY", label[2:]
    return label[4:], label[:4]


# --------------------------------------------------------------------------- placement


STYLE_SEMANTIC = "semantic"
STYLE_CELL = "cell"
STYLE_GRID = "grid"


@dataclass(frozen=True)
class PlacedTable:
    """A table where a document put it: its locator prefix and style."""

    spec: TableSpec
    prefix: str  # slide=2,table=1 | sheet=HK | page=2,table=1 | table=1 | section=3,table=1
    style: str

    def value_locator(self, grid_row: int, grid_col: int, row: Row, column: Column) -> str:
        if self.style == STYLE_SEMANTIC:
            assert row.codes is not None and column.codes is not None
            row_key = row.codes.key() or str(grid_row + 1)
            col_key = column.codes.key() or str(grid_col + 1)
            return f"{self.prefix},row={row_key},col={col_key}"
        return self.cell_locator(grid_row, grid_col)

    def cell_locator(self, grid_row: int, grid_col: int) -> str:
        """A cell by position: ``sheet=X,cell=B4`` or ``<prefix>,row=R,col=C`` (1-based)."""
        if self.style == STYLE_CELL:
            return f"{self.prefix},cell={column_letter(grid_col + 1)}{grid_row + 1}"
        return f"{self.prefix},row={grid_row + 1},col={grid_col + 1}"


@dataclass
class DocSpec:
    """One corpus document as far as the ground truth is concerned."""

    doc: str  # path relative to the corpus root, posix
    kind: str  # pptx | xlsx | pdf | docx | md
    sensitivity: str
    tables: list[PlacedTable] = field(default_factory=list)
    issues: list[ReviewTruth] = field(default_factory=list)  # reader-level (needs_ocr)


# --------------------------------------------------------------------------- truth


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
    codes = row.codes.union(column.codes).fill(spec.title_codes)
    if not (codes.entity and codes.period and codes.metric):
        raise ValueError(f"{doc.doc} {locator}: the spec leaves a dimension to context: {codes}")
    unit_kind = METRIC_UNITS[codes.metric]
    marker = row.unit or column.unit or spec.title_unit
    if marker is None and doc.kind != "xlsx" and not cell.percent:
        # Keep context out of unit resolution: every non-workbook cell names its unit nearby.
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
