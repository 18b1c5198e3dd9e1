"""Read a table's headers: which leading rows and columns are headers, the label text of each
line, and what the title and the text around the table say (entity, period, metric, channel,
unit) when the headers leave it out."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from ragspine.ingestion.labels import LabelReading, read_label
from ragspine.ingestion.model import Table
from ragspine.ingestion.numbers import ParsedNumber
from ragspine.ingestion.table_results import ReviewReason
from ragspine.ingestion.table_units import TableUnit, table_unit
from ragspine.profile.glossary import Glossary
from ragspine.profile.periods import Period, find_periods


@dataclass(frozen=True)
class Chain:
    """What the table's surroundings say, resolved once per table."""

    entity: str | None
    entity_problem: ReviewReason | None
    period: Period | None
    metric: str | None
    channel: str | None
    unit: TableUnit


def read_chain(
    table: Table, glossary: Glossary, doc_title: str, corner: LabelReading | None = None
) -> Chain:
    """``corner`` is the header above the row labels: its unit marker is the nearest of the
    table-wide ones, before the title and the context lines."""
    title = read_label(table.title, glossary, prose=True)
    around = [read_label(t, glossary, prose=True) for t in (*table.context, doc_title) if t]
    entity: str | None = None
    problem: ReviewReason | None = ReviewReason.MISSING_ENTITY
    for source in (title, *around):
        if source.entities:
            entity = source.entities[0] if len(source.entities) == 1 else None
            problem = None if entity else ReviewReason.AMBIGUOUS_ENTITY
            break
    period = next((s.periods[0] for s in (title, *around) if len(s.periods) == 1), None)
    return Chain(
        entity=entity,
        entity_problem=problem,
        period=period,
        metric=title.metrics[0] if len(title.metrics) == 1 else None,
        channel=title.channels[0] if len(title.channels) == 1 else None,
        unit=table_unit([*((corner,) if corner is not None else ()), title, *around]),
    )


def period_of(row: LabelReading, col: LabelReading, chain: Chain) -> Period | str:
    """The cell's period, or why there is none. Headers first; a relative header ("上年") is
    the document's period shifted; with neither, the document's period itself."""
    absolute = row.periods or col.periods
    if absolute:
        return absolute[0]
    relative = row if row.relative_years else col if col.relative_years else None
    if relative is not None:
        if chain.period is None:
            return (
                f"the header {relative.text!r} names its year relative to the document, but the "
                "title, context and document title name no period"
            )
        return chain.period.years_later(relative.relative_years[0])
    return chain.period or "no period in the headers or title"


def dimensions(
    row: LabelReading, col: LabelReading, chain: Chain
) -> tuple[tuple[str, ...], Period | str, tuple[str, ...], tuple[str, ...]]:
    """What a value cell's headers make of it: metric, period, entity, channel."""
    metric = (row.metrics or col.metrics)[:1]
    return (
        metric,
        period_of(row, col, chain),
        (row.entities or col.entities)[:1],
        (row.channels or col.channels)[:1],
    )


def leading(count: int, is_header: Callable[[int], bool]) -> int:
    n = 0
    while n < count and is_header(n):
        n += 1
    return n


def value_at(numbers: list[list[ParsedNumber | None]], r: int, c: int) -> ParsedNumber | None:
    row = numbers[r]
    return row[c] if c < len(row) else None


def clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def is_period(text: str) -> bool:
    matches = find_periods(text)
    return len(matches) == 1 and (matches[0].start, matches[0].end) == (0, len(text))


def is_year_header(text: str, number: ParsedNumber, glossary: Glossary) -> bool:
    """Whether a cell that reads as a number is a period header: a bare year ("2019"), or a
    year with the unit of its column ("2019 $'000", "2019 £m", "2019 (in millions)") — a label
    naming one period and a unit marker and nothing else."""
    text = clean(text)
    if is_period(text):
        return True
    if number.marker is None or number.percent:
        return False
    reading = read_label(text, glossary)
    named = reading.metrics or reading.entities or reading.channels
    return reading.covered and reading.unit is not None and len(reading.periods) == 1 and not named


@dataclass(frozen=True)
class Lines:
    """Tells header lines from data lines.

    A leading line without numbers is a header, and a bare year ("2024") counts as a header
    cell — except on a line after the first whose label (a row's first cell, a column's
    header) names a metric or a period while its other text cells name nothing: that line is
    data, so "<metric> | 2050 | 2010" holds two values and "<metric> | n/a | see note" two cells
    to account for.
    """

    table: Table
    numbers: list[list[ParsedNumber | None]]
    years: set[tuple[int, int]]
    glossary: Glossary

    def header_row(self, r: int) -> bool:
        cells = self.table.cells[r]
        if any(self._plain_number(r, c) for c in range(len(cells))):
            return False
        if r == 0:
            return True
        others = [cell.text for c, cell in enumerate(cells) if c and not self._n(r, c)]
        return not (self._data_line(cells[0].text, others) or self._section(cells[0].text, others))

    def _section(self, label: str, others: list[str]) -> bool:
        """A section heading inside the grid: a label naming an entity or a channel (and no
        metric or period) over an otherwise empty line (a region's name above its rows)."""
        if any(text.strip() for text in others):
            return False
        reading = read_label(label, self.glossary)
        named = reading.entities or reading.channels
        return bool(named) and reading.covered and not (reading.metrics or reading.periods)

    def header_col(self, c: int, header_rows: int) -> bool:
        data = range(header_rows, self.table.n_rows)
        if any(self._plain_number(r, c) for r in data):
            return False
        body = [cell.text for r in data if (cell := self.table.cell(r, c)) and not self._n(r, c)]
        return c == 0 or not self._data_line(header_text(self.table, c, header_rows), body)

    def _n(self, r: int, c: int) -> bool:
        return value_at(self.numbers, r, c) is not None

    def _plain_number(self, r: int, c: int) -> bool:
        return self._n(r, c) and (r, c) not in self.years

    def _data_line(self, label: str, others: list[str]) -> bool:
        reading = read_label(label, self.glossary)
        if not (reading.metrics or reading.periods or reading.relative_years):
            return False
        return not any(self._names(text) for text in others if text.strip())

    def _names(self, text: str) -> bool:
        """Whether ``text`` reads as a header: a code, a relative year, or a bare "H1" / "Q3"."""
        reading = read_label(text, self.glossary)
        return bool(reading.key or reading.relative_years or find_periods(text))


def joined(texts: list[str]) -> str:
    """Header cells joined in order; a merged cell repeats, so consecutive repeats collapse."""
    out: list[str] = []
    for text in texts:
        text = text.strip()
        if text and (not out or out[-1] != text):
            out.append(text)
    return " ".join(out)


def header_text(table: Table, col: int, header_rows: int) -> str:
    return joined([c.text for r in range(header_rows) if (c := table.cell(r, col)) is not None])


def row_text(table: Table, row: int, header_cols: int) -> str:
    return joined([c.text for col in range(header_cols) if (c := table.cell(row, col)) is not None])
