"""The demo corpus's regression documents: the shapes real reports take that tables alone miss.

Each document carries one or more shapes the readers handle — a chart whose numbers exist only
in the chart, a sheet named "Summary" whose entity is in its A1 title, year-like values (2010,
2050) in a Word table and in a PDF table, a Word page header naming the entity under a chain
of headings, relative-period headers (本年/上年), a PDF table without ruling lines, a two-column
PDF page and a scanned page whose table only OCR can read. They state FY2019 and FY2020 figures
no other demo document states, so the answers the rest of the corpus gives stay as they were.
"""

from __future__ import annotations

from ragspine.demo.corpus_figures import figure, series
from ragspine.demo.corpus_model import USD_M, USD_M_EN, Codes, Column, Row, TableSpec, Unit, Val
from ragspine.demo.corpus_truth import TrickyCase
from ragspine.demo.corpus_writers import (
    DeckSpec,
    FlowSpec,
    Heading,
    Para,
    PdfColumns,
    PdfScan,
    PdfSpec,
    PdfTable,
    PdfText,
    SheetSpec,
    SlideSpec,
    TableBlock,
    WorkbookSpec,
)

CN, MO, GROUP = "ACME_CN", "ACME_MO", "ACME_GROUP"
YEARS = ("FY2019", "FY2020")

CHART_DECK = "decks/ACME_FY2020_Charts.pptx"
SUMMARY_BOOK = "workbooks/ACME_Macau_Summary.xlsx"
SUPPLEMENT = "reports/ACME_2020_Supplement.pdf"
MACAU_REVIEW = "memos/MO_Review_2020.docx"

SENSITIVITY: dict[str, str] = dict.fromkeys(
    (CHART_DECK, SUMMARY_BOOK, SUPPLEMENT, MACAU_REVIEW), "INTERNAL"
)


def _row(label: str, metric: str, entity: str, *, unit: Unit | None = None, fmt: str = "") -> Row:
    cells = series(metric, entity, YEARS)
    return Row((label,), Codes(metric=metric), cells, unit=unit, fmt=fmt or "{:,.0f}")


def _table(
    title: str, title_codes: Codes, rows: tuple[Row, ...], title_unit: Unit | None = None
) -> TableSpec:
    return TableSpec(
        title=title,
        title_codes=title_codes,
        header=(("", *YEARS),),
        columns=tuple(Column(Codes(period=p)) for p in YEARS),
        rows=rows,
        title_unit=title_unit,
    )


# --------------------------------------------------------------------------- a chart slide


def chart_deck() -> DeckSpec:
    chart = _table(
        "ACME集团主要数据（百万美元）",
        Codes(entity=GROUP),
        (_row("营运利润", "OPERATING_PROFIT", GROUP), _row("内含价值", "EMBEDDED_VALUE", GROUP)),
        title_unit=USD_M,
    )
    return DeckSpec(
        (
            SlideSpec("ACME FY2020 图表回顾", subtitle="集团主要数据图表"),
            SlideSpec("集团主要数据", chart=chart),
        )
    )


# --------------------------------------------------------------------------- an A1-titled sheet


def summary_book() -> WorkbookSpec:
    title = "ACME Macau — summary (US$m)"
    table = _table(
        title,
        Codes(entity=MO),
        (_row("Operating profit", "OPERATING_PROFIT", MO), _row("Net profit", "NET_PROFIT", MO)),
        title_unit=USD_M_EN,
    )
    return WorkbookSpec((SheetSpec("Summary", table, title_lines=(title,)),))


# --------------------------------------------------------------------------- a Word review


