"""Numbers that exist only in a PowerPoint chart become facts that cite the series and category.

The deck is drawn with python-pptx's own chart API; it goes through the real reader, the table
mapper and the ingestion pipeline into a workspace store, and is then asked about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.chart.chart import Chart
from pptx.chart.data import BubbleChartData, CategoryChartData, XyChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.oxml.ns import qn
from pptx.presentation import Presentation as Deck
from pptx.slide import Slide
from pptx.util import Inches

from ragspine.facade import RAGSpine
from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, ReaderIssue, Table
from ragspine.ingestion.pipeline import Outcome, ingest
from ragspine.ingestion.readers.pptx_reader import PptxReader
from ragspine.storage.facts import Fact
from ragspine.workspace import Workspace

TITLE_ONLY = 5
DOC = "ACME_charts.pptx"


def _slide(prs: Deck, title: str) -> Slide:
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = title
    return slide


def _chart(
    slide: Slide,
    kind: XL_CHART_TYPE,
    categories: Sequence[object],
    series: dict[str, tuple[float | None, ...]],
    *,
    number_format: str = "General",
    left: float = 1.0,
) -> Chart:
    data = CategoryChartData(number_format=number_format)
    data.categories = categories
    for name, values in series.items():
        data.add_series(name, values)
    frame = slide.shapes.add_chart(kind, Inches(left), Inches(2), Inches(4), Inches(4), data)
    return frame.chart


def _titled(chart: Chart, title: str) -> Chart:
    chart.has_title = True
    chart.chart_title.text_frame.text = title
    return chart


def _build_deck(path: Path) -> Path:
    prs = Presentation()

    # 1: periods across, a metric down; the slide title names metric and entity. A second
    # chart's own title (another metric) wins over the slide title.
    slide = _slide(prs, "Group operating profit")
    _chart(
        slide,
        XL_CHART_TYPE.COLUMN_CLUSTERED,
        ["FY2023", "FY2024", "FY2025"],
        {"Operating profit": (5800, 6300, 6950)},
        number_format="#,##0",
    )
    margin = _chart(
        slide,
        XL_CHART_TYPE.LINE_MARKERS,
        ["FY2024", "FY2025"],
        {"ACME Group": (0.552, 0.571)},
        number_format="0.0%",
        left=5.5,
    )
    _titled(margin, "NBV margin (%)")

    # 2: channels across, periods down; the chart's title names the entity, metric and unit.
    slide = _slide(prs, "Channels")
    slide.shapes.add_textbox(
        Inches(1), Inches(6.5), Inches(4), Inches(0.4)
    ).text_frame.text = "Source: management accounts"
    hk = _chart(
        slide,
        XL_CHART_TYPE.LINE,
        ["Agency", "Bancassurance"],
        {"FY2024": (410, 220), "FY2025": (455, 240)},
    )
    _titled(hk, "ACME Hong Kong — operating profit (USD m)")

    # 3: metrics across, periods down; billions on the value axis, data labels in one decimal.
    slide = _slide(prs, "ACME China — results")
    cn = _chart(
        slide,
        XL_CHART_TYPE.BAR_CLUSTERED,
        ["Revenue", "Net profit"],
        {"FY2024": (1.32, 0.41), "FY2025": (1.45, 0.47)},
    )
    cn.value_axis.has_title = True
    cn.value_axis.axis_title.text_frame.text = "US$bn"
    cn.plots[0].has_data_labels = True
    cn.plots[0].data_labels.number_format = "0.0"

    # 4: a series and a category the profile does not explain.
    slide = _slide(prs, "ACME Macau")
    _chart(
        slide,
        XL_CHART_TYPE.COLUMN_CLUSTERED,
        ["FY2024", "FY2025", "FY2026 budget"],
        {"收入": (300, 320, 350), "其他收入": (12, 15, 16)},
    )

    # 5: a pie of entities, its title naming metric and period.
    slide = _slide(prs, "Revenue mix FY2023")
    _chart(
        slide,
        XL_CHART_TYPE.PIE,
        ["Hong Kong", "Mainland China", "Macau"],
        {"Revenue": (2480, 1290, 300)},
    )

    # 6: a scatter chart: its points have no categories.
    slide = _slide(prs, "Group revenue vs agents")
    xy = XyChartData()
    points = xy.add_series("Revenue")
    points.add_data_point(5200, 2710)
    slide.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, Inches(1), Inches(2), Inches(4), Inches(4), xy)

    # 7: one series without values next to one with.
    slide = _slide(prs, "Headcount FY2025")
    _chart(
        slide,
        XL_CHART_TYPE.COLUMN_CLUSTERED,
        ["Hong Kong", "Macau"],
        {"Agent count": (5200, 800), "NBV": (None, None)},
    )

    # 8: dates on a time axis.
    slide = _slide(prs, "Group revenue")
    _chart(
        slide,
        XL_CHART_TYPE.LINE,
        [date(2024, 12, 31), date(2025, 12, 31)],
        {"Revenue": (5100, 5400)},
    )

    # 9: two category levels: years over quarters.
    slide = _slide(prs, "ACME HK quarterly revenue (US$m)")
    data = CategoryChartData()
    year = data.add_category("2025")
    year.add_sub_category("Q1")
    year.add_sub_category("Q2")
    data.add_series("Revenue", (640, 700))
    slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(4), Inches(4), data
    )

    prs.save(path)
    return path


@pytest.fixture(scope="module")
def deck_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_deck(tmp_path_factory.mktemp("charts") / DOC)


@pytest.fixture(scope="module")
def document(deck_path: Path) -> ExtractedDocument:
    return PptxReader().read(deck_path)


def _table(document: ExtractedDocument, prefix: str) -> Table:
    return next(t for t in document.tables if t.locator_prefix == prefix)


def _texts(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.cells]


# --------------------------------------------------------------------------- the reader


def test_each_readable_chart_is_one_chart_table(document: ExtractedDocument) -> None:
    assert [(t.locator_prefix, t.locator_style) for t in document.tables] == [
        (prefix, LocatorStyle.CHART)
        for prefix in (
            "slide=1,chart=1",
            "slide=1,chart=2",
            "slide=2,chart=1",
            "slide=3,chart=1",
            "slide=4,chart=1",
            "slide=5,chart=1",
            "slide=7,chart=1",
            "slide=9,chart=1",
        )
    ]


def test_series_become_rows_with_values_shown_in_their_number_format(
    document: ExtractedDocument,
) -> None:
    profit = _table(document, "slide=1,chart=1")
    assert _texts(profit) == [
        ["", "FY2023", "FY2024", "FY2025"],
        ["Operating profit", "5,800", "6,300", "6,950"],
    ]
    assert [(c.value, c.number_format) for c in profit.cells[1][1:]] == [
        (5800.0, "#,##0"),
        (6300.0, "#,##0"),
        (6950.0, "#,##0"),
    ]
    assert profit.cells[0][1].value is None  # a category label is a header, never a value
    margin = _table(document, "slide=1,chart=2")
    assert _texts(margin)[1] == ["ACME Group", "55.2%", "57.1%"]
    assert margin.cells[1][1].value == pytest.approx(0.552)


def test_data_label_format_decides_the_text_but_not_the_value(
    document: ExtractedDocument,
) -> None:
    china = _table(document, "slide=3,chart=1")
    assert _texts(china) == [
        ["", "Revenue", "Net profit"],
        ["FY2024", "1.3", "0.4"],
        ["FY2025", "1.5", "0.5"],
    ]
    assert [c.value for c in china.cells[1][1:]] == [1.32, 0.41]


def test_title_is_the_charts_own_else_the_slides_and_context_is_nearest_first(
    document: ExtractedDocument,
) -> None:
    hk = _table(document, "slide=2,chart=1")
    assert hk.title == "ACME Hong Kong — operating profit (USD m)"
    assert hk.context == ("Channels", "Source: management accounts")
    china = _table(document, "slide=3,chart=1")
    assert (china.title, china.context) == ("ACME China — results", ("US$bn",))


def test_category_levels_are_header_rows_like_merged_cells(document: ExtractedDocument) -> None:
    quarterly = _table(document, "slide=9,chart=1")
    assert [[(c.text, c.merged) for c in row] for row in quarterly.cells] == [
        [("", False), ("2025", True), ("2025", True)],
        [("", False), ("Q1", False), ("Q2", False)],
        [("Revenue", False), ("640", False), ("700", False)],
    ]


def test_charts_that_cannot_be_read_are_issues_with_their_reason(
    document: ExtractedDocument,
) -> None:
    assert document.issues == [
        ReaderIssue(
            "slide=6,chart=1", "chart not read: an XY (scatter) chart has no category labels"
        ),
        ReaderIssue("slide=7,chart=1,series=NBV", "chart series not read: it has no values"),
        ReaderIssue(
            "slide=8,chart=1", "chart not read: its categories are dates on a time axis, not labels"
        ),
    ]
    headcount = _table(document, "slide=7,chart=1")
    assert _texts(headcount) == [["", "Hong Kong", "Macau"], ["Agent count", "5200", "800"]]


@dataclass(frozen=True)
class _Bad:
    categories: Sequence[object]
    series: dict[str, tuple[float | None, ...]]
    reason: str


@pytest.mark.parametrize(
    "bad",
    [
        _Bad(["FY2024", ""], {"Revenue": (1, 2)}, "category 2 has no label"),
        _Bad(
            ["FY2024", "FY2024"], {"Revenue": (1, 2)}, "category 2 repeats the label of category 1"
        ),
        _Bad([1.5, 2.5], {"Revenue": (1, 2)}, "category label '1.5' is a number, not a name"),
        _Bad(
            ["FY2024"],
            {"Revenue": (1,), "Revenue ": (2,)},
            "series 2 repeats the label of series 1",
        ),
        _Bad(["FY2024", "FY2025"], {"Revenue": (None, None)}, "no values"),
        _Bad(["FY2024"], {"Revenue": (1, 2)}, "series 1 has more values than there are categories"),
    ],
    ids=[
        "blank category",
        "repeated category",
        "numeric category",
        "repeated series",
        "empty",
        "too many values",
    ],
)
def test_labels_that_cannot_name_a_locator_make_the_chart_unreadable(
    tmp_path: Path, bad: _Bad
) -> None:
    prs = Presentation()
    slide = _slide(prs, "Group revenue")
    _chart(slide, XL_CHART_TYPE.COLUMN_CLUSTERED, bad.categories, bad.series)
    prs.save(tmp_path / "bad.pptx")
    document = PptxReader().read(tmp_path / "bad.pptx")
    assert document.tables == []
    assert document.issues[-1] == ReaderIssue("slide=1,chart=1", f"chart not read: {bad.reason}")


def test_a_bubble_chart_is_unreadable(tmp_path: Path) -> None:
    prs = Presentation()
    slide = _slide(prs, "Group revenue")
    bubbles = BubbleChartData()
    bubbles.add_series("Revenue").add_data_point(1, 2, 3)
    slide.shapes.add_chart(
        XL_CHART_TYPE.BUBBLE, Inches(1), Inches(2), Inches(4), Inches(4), bubbles
    )
    prs.save(tmp_path / "bubble.pptx")
    document = PptxReader().read(tmp_path / "bubble.pptx")
    assert (document.tables, document.issues) == (
        [],
        [ReaderIssue("slide=1,chart=1", "chart not read: a bubble chart has no category labels")],
    )


def _without_categories(chart: Chart) -> None:
    for categories in chart.plots[0]._element.xpath("./c:ser/c:cat"):
        categories.getparent().remove(categories)


def _as_3d_columns(chart: Chart) -> None:
    # What PowerPoint writes for a 3-D column chart; python-pptx cannot draw one itself.
    chart.plots[0]._element.tag = qn("c:bar3DChart")


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (_without_categories, "it has no categories"),
        (_as_3d_columns, "its chart type is not supported (bar3DChart)"),
    ],
)
def test_charts_python_pptx_cannot_draw_are_unreadable_too(
    tmp_path: Path, edit: Callable[[Chart], None], reason: str
) -> None:
    prs = Presentation()
    slide = _slide(prs, "Group revenue")
    edit(_chart(slide, XL_CHART_TYPE.COLUMN_CLUSTERED, ["FY2024"], {"Revenue": (1,)}))
    prs.save(tmp_path / "edited.pptx")
    document = PptxReader().read(tmp_path / "edited.pptx")
    assert (document.tables, document.issues) == (
        [],
        [ReaderIssue("slide=1,chart=1", f"chart not read: {reason}")],
    )


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def workspace(deck_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    workspace = Workspace.create(tmp_path_factory.mktemp("ws") / "ws")
    with workspace.fact_store() as store:
        report = ingest([deck_path], store, workspace.profile())
    assert [(r.doc_id, r.outcome) for r in report.results] == [(DOC, Outcome.INGESTED)]
    return workspace


def _chart_locator(slide: int, chart: int, series: str, category: str) -> str:
    return f"slide={slide},chart={chart},series={series},category={category}"


EXPECTED_FACTS = {
    # metric, entity, channel, period, value, unit, locator
    ("OPERATING_PROFIT", "ACME_GROUP", "TOTAL", "FY2023", 5800.0, "USD_M",
     _chart_locator(1, 1, "Operating profit", "FY2023")),
    ("OPERATING_PROFIT", "ACME_GROUP", "TOTAL", "FY2024", 6300.0, "USD_M",
     _chart_locator(1, 1, "Operating profit", "FY2024")),
    ("OPERATING_PROFIT", "ACME_GROUP", "TOTAL", "FY2025", 6950.0, "USD_M",
     _chart_locator(1, 1, "Operating profit", "FY2025")),
    ("NBV_MARGIN", "ACME_GROUP", "TOTAL", "FY2024", 55.2, "PCT",
     _chart_locator(1, 2, "ACME Group", "FY2024")),
    ("NBV_MARGIN", "ACME_GROUP", "TOTAL", "FY2025", 57.1, "PCT",
     _chart_locator(1, 2, "ACME Group", "FY2025")),
    ("OPERATING_PROFIT", "ACME_HK", "AGENCY", "FY2024", 410.0, "USD_M",
     _chart_locator(2, 1, "FY2024", "Agency")),
    ("OPERATING_PROFIT", "ACME_HK", "BANCA", "FY2024", 220.0, "USD_M",
     _chart_locator(2, 1, "FY2024", "Bancassurance")),
    ("OPERATING_PROFIT", "ACME_HK", "AGENCY", "FY2025", 455.0, "USD_M",
     _chart_locator(2, 1, "FY2025", "Agency")),
    ("OPERATING_PROFIT", "ACME_HK", "BANCA", "FY2025", 240.0, "USD_M",
     _chart_locator(2, 1, "FY2025", "Bancassurance")),
    ("REVENUE", "ACME_CN", "TOTAL", "FY2024", 1320.0, "USD_M",
     _chart_locator(3, 1, "FY2024", "Revenue")),
    ("NET_PROFIT", "ACME_CN", "TOTAL", "FY2024", 410.0, "USD_M",
     _chart_locator(3, 1, "FY2024", "Net profit")),
    ("REVENUE", "ACME_CN", "TOTAL", "FY2025", 1450.0, "USD_M",
     _chart_locator(3, 1, "FY2025", "Revenue")),
    ("NET_PROFIT", "ACME_CN", "TOTAL", "FY2025", 470.0, "USD_M",
     _chart_locator(3, 1, "FY2025", "Net profit")),
    ("REVENUE", "ACME_MO", "TOTAL", "FY2024", 300.0, "USD_M",
     _chart_locator(4, 1, "收入", "FY2024")),
    ("REVENUE", "ACME_MO", "TOTAL", "FY2025", 320.0, "USD_M",
     _chart_locator(4, 1, "收入", "FY2025")),
    ("REVENUE", "ACME_HK", "TOTAL", "FY2023", 2480.0, "USD_M",
     _chart_locator(5, 1, "Revenue", "Hong Kong")),
    ("REVENUE", "ACME_CN", "TOTAL", "FY2023", 1290.0, "USD_M",
     _chart_locator(5, 1, "Revenue", "Mainland China")),
    ("REVENUE", "ACME_MO", "TOTAL", "FY2023", 300.0, "USD_M",
     _chart_locator(5, 1, "Revenue", "Macau")),
    ("AGENT_COUNT", "ACME_HK", "TOTAL", "FY2025", 5200.0, "COUNT",
     _chart_locator(7, 1, "Agent count", "Hong Kong")),
    ("AGENT_COUNT", "ACME_MO", "TOTAL", "FY2025", 800.0, "COUNT",
     _chart_locator(7, 1, "Agent count", "Macau")),
    ("REVENUE", "ACME_HK", "TOTAL", "2025Q1", 640.0, "USD_M",
     _chart_locator(9, 1, "Revenue", "2025 Q1")),
    ("REVENUE", "ACME_HK", "TOTAL", "2025Q2", 700.0, "USD_M",
     _chart_locator(9, 1, "Revenue", "2025 Q2")),
}  # fmt: skip


def _label(fact: Fact) -> str:
    """The period as the fact key spells it: "FY2024", "2025Q1"."""
    year, kind = fact.period, fact.period_type
    return f"FY{year}" if kind == "FY" else f"{year}{kind}"


def test_chart_numbers_are_stored_as_facts_citing_series_and_category(
    workspace: Workspace,
) -> None:
    with workspace.fact_store() as store:
        facts = {
            (f.metric_code, f.entity, f.channel, _label(f), f.value, f.unit, f.source_locator)
            for f in store.list_facts(doc_id=DOC)
        }
    assert facts == EXPECTED_FACTS


def test_what_a_chart_does_not_say_plainly_goes_to_review(workspace: Workspace) -> None:
    with workspace.fact_store() as store:
        items = sorted((i.locator, i.reason, i.detail) for i in store.list_review())
    assert items == [
        (
            "slide=4,chart=1,category=FY2026 budget",
            "unmapped_label",
            "column label 'FY2026 budget' is not in the glossary",
        ),
        (
            "slide=4,chart=1,series=其他收入",
            "unmapped_label",
            "row label '其他收入' is not in the glossary",
        ),
        (
            "slide=6,chart=1",
            "unreadable",
            "chart not read: an XY (scatter) chart has no category labels",
        ),
        ("slide=7,chart=1,series=NBV", "unreadable", "chart series not read: it has no values"),
        (
            "slide=8,chart=1",
            "unreadable",
            "chart not read: its categories are dates on a time axis, not labels",
        ),
    ]


def test_a_figure_only_charted_is_answered_with_its_chart_locator(workspace: Workspace) -> None:
    with RAGSpine.open(workspace.root) as rag:
        result = rag.ask("What was group operating profit in FY2024?")
    assert result.answer_kind == "found"
    assert "US$ 6,300 m" in result.answer
    assert [(s.doc, s.locator) for s in result.sources] == [
        (DOC, _chart_locator(1, 1, "Operating profit", "FY2024"))
    ]
