"""Accounting: every value cell of a metric's row ends as a fact or a review item.

A cell may be an empty marker ("—", "n/a", "nm"…) and then nothing is owed for it; any other
cell must show up — as a fact or a review item at its own locator, or inside a review item that
holds back its whole row, column or table. Checked on generated tables (hypothesis) and on every
table of the demo corpus as its readers extract it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragspine.demo.corpus import demo_documents
from ragspine.demo.corpus_model import Skip, Val
from ragspine.demo.corpus_truth import truth_locator
from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.numbers import is_empty, parse_number
from ragspine.ingestion.readers import reader_for
from ragspine.ingestion.tables import ReviewReason, TableMapping, map_table
from ragspine.profile.glossary import Glossary
from tests.profiles import acme_glossary

PREFIX = "table=1"
EMPTY_MARKERS = ("", "-", "—", "n/a", "N/A", "nm", "不适用")
JUNK = ("see note 3", "TBD", "12..5", "1,2,3", "abc", "待定", "n.a.x")
METRIC_LABELS = (
    "收入",
    "Revenue",
    "营运利润",
    "Net profit",
    "新业务价值",
    "NBV margin (%)",
    "ROE (%)",
    "Agent count",
)
PERIOD_HEADERS = ("FY2023", "FY2024", "2024", "2025", "2025H1", "2025Q3", "本年", "上年", "PY")
TITLES = ("Hong Kong (US$m)", "香港 FY2025", "ACME Macau 2025年", "Results", "香港与澳门")


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return acme_glossary()


def grid_locator(r: int, c: int) -> str:
    return f"{PREFIX},row={r + 1},col={c + 1}"


@dataclass(frozen=True)
class Generated:
    rows: list[list[str]]
    metric_cells: list[tuple[int, int]]  # (row, col) of every value cell of a metric line
    title: str
    transposed: bool


def values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 99_999).map(str),
        st.integers(1_000, 999_999).map(lambda n: f"{n:,}"),
        st.integers(1900, 2099).map(str),  # year-like values: values, not headers
        st.integers(1, 9_999).map(lambda n: f"({n})"),
        st.floats(0, 999, allow_nan=False).map(lambda x: f"{x:.1f}"),
        st.integers(1, 99).map(lambda n: f"{n}%"),
        st.integers(1, 9_999).map(lambda n: f"约{n:,}"),
        st.sampled_from(EMPTY_MARKERS),
        st.sampled_from(JUNK),
    )


@st.composite
def tables(draw: st.DrawFn) -> Generated:
    periods = draw(st.lists(st.sampled_from(PERIOD_HEADERS), min_size=1, max_size=4, unique=True))
    metrics = draw(st.lists(st.sampled_from(METRIC_LABELS), min_size=1, max_size=5))
    corner = draw(st.sampled_from(("Metric", "指标", "", "单位：百万美元")))
    body = [[draw(values()) for _ in periods] for _ in metrics]
    transposed = draw(st.booleans())
    if transposed:  # periods down the side, metrics across the top
        rows = [[corner, *metrics]] + [
            [period, *(line[j] for line in body)] for j, period in enumerate(periods)
        ]
    else:
        rows = [[corner, *periods]] + [[m, *line] for m, line in zip(metrics, body, strict=True)]
    cells = [(r, c) for r in range(1, len(rows)) for c in range(1, len(rows[0]))]
    return Generated(rows, cells, draw(st.sampled_from(TITLES)), transposed)


def _map_grid(rows: Sequence[Sequence[str]], title: str, glossary: Glossary) -> TableMapping:
    """Map ``rows`` (text by row and column) as one grid-located table under ``title``."""
    table = Table(
        tuple(tuple(Cell(r, c, t) for c, t in enumerate(row)) for r, row in enumerate(rows)),
        PREFIX,
        LocatorStyle.GRID,
        title,
    )
    return map_table(table, glossary, "Annual report")


def owed(r: int, c: int) -> set[str]:
    """The locators that account for cell (r, c): its own, its row's and column's label
    cells (an unmapped label holds back the line) and the table (a table-level problem)."""
    return {grid_locator(r, c), grid_locator(r, 0), grid_locator(0, c), PREFIX}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=tables())
def test_every_metric_cell_is_a_fact_or_a_review_item(
    glossary: Glossary, generated: Generated
) -> None:
    rows = generated.rows
    mapping = _map_grid(rows, generated.title, glossary)
    facts = {f.locator: f for f in mapping.facts}
    reviews: dict[str, set[ReviewReason]] = {}
    for item in mapping.review:
        reviews.setdefault(item.locator, set()).add(item.reason)
    assert len(facts) == len(mapping.facts), "two facts from one cell"
    held_back = PREFIX in reviews
    for r, c in generated.metric_cells:
        text, here = rows[r][c], grid_locator(r, c)
        if is_empty(text):
            assert here not in facts and here not in reviews, (text, here)
            continue
        assert owed(r, c) & (facts.keys() | reviews.keys()), (text, here, rows)
        if held_back or here not in facts | reviews:
            continue  # held back with its line or table
        number = parse_number(text)
        if number is None:
            assert reviews[here] == {ReviewReason.UNREADABLE}, (text, here)
        elif here in facts:
            assert facts[here].value == pytest.approx(number.value), (text, here)
        else:
            # AMBIGUOUS_CELL: a line whose header another line repeats ("收入" twice).
            assert reviews[here] <= {
                ReviewReason.LOW_CONFIDENCE,
                ReviewReason.UNIT_MISMATCH,
                ReviewReason.AMBIGUOUS_CELL,
            }


def test_a_year_like_value_never_vanishes(glossary: Glossary) -> None:
    """The shape hypothesis found hardest: every value of the first metric line a year."""
    rows = [["Metric", "2024", "2025"], ["Revenue", "2050", "2010"], ["NBV", "1999", "—"]]
    table = Table(
        tuple(tuple(Cell(r, c, t) for c, t in enumerate(row)) for r, row in enumerate(rows)),
        PREFIX,
        LocatorStyle.GRID,
        "Hong Kong (US$m)",
    )
    mapping = map_table(table, glossary)
    assert mapping.review == []
    assert sorted((f.locator, f.value) for f in mapping.facts) == [
        (grid_locator(1, 1), 2050.0),
        (grid_locator(1, 2), 2010.0),
        (grid_locator(2, 1), 1999.0),
    ]


def test_unreadable_cells_are_reported_where_they_are(glossary: Glossary) -> None:
    rows = [
        ["指标", "FY2024", "FY2025", "备注"],
        ["收入", "see note 3", "1,320", "强劲增长"],
        ["营运利润", "nm", "TBD", ""],
    ]
    table = Table(
        tuple(tuple(Cell(r, c, t) for c, t in enumerate(row)) for r, row in enumerate(rows)),
        PREFIX,
        LocatorStyle.GRID,
        "香港（百万美元）",
    )
    mapping = map_table(table, glossary)
    assert [(f.locator, f.value) for f in mapping.facts] == [(grid_locator(1, 2), 1320.0)]
    # A comments column names no metric, period or unit: its text is not a value.
    assert sorted((r.locator, r.reason) for r in mapping.review) == [
        (grid_locator(1, 1), ReviewReason.UNREADABLE),
        (grid_locator(2, 2), ReviewReason.UNREADABLE),
    ]


# --------------------------------------------------------------------------- demo corpus


def test_every_metric_cell_of_the_demo_corpus_is_accounted_for(
    tmp_path: Path, glossary: Glossary
) -> None:
    checked = 0
    for document in demo_documents():
        document.write(tmp_path)
        path = tmp_path / document.doc
        extracted = reader_for(path).read(path)
        mappings = {
            t.locator_prefix: map_table(t, glossary, extracted.title) for t in extracted.tables
        }
        issues = {issue.locator for issue in extracted.issues}
        for placed in document.placed_tables().tables:
            spec, mapping = placed.spec, mappings[placed.prefix]
            found = {truth_locator(f.locator) for f in mapping.facts}
            found |= {r.locator for r in mapping.review}
            first_row, label_cols = len(spec.header), spec.n_label_cols
            for i, row in enumerate(spec.rows):
                for j, (column, cell) in enumerate(zip(spec.columns, row.cells, strict=True)):
                    r, c = first_row + i, label_cols + j
                    own = {placed.cell_locator(r, c)}
                    if row.codes is not None and column.codes is not None:
                        own.add(placed.value_locator(r, c, row, column))
                    if isinstance(cell, Skip):
                        assert not own & found, (document.doc, own)
                    elif isinstance(cell, Val):
                        lines = {
                            placed.cell_locator(r, label_cols - 1),
                            placed.cell_locator(first_row - 1, c),
                            placed.prefix,
                        }
                        assert (own | lines) & (found | issues), (document.doc, own)
                        checked += 1
    assert checked > 150  # the corpus's value cells were all visited


# --------------------------------------------------------------------------- issue-26 shapes
# Generated tables in the shapes real reports take: a unit in the corner cell, currencies and
# footnote marks in cells, real period headers, an unlabelled or "Total" row, and the metric
# rows repeated under two section headings. Each cell's fact (value and unit) or review reason
# is worked out here from the written text by the rules docs/ingestion.md states.

# Corner unit markers: the currency (None: the profile's US$) and power of ten they state.
CORNERS: dict[str, tuple[str | None, int] | None] = {
    "": None,
    "Metric": None,
    "单位：百万美元": ("USD", 6),
    "(HK$'000)": ("HKD", 3),
    "单位：人民币千元": ("CNY", 3),
    "(in thousands)": (None, 3),
    "(RMB billion)": ("CNY", 9),
}
# Row labels, their metric and its kind.
SHAPED_METRICS = {
    "Revenue": ("REVENUE", "amount"),
    "营运利润": ("OPERATING_PROFIT", "amount"),
    "ROE (%)": ("ROE", "ratio"),
    "Agent count": ("AGENT_COUNT", "count"),
}
SHAPED_PERIODS = (  # each a different year
    "Fiscal 2019",
    "Year ended December 31, 2018",
    "31 Dec 2017",
    "2016年度",
    "FY 2015",
    "2014年12月31日",
)
SECTIONS = (("Hong Kong", "ACME_HK"), ("澳门", "ACME_MO"))


def shaped_values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(1, 99_999).map(lambda n: f"{n:,}"),
        st.integers(1, 9_999).map(lambda n: f"HK$ {n:,}"),
        st.integers(1, 9_999).map(lambda n: f"{n:,}¹"),
        st.integers(1, 9_999).map(lambda n: f"{n:,}⁽²⁾"),
        st.sampled_from(EMPTY_MARKERS),
    )


@dataclass(frozen=True)
class Shaped:
    rows: list[list[str]]
    corner: str
    # (row, col) of each metric cell with its row label and the entity of its section
    cells: list[tuple[int, int, str, str]]
    extra_row: int | None  # the unlabelled or "Total" row


@st.composite
def shaped_tables(draw: st.DrawFn) -> Shaped:
    periods = draw(st.lists(st.sampled_from(SHAPED_PERIODS), min_size=1, max_size=3, unique=True))
    labels = draw(
        st.lists(st.sampled_from(list(SHAPED_METRICS)), min_size=1, max_size=4, unique=True)
    )
    corner = draw(st.sampled_from(list(CORNERS)))
    sectioned = draw(st.booleans())
    rows = [[corner, *periods]]
    cells: list[tuple[int, int, str, str]] = []
    for heading, entity in SECTIONS if sectioned else (("", "ACME_HK"),):
        if heading:
            rows.append([heading, *("" for _ in periods)])
        for label in labels:
            cells += [(len(rows), c, label, entity) for c in range(1, len(periods) + 1)]
            rows.append([label, *(draw(shaped_values()) for _ in periods)])
    extra_row = None
    if draw(st.booleans()):
        extra_row = len(rows)
        rows.append([draw(st.sampled_from(("", "Total", "合计"))), *("120" for _ in periods)])
    return Shaped(rows, corner, cells, extra_row)


def expected(text: str, label: str, corner: str) -> tuple[float, str] | set[ReviewReason]:
    """The fact (value, unit) or the review reasons the rules give a non-empty cell."""
    _, kind = SHAPED_METRICS[label]
    marker = CORNERS[corner]
    footnoted = text.endswith(("¹", "⁾"))
    want = _unit_outcome(text.rstrip("¹⁽²⁾"), kind, marker)
    # A footnoted figure whose unit is right is proposed for review, not stored.
    return {ReviewReason.LOW_CONFIDENCE} if footnoted and not isinstance(want, set) else want


def _unit_outcome(
    text: str, kind: str, marker: tuple[str | None, int] | None
) -> tuple[float, str] | set[ReviewReason]:
    number = Decimal(text.removeprefix("HK$ ").replace(",", ""))
    if text.startswith("HK$"):
        if kind != "amount" or (marker is not None and marker[0] not in (None, "HKD")):
            return {ReviewReason.UNIT_MISMATCH}
        if marker is None:  # a currency with no scale anywhere: units or millions?
            return {ReviewReason.UNIT_UNKNOWN}
        return float(number.scaleb(marker[1] - 6)), "HKD_M"
    if kind == "ratio":  # "(%)" in the row label is nearer than the corner
        return float(number), "PCT"
    if kind == "count":
        if marker is not None and marker[0] is not None:
            return {ReviewReason.UNIT_MISMATCH}  # a money marker never scales a count
        return float(number.scaleb(marker[1] if marker else 0)), "COUNT"
    currency, power = marker if marker else (None, 6)
    return float(number.scaleb(power - 6)), f"{currency or 'USD'}_M"


_GRID_CELL = re.compile(r"row=(\d+),col=(\d+)")


def _cell(locator: str) -> tuple[int, int] | None:
    """The 0-based (row, col) a GRID locator names; None for the table's own locator."""
    found = _GRID_CELL.search(locator)
    return (int(found[1]) - 1, int(found[2]) - 1) if found else None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=shaped_tables())