def macau_review() -> FlowSpec:
    """The entity is named only by the page header, the year only by the top heading, and the
    columns say 本年/上年: every dimension but the metric comes from around the table."""
    relative = (
        Column(Codes(period="FY2020"), relative=True),
        Column(Codes(period="FY2019"), relative=True),
    )
    rows = (
        Row(
            ("代理人数量",),
            Codes(metric="AGENT_COUNT"),
            # Year-like values in a body cell: numbers, not periods.
            tuple(Val(figure("AGENT_COUNT", MO, p)) for p in ("FY2020", "FY2019")),
            fmt="{:.0f}",
        ),
        Row(
            ("新业务价值（百万美元）",),
            Codes(metric="NBV"),
            tuple(Val(figure("NBV", MO, p)) for p in ("FY2020", "FY2019")),
            unit=USD_M,
        ),
    )
    table = TableSpec(
        title="表1：队伍与价值",
        title_codes=Codes(),
        header=(("", "本年", "上年"),),
        columns=relative,
        rows=rows,
        context_codes=Codes(entity=MO, period="FY2020"),
    )
    return FlowSpec(
        (
            Heading("2020年度业务回顾", 1),
            Para("本文件回顾年度队伍规模与价值创造的变化。"),
            Heading("一、队伍与价值", 2),
            Para("队伍规模稳中有升，价值指标受市场环境影响有所回落。"),
            Para(table.title),
            TableBlock(table),
        ),
        page_header="ACME Macau",
    )


# --------------------------------------------------------------------------- a PDF supplement


def supplement() -> PdfSpec:
    unruled = _table(
        "Table 1: Mainland China at a glance",
        Codes(entity=CN),
        (
            _row("Agent count", "AGENT_COUNT", CN, fmt="{:.0f}"),  # 1998 and 2046: year-like
            _row("Operating profit (US$m)", "OPERATING_PROFIT", CN, unit=USD_M_EN),
        ),
    )
    scanned = _table(
        "ACME Mainland China embedded value (US$m)",
        Codes(entity=CN, metric="EMBEDDED_VALUE"),
        (_row("Embedded value", "EMBEDDED_VALUE", CN),),
        title_unit=USD_M_EN,
    )
    title = "2020 Supplementary Tables"
    return PdfSpec(
        title=title,
        pages=(
            (
                PdfText(title, 18, bold=True, gap_after=14),
                PdfColumns(
                    left=(
                        "Basis of preparation. This supplement restates selected amounts for "
                        "2019 and 2020 on the reporting basis used from 2021 onwards.",
                        "The amounts are unaudited and are shown for comparison.",
                    ),
                    right=(
                        "Reading the tables. Amounts are in US dollars unless a table says "
                        "otherwise; headcounts are at the year end.",
                        "A scanned copy of the original schedule is attached as the last page.",
                    ),
                ),
            ),
            (
                PdfText(unruled.title, 10, bold=True, gap_after=2),
                PdfTable(unruled, (200.0, 90.0, 90.0), ruled=False),
            ),
            (PdfScan(scanned),),
        ),
    )


TRICKY_CASES: tuple[TrickyCase, ...] = (
    TrickyCase(
        "chart values",
        CHART_DECK,
        "slide=2,chart=1,series=营运利润,category=FY2020",
        "Only the chart holds the numbers; its title names the group and the unit -> "
        "OPERATING_PROFIT ACME_GROUP FY2020 = 1062 USD_M.",
    ),
    TrickyCase(
        "entity from the A1 title",
        SUMMARY_BOOK,
        "sheet=Summary,cell=C3",
        "Sheet 'Summary' names nothing; A1 'ACME Macau — summary (US$m)' gives the entity and "
        "the unit -> OPERATING_PROFIT ACME_MO FY2020 = 33.",
    ),
    TrickyCase(
        "year-like value in a Word table",
        MACAU_REVIEW,
        "table=1,row=2,col=2",
        "'2050' in a metric row's body is a value, not a year -> AGENT_COUNT ACME_MO FY2020.",
    ),
    TrickyCase(
        "relative-period header",
        MACAU_REVIEW,
        "table=1,row=3,col=3",
        "'上年' under the heading '2020年度业务回顾' -> FY2019; the entity comes from the page "
        "header 'ACME Macau' -> NBV ACME_MO FY2019 = 88.",
    ),
    TrickyCase(
        "table without ruling lines, year-like values",
        SUPPLEMENT,
        "page=2,table=1,row=2,col=2",
        "Cells only aligned, no lines; '1998' is a value -> AGENT_COUNT ACME_CN FY2019 = 1998.",
    ),
)
