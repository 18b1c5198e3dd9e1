"""The demo corpus's specification model: what each table's headers, units and cells name.

A table is declared by its *meaning* — which codes each row and column header names, which
unit marker sits where, what each cell shows — and both the file writers and the ground truth
(``corpus_truth``) are derived from that declaration. Nothing here parses a document: the
expected facts follow from the mapping rules applied to what we chose to write (see
``corpus.py`` for the rules).
"""

from __future__ import annotations

from dataclasses import dataclass

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
        "suspicious_instruction",
    }
)


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
    """A value column: the codes its header names (None: a text-only column) and its unit.

    ``relative`` marks a header that names its year relative to the document ("本年", "上年",
    "Prior year"): ``codes`` then holds the period it resolves to against the period the
    table's title or context names.
    """

    codes: Codes | None
    unit: Unit | None = None
    relative: bool = False


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
    # What the text around the table (headings it sits under, a Word page header, the sheet
    # name) supplies for the entity and the period when neither headers nor title name them.
    context_codes: Codes = Codes()
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


# --------------------------------------------------------------------------- placement


STYLE_SEMANTIC = "semantic"
STYLE_CELL = "cell"
STYLE_GRID = "grid"
STYLE_CHART = "chart"


@dataclass(frozen=True)
class PlacedTable:
    """A table where a document put it: its locator prefix and style."""

    spec: TableSpec
    prefix: str  # slide=2,table=1 | slide=4,chart=1 | sheet=HK | page=2,table=1 | table=1 …
    style: str
    row_offset: int = 0  # sheet rows above the grid (title lines)

    def value_locator(self, grid_row: int, grid_col: int, row: Row, column: Column) -> str:
        if self.style == STYLE_CHART:
            # A chart's series is a row, its category a column; both as the chart labels them.
            category = " ".join(h[grid_col] for h in self.spec.header if h[grid_col])
            return f"{self.prefix},series={' '.join(row.labels)},category={category}"
        if self.style == STYLE_SEMANTIC:
            assert row.codes is not None and column.codes is not None
            row_key = row.codes.key() or str(grid_row + 1)
            col_key = column.codes.key() or str(grid_col + 1)
            return f"{self.prefix},row={row_key},col={col_key}"
        return self.cell_locator(grid_row, grid_col)

    def cell_locator(self, grid_row: int, grid_col: int) -> str:
        """A cell by position: ``sheet=X,cell=B4`` or ``<prefix>,row=R,col=C`` (1-based)."""
        if self.style == STYLE_CELL:
            sheet_row = grid_row + 1 + self.row_offset
            return f"{self.prefix},cell={column_letter(grid_col + 1)}{sheet_row}"
        return f"{self.prefix},row={grid_row + 1},col={grid_col + 1}"