def test_every_cell_of_a_real_report_shape_is_its_true_fact_or_a_review_item(
    glossary: Glossary, generated: Shaped
) -> None:
    rows = generated.rows
    mapping = _map_grid(rows, "Hong Kong results", glossary)
    facts = {_cell(f.locator): f for f in mapping.facts}
    reviews: dict[tuple[int, int] | None, set[ReviewReason]] = {}
    for item in mapping.review:
        reviews.setdefault(_cell(item.locator), set()).add(item.reason)
    assert None not in reviews, (rows, mapping.review)  # no problem held back the table
    for r, c, label, entity in generated.cells:
        text = rows[r][c]
        if is_empty(text):
            assert (r, c) not in facts and (r, c) not in reviews, (text, r, c)
            continue
        want = expected(text, label, generated.corner)
        if isinstance(want, set):
            assert reviews.get((r, c)) == want, (text, label, generated.corner, rows)
            continue
        fact = facts.get((r, c))
        assert fact is not None, (text, label, generated.corner, reviews.get((r, c)), rows)
        assert (fact.value, fact.unit) == (pytest.approx(want[0]), want[1]), (text, label)
        assert (fact.metric_code, fact.entity) == (SHAPED_METRICS[label][0], entity), repr(rows)[
            -300:
        ] + repr((r, c))
    if generated.extra_row is not None:
        for c in range(1, len(rows[0])):
            assert reviews.get((generated.extra_row, c)) == {ReviewReason.MISSING_METRIC}
