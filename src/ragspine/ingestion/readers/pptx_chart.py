"""Turn one PowerPoint chart into a table the mapper reads like any other, or say why not.

A category chart (bar, column, line, area, pie, doughnut, radar) becomes a grid with one header
row per category level and one row per series: the series name in column 0, then each point's
value with the text the chart shows for it. Which way round categories and series go (periods
across and metrics down, or the reverse, or entities) is left to the table mapper. Charts
whose points have no category labels (XY, bubble), whose labels cannot name a row or column
(blank, repeated, numbers or dates) or whose values do not line up with them are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pptx.chart.axis import DateAxis
from pptx.chart.chart import Chart
from pptx.chart.plot import BubblePlot, XyPlot

from ragspine.ingestion.model import Cell, LocatorStyle, ReaderIssue, Table
from ragspine.ingestion.numbers import parse_number
from ragspine.ingestion.readers.number_format import render_number
from ragspine.profile.periods import find_periods


@dataclass(frozen=True)
class ChartReading:
    """The chart's table (None when it cannot be read) and what a reviewer must see."""

    table: Table | None
    issues: tuple[ReaderIssue, ...] = ()


@dataclass(frozen=True)
class _Series:
    name: str
    values: tuple[float | None, ...]
    number_format: str


class _NotRead(Exception):
    """The chart as a whole cannot become a table; the message says why."""


def read_chart(chart: Chart, prefix: str, slide_title: str, context: Sequence[str]) -> ChartReading:
    """``prefix`` is the chart's locator (``slide=4,chart=1``); ``context`` is the slide's other
    text, nearest first."""
    try:
        plots = _category_plots(chart)
        categories = _categories(chart, plots)
        series, empty = _series(plots, len(categories))
    except _NotRead as problem:
        return ChartReading(None, (ReaderIssue(prefix, f"chart not read: {problem}"),))
    issues = tuple(
        ReaderIssue(f"{prefix},series={name}", "chart series not read: it has no values")
        for name in empty
    )
    if not series:
        return ChartReading(None, (*issues, ReaderIssue(prefix, "chart not read: no values")))
    chart_title = _title_text(chart)
    around = [*_axis_titles(chart), slide_title if chart_title else "", *context]
    table = Table(
        cells=_grid(categories, series),
        locator_prefix=prefix,
        locator_style=LocatorStyle.CHART,
        title=chart_title or slide_title,
        context=tuple(text for text in around if text),
    )
    return ChartReading(table, issues)


def _category_plots(chart: Chart) -> list[Any]:
    try:
        plots = list(chart.plots)
    except ValueError as unsupported:  # python-pptx knows no 3-D, stock or surface plot
        kind = str(unsupported).rsplit("}", 1)[-1]  # the plot element's name, "bar3DChart"
        raise _NotRead(f"its chart type is not supported ({kind})") from None
    if any(isinstance(plot, BubblePlot) for plot in plots):
        raise _NotRead("a bubble chart has no category labels")
    if any(isinstance(plot, XyPlot) for plot in plots):
        raise _NotRead("an XY (scatter) chart has no category labels")
    if not plots:
        raise _NotRead("it has no plots")
    return plots


def _categories(chart: Chart, plots: list[Any]) -> list[tuple[str, ...]]:
    """Each category's labels from the outermost level to the leaf, checked to name a column."""
    per_plot = [_plot_categories(plot) for plot in plots]
    categories = per_plot[0]
    if not categories:
        raise _NotRead("it has no categories")
    if any(other != categories for other in per_plot[1:]):
        raise _NotRead("its plots have different categories")
    if isinstance(_category_axis(chart), DateAxis):
        raise _NotRead("its categories are dates on a time axis, not labels")
    leaves = [" ".join(labels) for labels in categories]
    _check_labels("category", leaves)
    return categories


def _plot_categories(plot: Any) -> list[tuple[str, ...]]:
    categories = plot.categories
    # Levels run leaf first; an outer category spans the leaves from its own index onwards.
    leaf, *outer = categories.levels or [categories]
    if len(leaf) != len(categories):  # a blank leaf of a multi-level axis has no point at all
        raise _NotRead("a category has no label")
    return [
        (*(_parent(level, category.idx) for level in reversed(outer)), _label(category))
        for category in leaf
    ]


def _parent(level: Any, idx: int) -> str:
    spanning = [category for category in level if category.idx <= idx]
    return _label(spanning[-1]) if spanning else ""


