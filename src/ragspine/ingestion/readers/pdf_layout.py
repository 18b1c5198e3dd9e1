"""Read a PDF page's layout from its word boxes: text columns, and tables drawn without rules.

Both come from the same picture of the page: words grouped into rows by baseline, and each row
cut into segments wherever the space between two words is wider than a letter's height (an
ordinary word space is far narrower). A table shows as segments standing in the same columns
row after row; a two-column page as a gutter that almost no segment crosses.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pdfplumber.page import Page

from ragspine.ingestion.model import Cell
from ragspine.ingestion.numbers import parse_number

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom

_SEGMENT_GAP = 1.0  # a gap wider than this many letter heights separates two segments
_SAME_ROW = 2.0  # words whose baselines differ by at most this many points share a row
_ROW_PITCH = 3.0  # table rows sit at most this many row heights apart
_MIN_ROWS = 2  # a table needs numbers in at least this many rows ...
_MIN_NUMBER_COLUMNS = 2  # ... standing in at least this many columns
_GUTTER_ZONE = (0.3, 0.7)  # where a column gutter may sit, as shares of the text's width
_GUTTER_CROSSING = 0.2  # rows that may cross a gutter (a title spanning both columns)
_COLUMN_ROWS = 3  # rows each column needs
_COLUMN_FILL = 0.5  # a column's typical row fills at least this share of its width


@dataclass(frozen=True)
class PageTable:
    """A table found on a page: where it is and its grid of cells."""

    bbox: BBox
    cells: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class _Segment:
    text: str
    x0: float
    x1: float

    @property
    def is_number(self) -> bool:
        return parse_number(self.text) is not None

    def overlaps(self, band: tuple[float, float]) -> bool:
        return self.x0 < band[1] and band[0] < self.x1


@dataclass(frozen=True)
class Row:
    segments: tuple[_Segment, ...]
    top: float
    bottom: float

    @property
    def numbers(self) -> int:
        return sum(s.is_number for s in self.segments)


def page_rows(page: Page) -> list[Row]:
    """The page's words as rows of segments, top to bottom (what the two readings below
    take: a caller reading both off one page computes them once)."""
    words = sorted(page.extract_words(), key=lambda w: (float(w["bottom"]), float(w["x0"])))
    groups: list[list[dict[str, Any]]] = []
    for word in words:
        if groups and float(word["bottom"]) - float(groups[-1][0]["bottom"]) <= _SAME_ROW:
            groups[-1].append(word)
        else:
            groups.append([word])
    return [_row(group) for group in groups]


def _row(words: list[dict[str, Any]]) -> Row:
    words = sorted(words, key=lambda w: float(w["x0"]))
    height = statistics.median(float(w["bottom"]) - float(w["top"]) for w in words)
    runs: list[list[dict[str, Any]]] = []
    for word in words:
        if runs and float(word["x0"]) - float(runs[-1][-1]["x1"]) <= _SEGMENT_GAP * height:
            runs[-1].append(word)
        else:
            runs.append([word])
    segments = tuple(
        _Segment(" ".join(str(w["text"]) for w in run), float(run[0]["x0"]), float(run[-1]["x1"]))
        for run in runs
    )
    top = min(float(w["top"]) for w in words)
    return Row(segments, top, max(float(w["bottom"]) for w in words))


def _close(upper: Row, lower: Row) -> bool:
    height = max(upper.bottom - upper.top, 1.0)
    return 0 < lower.top - upper.top <= _ROW_PITCH * height


# ---------------------------------------------------------------------------------------------
# Tables without ruling lines


def borderless_tables(rows: Sequence[Row]) -> list[PageTable]:
    """Tables whose numbers stand in aligned columns over several rows, drawn without rules.

    A run of neighbouring rows that each hold at least two numbers fixes the columns; rows just
    above and below that fit those columns (headers, a spanning "Fiscal year") join the table.
    A paragraph never qualifies: its lines are one segment each, with no numbers set apart.
    ``rows`` are the page's ``page_rows``.
    """
    tables: list[PageTable] = []
    floor = 0  # rows above this belong to the previous table
    start = 0
    while start < len(rows):
        if rows[start].numbers < _MIN_NUMBER_COLUMNS:
            start += 1
            continue
        end = start
        while (
            end + 1 < len(rows)
            and rows[end + 1].numbers >= _MIN_NUMBER_COLUMNS
            and _close(rows[end], rows[end + 1])
        ):
            end += 1
        bands = _bands(rows[start : end + 1])
        if bands is None:
            start = end + 1
            continue
        first, last = start, end
        while (
            first > floor and _close(rows[first - 1], rows[first]) and _fits(rows[first - 1], bands)
        ):
            first -= 1
        while (
            last + 1 < len(rows)
            and _close(rows[last], rows[last + 1])
            and _fits(rows[last + 1], bands)
        ):
            last += 1
        tables.append(_page_table(rows[first : last + 1], bands))
        start = floor = last + 1
    return tables


def _bands(seed: Sequence[Row]) -> list[tuple[float, float]] | None:
    """The columns the seed rows agree on, or None when they do not make a table."""
    if len(seed) < _MIN_ROWS:
        return None
    bands: list[tuple[float, float]] = []
    for x0, x1 in sorted((s.x0, s.x1) for row in seed for s in row.segments):
        if bands and x0 < bands[-1][1]:
            bands[-1] = (bands[-1][0], max(bands[-1][1], x1))
        else:
            bands.append((x0, x1))
    for row in seed:
        placed = [i for s in row.segments for i, band in enumerate(bands) if s.overlaps(band)]
        if len(placed) != len(set(placed)):
            return None  # two segments of one row in one column: the columns do not line up
    number_columns = sum(
        sum(any(s.is_number and s.overlaps(band) for s in row.segments) for row in seed)
        >= _MIN_ROWS
        for band in bands
    )
    return bands if number_columns >= _MIN_NUMBER_COLUMNS else None


def _fits(row: Row, bands: list[tuple[float, float]]) -> bool:
    """A header-like row: each segment over its own columns, not a line of prose."""
    placed: list[int] = []
    for segment in row.segments:
        under = _under(segment, bands)
        if not under:
            return False
        placed += under
    if len(placed) != len(set(placed)):
        return False
    # One segment reaching into the first column is a caption or a sentence, not a header.
    return len(row.segments) >= 2 or 0 not in placed


def _under(segment: _Segment, bands: list[tuple[float, float]]) -> list[int]:
    """The columns a segment heads: those it overlaps, and both sides of a gap it is centred on.

    A short header centred over two columns ("US$m" above FY2024 and FY2025) may touch only
    one of them, but its centre sits in the gap between them.
    """
    under = [i for i, band in enumerate(bands) if segment.overlaps(band)]
    centre = (segment.x0 + segment.x1) / 2
    for i, (left, right) in enumerate(itertools.pairwise(bands)):
        if left[1] < centre < right[0]:
            under = sorted({*under, i, i + 1})
    return under


def _page_table(rows: Sequence[Row], bands: list[tuple[float, float]]) -> PageTable:
    def cell(r: int, row: Row, c: int) -> Cell:
        for segment in row.segments:
            under = _under(segment, bands)
            if c in under:
                return Cell(row=r, col=c, text=segment.text, merged=len(under) > 1)
        return Cell(row=r, col=c, text="")

    cells = tuple(tuple(cell(r, row, c) for c in range(len(bands))) for r, row in enumerate(rows))
    x0 = min([bands[0][0], *(s.x0 for row in rows for s in row.segments)])
    x1 = max([bands[-1][1], *(s.x1 for row in rows for s in row.segments)])
    return PageTable((x0, rows[0].top, x1, rows[-1].bottom), cells)


# ---------------------------------------------------------------------------------------------
# Text columns


def reading_regions(page: Page, rows: Sequence[Row]) -> list[Page]:
    """The page cut into the parts a reader takes in turn: left column, then right column.

    Without a gutter the page is one region. With one, rows that cross it (a title over both
    columns) are read where they stand, and between them the left column before the right.
    ``rows`` are the page's ``page_rows``.
    """
    gutter = _gutter(rows)
    if gutter is None:
        return [page]
    bands: list[tuple[bool, float, float]] = []  # crosses the gutter, top, bottom
    for row in rows:
        crosses = any(s.x0 < gutter < s.x1 for s in row.segments)
        if bands and bands[-1][0] == crosses:
            bands[-1] = (crosses, bands[-1][1], row.bottom)
        else:
            bands.append((crosses, row.top, row.bottom))
    cuts = [(a[2] + b[1]) / 2 for a, b in itertools.pairwise(bands)]
    edges = [float("-inf"), *cuts, float("inf")]
    regions: list[Page] = []
    for i, (crosses, _, _) in enumerate(bands):
        above, below = edges[i], edges[i + 1]
        if crosses:
            regions.append(_region(page, above, below, float("-inf"), float("inf")))
        else:
            regions.append(_region(page, above, below, float("-inf"), gutter))
            regions.append(_region(page, above, below, gutter, float("inf")))
    return regions


def _region(page: Page, above: float, below: float, left: float, right: float) -> Page:
    def keep(obj: dict[str, Any]) -> bool:
        if obj.get("object_type") != "char":
            return True
        x = (float(obj["x0"]) + float(obj["x1"])) / 2
        y = (float(obj["top"]) + float(obj["bottom"])) / 2
        return left <= x < right and above <= y < below

    return page.filter(keep)


def _gutter(rows: Sequence[Row]) -> float | None:
    """The x of a gutter between two columns of text, or None for a single-column page."""
    segments = [s for row in rows for s in row.segments]
    if len(rows) < 2 * _COLUMN_ROWS:
        return None
    left_edge = min(s.x0 for s in segments)
    right_edge = max(s.x1 for s in segments)
    width = right_edge - left_edge
    low, high = (left_edge + share * width for share in _GUTTER_ZONE)

    def crossing(x: float) -> int:
        return sum(any(s.x0 < x < s.x1 for s in row.segments) for row in rows)

    counts = {x: crossing(float(x)) for x in range(int(low), int(high) + 1)}
    if not counts:
        return None
    fewest = min(counts.values())
    if fewest > _GUTTER_CROSSING * len(rows):
        return None
    gutter = _middle_of_longest_run([x for x, n in counts.items() if n == fewest])
    left = [r for r in rows if any(s.x1 <= gutter for s in r.segments)]
    right = [r for r in rows if any(s.x0 >= gutter for s in r.segments)]
    if not (_filled(left, left_edge, gutter) and _filled(right, gutter, right_edge)):
        return None
    return gutter


def _middle_of_longest_run(xs: list[int]) -> float:
    runs: list[list[int]] = []
    for x in xs:
        if runs and x == runs[-1][-1] + 1:
            runs[-1].append(x)
        else:
            runs.append([x])
    longest = max(runs, key=len)
    return (longest[0] + longest[-1]) / 2


def _filled(rows: list[Row], left: float, right: float) -> bool:
    """Enough rows of text between ``left`` and ``right``, most filling the column's width."""
    if len(rows) < _COLUMN_ROWS:
        return False
    extents = []
    for row in rows:
        inside = [s for s in row.segments if s.x0 >= left and s.x1 <= right]
        if inside:
            extents.append(max(s.x1 for s in inside) - min(s.x0 for s in inside))
    return bool(extents) and statistics.median(extents) >= _COLUMN_FILL * (right - left)