def _label(category: Any) -> str:
    # python-pptx reads an empty "<c:v/>" as "None"; PowerPoint writes no point for a blank.
    point = category._element
    return one_line(point.v.text or "") if point is not None else ""


def _category_axis(chart: Chart) -> Any:
    try:
        return chart.category_axis
    except ValueError:  # a pie or doughnut chart has no axes
        return None


def _series(plots: list[Any], n_categories: int) -> tuple[list[_Series], list[str]]:
    """The series with values, and the names of those without any."""
    read: list[_Series] = []
    empty: list[str] = []
    for plot in plots:
        for series in plot.series:
            name = one_line(series.name)
            values = tuple(series.values)
            if len(values) > n_categories:
                position = len(read) + len(empty) + 1
                raise _NotRead(f"series {position} has more values than there are categories")
            padded = values + (None,) * (n_categories - len(values))
            if all(v is None for v in padded):
                empty.append(name)
            else:
                read.append(_Series(name, padded, _number_format(plot, series)))
    _check_labels("series", [s.name for s in read] + empty)
    return read, empty


def _check_labels(kind: str, labels: list[str]) -> None:
    """Each label names one row or column of the table and so one locator: it must be there,
    be unique and not read as a number (a date axis' serial day "45291", say).

    Reasons name positions, not labels: the pipeline files a reason mentioning OCR under
    ``needs_ocr``, and a label could spell those letters."""
    seen: dict[str, int] = {}
    for position, label in enumerate(labels, start=1):
        if not label:
            raise _NotRead(f"{kind} {position} has no label")
        if label in seen:
            raise _NotRead(f"{kind} {position} repeats the label of {kind} {seen[label]}")
        if parse_number(label) is not None and not _whole_period(label):
            raise _NotRead(f"{kind} label {label!r} is a number, not a name")
        seen[label] = position


def _whole_period(text: str) -> bool:
    matches = find_periods(text)
    return len(matches) == 1 and (matches[0].start, matches[0].end) == (0, len(text))


def _number_format(plot: Any, series: Any) -> str:
    """How the chart shows the series' values: its own data labels' format, else the plot's,
    else the format of the data behind it ("General" when none is given)."""
    # python-pptx reads neither a series' data labels nor its source format without adding
    # elements to the chart, so both come straight from the series XML.
    element = series._element
    own = element.dLbls.numFmt if element.dLbls is not None else None
    if own is not None and own.sourceLinked is False:
        return str(own.formatCode)
    if plot.has_data_labels and not plot.data_labels.number_format_is_linked:
        return str(plot.data_labels.number_format)
    codes = element.xpath("./c:val//c:formatCode/text()")
    return str(codes[0]) if codes else "General"


def _grid(categories: list[tuple[str, ...]], series: list[_Series]) -> tuple[tuple[Cell, ...], ...]:
    depth = len(categories[0])
    header = tuple(
        (
            Cell(row=level, col=0, text=""),
            *(
                # An outer level spans its leaves, like a merged header cell.
                Cell(row=level, col=c, text=labels[level], merged=level < depth - 1)
                for c, labels in enumerate(categories, start=1)
            ),
        )
        for level in range(depth)
    )
    rows = tuple(
        (
            Cell(row=r, col=0, text=s.name),
            *(_value_cell(r, c, value, s.number_format) for c, value in enumerate(s.values, 1)),
        )
        for r, s in enumerate(series, start=depth)
    )
    return header + rows


def _value_cell(row: int, col: int, value: float | None, number_format: str) -> Cell:
    if value is None:
        return Cell(row=row, col=col, text="")
    text = render_number(value, number_format)
    return Cell(row=row, col=col, text=text, value=float(value), number_format=number_format)


def _title_text(chart: Chart) -> str:
    if not chart.has_title:  # reading chart_title would add one
        return ""
    title = chart.chart_title
    return one_line(title.text_frame.text) if title.has_text_frame else ""


def _axis_titles(chart: Chart) -> list[str]:
    """The value axis' title (where units are written), then the category axis'."""
    titles: list[str] = []
    for axis in (_value_axis(chart), _category_axis(chart)):
        if axis is not None and axis.has_title and axis.axis_title.has_text_frame:
            titles.append(one_line(axis.axis_title.text_frame.text))
    return titles


def _value_axis(chart: Chart) -> Any:
    try:
        return chart.value_axis
    except ValueError:
        return None


def one_line(text: str) -> str:
    """``text`` on one line: line and vertical-tab breaks become single spaces."""
    return " ".join(text.replace("\v", " ").split())
