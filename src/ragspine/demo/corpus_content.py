"""The demo corpus's documents: ACME decks, a workbook, an annual report and memos.

Every table is declared with what its headers and title name (see ``corpus_model``), so the
ground truth follows from the declaration; the prose repeats some table figures the way
management commentary does, and the driver narrative ("香港收入增长主要受代理人渠道新业务带动")
sits on text slides and in notes, away from tables whose channel must default to TOTAL.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragspine.demo.corpus_figures import figure, series
from ragspine.demo.corpus_model import (
    CNY_YI,
    PERCENT,
    USD_BN_EN,
    USD_M,
    USD_M_EN,
    Codes,
    Column,
    Note,
    Row,
    Skip,
    TableSpec,
    Unit,
    Val,
)
from ragspine.demo.corpus_truth import TrickyCase
from ragspine.demo.corpus_writers import (
    DeckSpec,
    FlowSpec,
    Heading,
    Para,
    PdfImage,
    PdfSpec,
    PdfTable,
    PdfText,
    SheetSpec,
    SlideSpec,
    TableBlock,
    WorkbookSpec,
)

HK, CN, MO, GROUP = "ACME_HK", "ACME_CN", "ACME_MO", "ACME_GROUP"

DECK_FY2024 = "decks/ACME_FY2024_Review.pptx"
DECK_FY2025 = "decks/ACME_FY2025_Review.pptx"
DECK_H1 = "decks/ACME_2025H1_Results.pptx"
DECK_Q3 = "decks/ACME_2025Q3_Update.pptx"
WORKBOOK = "workbooks/ACME_5Y_Financials.xlsx"
ANNUAL_REPORT = "reports/ACME_annual_report_2025.pdf"
HK_MEMO = "memos/HK_Regulatory_Memo.docx"
CN_MEMO = "memos/CN_Regulation_Update.md"
STRATEGY = "memos/Strategy_2026.md"
BOARD = "memos/board_minutes_2025.docx"

# Sidecars: ``<file name>.meta.json`` may raise the level the other sensitivity rules give.
SIDECARS: dict[str, str] = {STRATEGY: "CONFIDENTIAL"}

# Each document's sensitivity and the rule (R9) that sets it; the tests re-derive these.
SENSITIVITY: dict[str, str] = {
    DECK_FY2024: "INTERNAL",
    DECK_FY2025: "INTERNAL",
    DECK_H1: "INTERNAL",
    DECK_Q3: "INTERNAL",
    WORKBOOK: "INTERNAL",
    ANNUAL_REPORT: "PUBLIC",  # filename *annual_report*
    HK_MEMO: "CONFIDENTIAL",  # keyword "strictly confidential"
    CN_MEMO: "INTERNAL",
    STRATEGY: "CONFIDENTIAL",  # sidecar
    BOARD: "RESTRICTED",  # filename *board* (and 董事会决议 in the text)
}


# --------------------------------------------------------------------------- builders


def _fy(*years: int) -> tuple[str, ...]:
    return tuple(f"FY{y}" for y in years)


def _period_columns(periods: tuple[str, ...], unit: Unit | None = None) -> tuple[Column, ...]:
    return tuple(Column(Codes(period=p), unit) for p in periods)


def _metric_row(
    label: str,
    metric: str,
    entity: str,
    periods: tuple[str, ...],
    *,
    unit: Unit | None = USD_M,
    percent: bool = False,
    fmt: str = "{:,.0f}",
    channel: str = "TOTAL",
    label_channel: bool = False,
) -> Row:
    """A row whose header names ``metric`` (and the channel when ``label_channel``)."""
    codes = Codes(metric=metric, channel=channel if label_channel else None)
    cells = series(metric, entity, periods, channel, percent=percent)
    return Row((label,), codes, cells, unit=unit, fmt=fmt)


def simple_table(
    title: str,
    title_codes: Codes,
    periods: tuple[str, ...],
    rows: tuple[Row, ...],
    *,
    corner: str = "",
    title_unit: Unit | None = None,
    ambiguous: bool = False,
) -> TableSpec:
    return TableSpec(
        title=title,
        title_codes=title_codes,
        header=((corner, *periods),),
        columns=_period_columns(periods),
        rows=rows,
        title_unit=title_unit,
        ambiguous=ambiguous,
    )


# --------------------------------------------------------------------------- FY2024 deck


def deck_fy2024() -> DeckSpec:
    years = _fy(2023, 2024)
    cn = TableSpec(
        title="中国内地业务回顾",
        title_codes=Codes(entity=CN),
        header=(("", "FY2023", "FY2024", "备注"),),
        columns=(*_period_columns(years), Column(None)),
        rows=(
            _with_note(_metric_row("收入（百万美元）", "REVENUE", CN, years), "保障型产品需求回升"),
            _with_note(
                _metric_row("营运利润（百万美元）", "OPERATING_PROFIT", CN, years), "费用管控见效"
            ),
            Row(
                ("其他收入（百万美元）",),
                None,  # "其他" is left over: unmapped, its values are not facts
                (Val(85), Val(92), Note("含一次性投资相关项目")),
                unit=USD_M,
            ),
            _with_note(_metric_row("新业务价值（百万美元）", "NBV", CN, years), "产品结构优化"),
            _with_note(_metric_row("净利润（百万美元）", "NET_PROFIT", CN, years), ""),
        ),
    )
    hk = simple_table(
        "ACME香港业务回顾",
        Codes(entity=HK),
        years,
        (
            _metric_row("收入（百万美元）", "REVENUE", HK, years),
            _metric_row("营运利润（百万美元）", "OPERATING_PROFIT", HK, years),
            _metric_row("新业务价值（百万美元）", "NBV", HK, years),
            _metric_row(
                "新业务价值利润率（%）", "NBV_MARGIN", HK, years, unit=PERCENT, percent=True
            ),
        ),
    )
    hk_mo = simple_table(
        "香港与澳门业务对比",  # two entities in the title, none in the headers: ambiguous
        Codes(),
        years,
        (
            Row(("收入（百万美元）",), Codes(metric="REVENUE"), (Val(3055), Val(3260)), USD_M),
            Row(("净利润（百万美元）",), Codes(metric="NET_PROFIT"), (Val(700), Val(839)), USD_M),
        ),
        ambiguous=True,
    )
    mo = simple_table(
        "澳门业务回顾",
        Codes(entity=MO),
        years,
        (
            _metric_row("收入（百万美元）", "REVENUE", MO, years),
            Row(
                ("净利润（百万美元）",),
                Codes(metric="NET_PROFIT"),
                (Val(-45, text="(45)"), Val(figure("NET_PROFIT", MO, "FY2024"))),
                unit=USD_M,
            ),
        ),
    )
    group = simple_table(
        "集团财务摘要",
        Codes(entity=GROUP),
        years,
        (
            _metric_row("收入（百万美元）", "REVENUE", GROUP, years),
            _metric_row("营运利润（百万美元）", "OPERATING_PROFIT", GROUP, years),
            _metric_row("净利润（百万美元）", "NET_PROFIT", GROUP, years),
            _metric_row("股本回报率（%）", "ROE", GROUP, years, unit=PERCENT, percent=True),
        ),
    )
    return DeckSpec(
        (
            SlideSpec(
                "ACME集团 FY2024 业绩回顾",
                subtitle="管理层汇报 · 2025年3月",
                notes=(
                    "本次汇报回顾ACME集团2024财年的经营表现。集团收入4,580百万美元，同比增长7.5%；"
                    "营运利润1,321百万美元；净利润1,071百万美元。香港收入增长主要受代理人渠道新业务"
                    "带动，中国内地业务保持稳健，澳门业务扭亏为盈。"
                ),
            ),
            SlideSpec(
                "中国内地业务回顾",
                body=(
                    "中国内地收入同比增长9.5%至1,320百万美元。",
                    "新业务价值同比增长14.3%，产品结构持续优化。",
                ),
                notes=(
                    "中国内地2024年收入1,320百万美元，较2023年的1,205百万美元增长9.5%，主要得益于"
                    "保障型产品需求回升和续期保费稳定增长。营运利润301百万美元。“其他收入”主要为一次性"
                    "投资相关项目，不纳入核心经营指标。"
                ),
                table=cn,
            ),
            SlideSpec(
                "ACME香港业务回顾",
                body=(
                    "香港收入同比增长5.9%至2,850百万美元。",
                    "新业务价值利润率提升1.3个百分点至57.4%。",
                ),
                notes=(
                    "香港业务2024年收入2,850百万美元，营运利润968百万美元，同比增长6.4%。新业务价值"
                    "1,398百万美元，同比增长13.1%，新业务价值利润率57.4%。"
                ),
                table=hk,
            ),
            SlideSpec(
                "香港增长驱动因素",
                body=(
                    "代理人渠道：新业务价值812百万美元，占香港新业务价值的58%",
                    "银保渠道：新业务价值356百万美元，与合作银行的独家协议顺利续约",
                    "经纪及数字渠道：新业务价值合计230百万美元，数字渠道增速最快",
                ),
                notes=(
                    "香港收入增长主要受代理人渠道新业务带动。2024年代理人数量增至13,240人，人均产能"
                    "同比提升。内地访客保费回升亦带动银保渠道销售。监管方面，香港风险为本资本制度"
                    "（RBC）于2024年正式实施，对新业务价值的影响可控。"
                ),
            ),
            SlideSpec(
                "香港与澳门业务对比",
                body=("两地合计收入3,260百万美元。",),
                notes="本页合并展示香港与澳门两地数据，便于比较跨境业务表现。",
                table=hk_mo,
            ),
            SlideSpec(
                "澳门业务回顾",
                body=("澳门2023年录得净亏损45百万美元，2024年扭亏为盈。",),
                notes=(
                    "2023年澳门净亏损主要由于一次性准备金计提；剔除该影响后营运利润为45百万美元。"
                    "2024年收入410百万美元，同比增长12.3%。"
                ),
                table=mo,
            ),
            SlideSpec(
                "集团财务摘要",
                body=("集团净利润同比增长17.7%至1,071百万美元。",),
                notes="股本回报率提升0.8个百分点至12.6%。管理层建议维持稳定的股息政策。",
                table=group,
            ),
        )
    )


def _with_note(row: Row, note: str) -> Row:
    return Row(row.labels, row.codes, (*row.cells, Note(note)), row.unit, row.fmt)


# --------------------------------------------------------------------------- FY2025 deck


def deck_fy2025() -> DeckSpec:
    years = _fy(2024, 2025)
    hk = simple_table(
        "香港业务回顾（经重述）",
        Codes(entity=HK),
        years,
        (
            Row(
                ("收入（百万美元）",),
                Codes(metric="REVENUE"),
                # FY2024 restated from 2,850 to 2,880: conflicts with the FY2024 review.
                (Val(2880), Val(figure("REVENUE", HK, "FY2025"))),
                unit=USD_M,
            ),
            Row(
                ("收入增长率 %",),
                None,  # "增长率" is not an alias: unmapped, its percents are not facts
                (Val(7.1, percent=True), Val(7.8, percent=True)),
            ),
            _metric_row("新业务价值（百万美元）", "NBV", HK, years),
            _metric_row(
                "新业务价值利润率（%）", "NBV_MARGIN", HK, years, unit=PERCENT, percent=True
            ),
        ),
    )
    by_region = TableSpec(
        title="各地区营运利润（百万美元）",
        title_codes=Codes(metric="OPERATING_PROFIT"),
        header=(("", "FY2024", "FY2025"),),
        columns=_period_columns(years),
        rows=tuple(
            Row((label,), Codes(entity=entity), series("OPERATING_PROFIT", entity, years))
            for label, entity in (("香港", HK), ("中国内地", CN), ("澳门", MO), ("集团", GROUP))
        ),
        title_unit=USD_M,
    )
    channels = TableSpec(
        title="香港新业务价值（按渠道，百万美元）",
        title_codes=Codes(metric="NBV", entity=HK),
        header=(("", "FY2024", "FY2025"),),
        columns=_period_columns(years),
        rows=tuple(
            _metric_row(
                f"新业务价值 - {label}",
                "NBV",
                HK,
                years,
                unit=None,
                channel=code,
                label_channel=True,
            )
            for label, code in (
                ("代理人渠道", "AGENCY"),
                ("银保渠道", "BANCA"),
                ("经纪渠道", "BROKER"),
                ("数字渠道", "DIGITAL"),
            )
        ),
        title_unit=USD_M,
    )
    competitor = simple_table(
        "香港净利润：对标中国竞联人寿",  # the competitor is masked before entities are read
        Codes(entity=HK, metric="NET_PROFIT"),
        years,
        (_metric_row("净利润（百万美元）", "NET_PROFIT", HK, years),),
    )
    return DeckSpec(
        (
            SlideSpec(
                "ACME集团 FY2025 业绩回顾",
                subtitle="管理层汇报 · 2026年3月",
                notes=(
                    "2025财年集团收入4,987百万美元，同比增长8.9%；营运利润1,447百万美元；净利润"
                    "1,178百万美元。香港FY2024收入按新会计政策重述为2,880百万美元。"
                ),
            ),
            SlideSpec(
                "香港业务回顾（经重述）",
                body=("FY2024收入按新会计政策重述为2,880百万美元（原为2,850百万美元）。",),
                notes=(
                    "香港2025年收入3,105百万美元，同比增长7.8%。新业务价值1,562百万美元，同比增长"
                    "11.7%；新业务价值利润率58.0%。"
                ),
                table=hk,
            ),
            SlideSpec(
                "香港收入增长驱动",
                body=(
                    "代理人渠道新业务价值921百万美元，同比增长13.4%",
                    "银保渠道新业务价值389百万美元，同比增长9.3%",
                    "数字渠道新业务价值92百万美元，同比增长12.2%",
                ),
                notes=(
                    "香港收入增长主要受代理人渠道新业务带动：代理人数量增至14,020人，高端客户对储蓄"
                    "产品需求强劲。内地访客业务持续回升，带动经纪渠道新业务价值增至160百万美元。"
                    "下一步将加大对数字渠道和代理人培训的投入。"
                ),
            ),
            SlideSpec(
                "各地区营运利润（百万美元）",
                body=("集团营运利润同比增长9.5%至1,447百万美元。",),
                notes="各地区营运利润均实现增长，其中中国内地增长11.0%。",
                table=by_region,
            ),
            SlideSpec(
                "香港新业务价值（按渠道，百万美元）",
                body=("代理人渠道贡献香港新业务价值的59%。",),
                notes=(
                    "代理人渠道新业务价值921百万美元，同比增长13.4%；银保渠道389百万美元；"
                    "经纪渠道160百万美元；数字渠道92百万美元。"
                ),
                table=channels,
            ),
            SlideSpec(
                "香港净利润：对标中国竞联人寿",
                body=("香港净利润同比增长8.9%。",),
                notes="对标同业公开年报，香港业务净利润率保持领先。同业数据仅供内部参考。",
                table=competitor,
            ),
            SlideSpec(
                "2026年展望",
                body=(
                    "深化代理人渠道专业化建设",
                    "扩大银保渠道合作网络",
                    "推进数字化运营，提升客户体验",
                ),
                notes=(
                    "2026年集团将继续聚焦香港与中国内地两大核心市场。香港以代理人渠道为主轴，"
                    "中国内地在“报行合一”政策下优化银保渠道的产品组合。"
                ),
            ),
        )
    )


# --------------------------------------------------------------------------- 2025H1 deck


def deck_h1() -> DeckSpec:
    halves = ("2024H1", "2025H1")
    transposed = TableSpec(
        title="Hong Kong: half-year trend",
        title_codes=Codes(entity=HK),
        header=(("", "Revenue (US$m)", "NBV (US$m)", "NBV margin (%)"),),
        columns=(
            Column(Codes(metric="REVENUE"), USD_M_EN),
            Column(Codes(metric="NBV"), USD_M_EN),
            Column(Codes(metric="NBV_MARGIN"), PERCENT),
        ),
        rows=tuple(
            Row(
                (label,),
                Codes(period=period),
                (
                    Val(figure("REVENUE", HK, period)),
                    Val(figure("NBV", HK, period)),
                    Val(figure("NBV_MARGIN", HK, period), percent=True),
                ),
            )
            for label, period in (("1H24", "2024H1"), ("1H25", "2025H1"))
        ),
    )
    cn = TableSpec(
        title="Mainland China: interim highlights",
        title_codes=Codes(entity=CN),
        header=(("", "H1 2024", "H1 2025"),),
        columns=_period_columns(halves),
        rows=(
            _metric_row("Revenue (US$m)", "REVENUE", CN, halves, unit=USD_M_EN),
            _metric_row("Operating profit (US$m)", "OPERATING_PROFIT", CN, halves, unit=USD_M_EN),
            _metric_row("Net profit (US$m)", "NET_PROFIT", CN, halves, unit=USD_M_EN),
        ),
    )
    mo = simple_table(
        "Macau: interim snapshot",
        Codes(entity=MO),
        halves,
        (
            _metric_row("Revenue (US$m)", "REVENUE", MO, halves, unit=USD_M_EN),
            _metric_row("Net profit (US$m)", "NET_PROFIT", MO, halves, unit=USD_M_EN),
        ),
    )
    return DeckSpec(
        (
            SlideSpec(
                "ACME Group 2025 Interim Results",
                subtitle="Management presentation, August 2025",
                notes=(
                    "Welcome to the interim results. Hong Kong led the group again, with agency "
                    "productivity and bancassurance both contributing to growth."
                ),
            ),
            SlideSpec(
                "Hong Kong: half-year trend",
                body=("Revenue up 8.2% year on year; NBV up 8.9%.",),
                notes=(
                    "Hong Kong revenue reached US$1,512m in the first half of 2025, up 8.2%. "
                    "The NBV margin improved to 57.9% on a richer product mix."
                ),
                table=transposed,
            ),
            SlideSpec(
                "Mainland China: interim highlights",
                body=("Revenue grew 9.7% on a recovery in protection products.",),
                notes="Operating profit rose 11.3% to US$158m as expense discipline held.",
                table=cn,
            ),
            SlideSpec(
                "Macau: interim snapshot",
                body=("Visitor demand lifted revenue by 8.6%.",),
                notes="Macau returned to steady profit after the one-off provision of 2023.",
                table=mo,
            ),
            SlideSpec(
                "Outlook for the second half",
                body=(
                    "Agency: keep recruiting and training high-quality agents",
                    "Bancassurance: deepen partnerships with two new bank partners",
                    "Digital: scale the online term-life proposition",
                ),
                notes=(
                    "We expect agency and bancassurance momentum in Hong Kong to continue in the "
                    "second half of 2025. In Mainland China the alignment of filed and actual "
                    "commission rates weighs on bancassurance margins but improves business "
                    "quality."
                ),
            ),
        )
    )


# --------------------------------------------------------------------------- 2025Q3 deck


def deck_q3() -> DeckSpec:
    quarters = ("2024Q3", "2025Q2", "2025Q3")

    def row(entity_label: str, label: str, metric: str, entity: str) -> Row:
        return Row(
            (entity_label, label),
            Codes(metric=metric, entity=entity),
            series(metric, entity, quarters),
            unit=USD_M,
        )

    cn_nbv = Row(
        ("中国内地", "新业务价值（百万美元）"),
        Codes(metric="NBV", entity=CN),
        (Skip("—"), *series("NBV", CN, quarters[1:])),  # not disclosed for 2024Q3
        unit=USD_M,
    )
    group_revenue = Row(
        ("集团", "收入（百万美元）"),
        Codes(metric="REVENUE", entity=GROUP),
        (
            *series("REVENUE", GROUP, quarters[:2]),
            Val(1300, text="约1,300", approx=True),  # a preliminary estimate: review, no fact
        ),
        unit=USD_M,
    )
    table = TableSpec(
        title="2025年第三季度 分地区经营数据",
        title_codes=Codes(period="2025Q3"),
        header=(("", "", "2024", "2025", "2025"), ("", "", "Q3", "Q2", "Q3")),
        columns=_period_columns(quarters),
        rows=(
            row("香港", "收入（百万美元）", "REVENUE", HK),
            row("香港", "新业务价值（百万美元）", "NBV", HK),
            row("中国内地", "收入（百万美元）", "REVENUE", CN),
            cn_nbv,
            group_revenue,
        ),
        merges=((0, 3, 0, 4), (2, 0, 3, 0), (4, 0, 5, 0)),
    )
    return DeckSpec(
        (
            SlideSpec(
                "ACME集团 2025年第三季度经营更新",
                subtitle="季度经营数据 · 2025年10月",
                notes="本次更新覆盖香港、中国内地及集团第三季度的主要经营数据。",
            ),
            SlideSpec(
                "2025年第三季度 分地区经营数据",
                body=(
                    "香港第三季度收入790百万美元，同比增长10.0%。",
                    "集团第三季度收入为管理层初步估算，待审计后更新。",
                ),
                notes=(
                    "中国内地2024年第三季度新业务价值未单独披露。集团第三季度收入约1,300百万美元为"
                    "管理层初步估算。"
                ),
                table=table,
            ),
            SlideSpec(
                "第三季度经营亮点",
                body=(
                    "香港代理人渠道新业务价值同比增长12%",
                    "中国内地银保渠道受“报行合一”政策影响，利润率承压",
                    "澳门业务受访客回升带动",
                ),
                notes=(
                    "香港第三季度新业务价值401百万美元，代理人渠道仍是主要增长来源。中国内地新业务"
                    "价值127百万美元，银保渠道手续费率下降后新单保费有所回落。"
                ),
            ),
        )
    )


# --------------------------------------------------------------------------- workbook


def workbook() -> WorkbookSpec:
    years = _fy(2021, 2022, 2023, 2024, 2025)

    def bare(label: str, metric: str, entity: str, *, percent: bool = False) -> Row:
        return _metric_row(label, metric, entity, years, unit=None, percent=percent)

    group = simple_table(
        "GROUP",
        Codes(entity=GROUP),
        years,
        (
            bare("收入", "REVENUE", GROUP),
            bare("营运利润", "OPERATING_PROFIT", GROUP),
            bare("净利润", "NET_PROFIT", GROUP),
            bare("股本回报率", "ROE", GROUP, percent=True),
        ),
        corner="单位：百万美元",
    )
    hk = simple_table(
        "HK",
        Codes(entity=HK),
        years,
        (
            _metric_row("营运利润（百万美元）", "OPERATING_PROFIT", HK, years),
            _metric_row("净利润（百万美元）", "NET_PROFIT", HK, years),
            _metric_row("新业务价值（百万美元）", "NBV", HK, years),
            bare("新业务价值利润率", "NBV_MARGIN", HK, percent=True),
            _metric_row("内含价值（百万美元）", "EMBEDDED_VALUE", HK, years),
            bare("代理人数量", "AGENT_COUNT", HK),
        ),
    )
    cn = simple_table(
        "CN",
        Codes(entity=CN),
        years,
        (
            bare("收入", "REVENUE", CN),
            bare("营运利润", "OPERATING_PROFIT", CN),
            bare("净利润", "NET_PROFIT", CN),
            bare("新业务价值", "NBV", CN),
        ),
        corner="单位：百万美元",
    )
    mo_revenue = bare("收入", "REVENUE", MO)
    mo_revenue = Row(
        mo_revenue.labels,
        mo_revenue.codes,
        # FY2021 holds a growth rate formatted as a percent: an amount row with a percent cell.
        (Val(3.3, percent=True), *mo_revenue.cells[1:]),
    )
    macau = simple_table(
        "Macau",  # "MO" alone is not an alias; "Macau" is
        Codes(entity=MO),
        years,
        (
            mo_revenue,
            bare("营运利润", "OPERATING_PROFIT", MO),
            bare("净利润", "NET_PROFIT", MO),
        ),
    )
    channel_years = _fy(2024, 2025)
    channels = simple_table(
        "HK_Channels",
        Codes(entity=HK),
        channel_years,
        tuple(
            _metric_row(
                f"新业务价值 - {label}",
                "NBV",
                HK,
                channel_years,
                unit=None,
                channel=code,
                label_channel=True,
            )
            for label, code in (
                ("代理人渠道", "AGENCY"),
                ("银保渠道", "BANCA"),
                ("经纪渠道", "BROKER"),
                ("数字渠道", "DIGITAL"),
            )
        ),
    )
    return WorkbookSpec(
        (
            SheetSpec("GROUP", group),
            SheetSpec("HK", hk),
            SheetSpec("CN", cn),
            SheetSpec("Macau", macau),
            SheetSpec("HK_Channels", channels),
        )
    )


# --------------------------------------------------------------------------- annual report


def annual_report() -> PdfSpec:
    years = _fy(2024, 2025)
    table = TableSpec(
        title="Table 1: Hong Kong key figures (US$m unless stated)",
        title_codes=Codes(entity=HK),
        header=(("", "FY2024", "FY2025"),),
        columns=_period_columns(years),
        rows=(
            _metric_row("Operating profit (US$m)", "OPERATING_PROFIT", HK, years, unit=USD_M_EN),
            _metric_row("New business value (US$m)", "NBV", HK, years, unit=USD_M_EN),
            _metric_row("NBV margin (%)", "NBV_MARGIN", HK, years, unit=PERCENT, fmt="{:.1f}"),
            Row(
                ("Embedded value (US$bn)",),
                Codes(metric="EMBEDDED_VALUE"),
                tuple(Val(figure("EMBEDDED_VALUE", HK, y) / 1000) for y in years),
                unit=USD_BN_EN,
                fmt="{:.1f}",
            ),
        ),
        title_unit=USD_M_EN,
    )
    title = "ACME Group Annual Report 2025"
    return PdfSpec(
        title=title,
        pages=(
            (
                PdfText(title, 18, bold=True, gap_after=14),
                PdfText("Chairman's statement", 13, bold=True),
                PdfText(
                    "2025 was a year of disciplined growth for ACME Group. Group revenue rose 8.9% "
                    "to US$4,987m and operating profit increased 9.5% to US$1,447m. Net profit "
                    "reached US$1,178m and return on equity improved to 13.5%."
                ),
                PdfText(
                    "Our agency force remains the engine of growth in Hong Kong, while "
                    "bancassurance and digital partnerships broadened our reach. In Mainland "
                    "China we adapted to the new commission rules for bancassurance, and in Macau "
                    "visitor demand supported a steady recovery."
                ),
                PdfText(
                    "The Board proposes a final dividend in line with our progressive dividend "
                    "policy. We thank our customers, colleagues and partners for their trust."
                ),
            ),
            (
                PdfText("Hong Kong business review", 13, bold=True),
                PdfText(
                    "Hong Kong delivered operating profit of US$1,052m, up 8.7% on the prior year. "
                    "New business value grew 11.7% to US$1,562m and the NBV margin widened to "
                    "58.0%. Embedded value reached US$13.5bn.",
                    gap_after=16,
                ),
                PdfText(table.title, 10, bold=True, gap_after=2),
                PdfTable(table, (200.0, 90.0, 90.0)),
                PdfText(
                    "Embedded value is shown in US$ billions; all other amounts in US$ millions.",
                    8,
                ),
            ),
            (
                PdfText("Mainland China and Macau", 13, bold=True),
                PdfText(
                    "Mainland China revenue grew 8.8% to US$1,436m. The rules aligning filed and "
                    "actual commission rates for bancassurance compressed margins but improved the "
                    "quality of new business. Macau revenue rose 8.8% to US$446m."
                ),
                PdfText("管理层讨论（中文摘要）", 12, cjk=True),
                PdfText(
                    "香港收入增长主要受代理人渠道新业务带动，2025年香港新业务价值达1,562百万美元，"
                    "新业务价值利润率为58.0%。中国内地业务在“报行合一”政策下调整产品结构，"
                    "新业务价值为508百万美元。",
                    cjk=True,
                ),
            ),
            (PdfImage(),),
        ),
    )


# --------------------------------------------------------------------------- memos


def hk_memo() -> FlowSpec:
    quarters = ("2024Q1", "2025Q1")
    table = TableSpec(
        title="表1：香港季度经营数据",
        title_codes=Codes(entity=HK),
        header=(("", "2024年第一季度", "2025年第一季度"),),
        columns=_period_columns(quarters),
        rows=(
            Row(
                ("收入（百万美元）",),
                Codes(metric="REVENUE"),
                (Val(figure("REVENUE", HK, "2024Q1")), Val(750, text="７５０")),
                unit=USD_M,
            ),
            Row(
                ("新业务价值（百万美元）",),
                Codes(metric="NBV"),
                (Val(figure("NBV", HK, "2024Q1")), Val(364, text="３６４")),
                unit=USD_M,
            ),
        ),
    )
    assert figure("REVENUE", HK, "2025Q1") == 750 and figure("NBV", HK, "2025Q1") == 364
    return FlowSpec(
        (
            Heading("香港监管动态备忘录", 1),
            Para("密级：strictly confidential（严格保密），仅限管理层及合规部门传阅。"),
            Heading("一、风险为本资本制度（RBC）", 2),
            Para(
                "香港保险业监管局的风险为本资本制度已于2024年1月1日正式实施。新制度下，公司偿付能力"
                "充足率维持在监管要求以上，资本管理框架已完成相应调整。"
            ),
            Para("RBC实施后，长期储蓄产品的资本要求有所上升，我们已据此调整产品定价与资产配置。"),
            Heading("二、对香港业务的影响", 2),
            Para("受产品调整影响，香港2025年第一季度新业务价值同比增长9.6%，收入保持稳定增长。"),
            Para(table.title),
            TableBlock(table),
            Heading("三、后续行动", 2),
            Para("合规部将于下季度完成内部模型复核，并向监管机构提交年度资本报告。"),
        )
    )


def cn_memo() -> FlowSpec:
    halves = ("2024H1", "2025H1")
    table = TableSpec(
        title="表1：中国内地新业务价值（按渠道）",
        title_codes=Codes(entity=CN, metric="NBV"),
        header=(("", "2024年上半年（人民币亿元）", "2025年上半年（人民币亿元）"),),
        columns=_period_columns(halves, CNY_YI),
        rows=tuple(
            Row((label,), Codes(channel=code), (Val(a), Val(b)), fmt="{:.1f}")
            for label, code, a, b in (
                ("代理人渠道", "AGENCY", 10.5, 12.0),
                ("银保渠道", "BANCA", 4.5, 5.5),
                ("合计", "TOTAL", 15.0, 17.5),
            )
        ),
    )
    return FlowSpec(
        (
            Heading("中国内地监管更新（2025年第三季度）", 1),
            Para("本备忘录汇总2025年以来中国内地保险监管的主要变化及其对ACME中国业务的影响。"),
            Heading("一、“报行合一”政策", 2),
            Para(
                "国家金融监督管理总局要求银保渠道实施“报行合一”，即备案佣金费率与实际执行费率保持"
                "一致。政策自2024年起在银保渠道全面落地，并于2025年推广至个险渠道。"
            ),
            Para("短期内银保渠道手续费率下降，新单保费有所回落；长期看有利于行业降本增效。"),
            Heading("二、对中国内地新业务价值的影响", 2),
            Para("2025年上半年，中国内地新业务价值合计17.5亿元人民币，同比增长16.7%。"),
            Para(table.title),
            TableBlock(table),
            Heading("三、下一步", 2),
            Para("我们将优化银保渠道产品组合，并加强代理人渠道的专业化培训。"),
        )
    )


def strategy_memo() -> FlowSpec:
    return FlowSpec(
        (
            Heading("ACME Group Strategy 2026", 1),
            Heading("Where we stand", 2),
            Para(
                "In FY2025 the group delivered revenue of US$4,987m and operating profit of "
                "US$1,447m. Hong Kong remains our largest market, and Mainland China is our "
                "fastest-growing source of protection business."
            ),
            Heading("Priorities", 2),
            Para(
                "1. Agency excellence in Hong Kong: grow the agent force from 14,020 to 15,000 by "
                "the end of 2026."
            ),
            Para(
                "2. Bancassurance discipline in Mainland China: price for value under the new "
                "commission rules."
            ),
            Para("3. Digital: launch an online platform for simple protection products."),
            Heading("Targets", 2),
            Para("We aim for an NBV margin above 58% in Hong Kong and a group ROE of 14%."),
        )
    )


def board_minutes() -> FlowSpec:
    years = _fy(2024, 2025)
    table = simple_table(
        "表1：集团新业务价值（百万美元）",
        Codes(entity=GROUP, metric="NBV"),
        years,
        (_metric_row("新业务价值（百万美元）", "NBV", GROUP, years),),
        title_unit=USD_M,
    )
    return FlowSpec(
        (
            Heading("董事会会议纪要（2025年第四次会议）", 1),
            Para("会议时间：2025年12月15日；出席董事：9名。"),
            Heading("一、审议事项", 2),
            Para(
                "经董事会决议，批准2026年度资本预算，并批准以不超过850百万美元收购一家东南亚寿险"
                "公司的全部股权（项目代号“北极星”）。"
            ),
            Para("董事会决议宣派特别股息每股0.38美元，于2026年3月派付。"),
            Heading("二、集团经营回顾", 2),
            Para("管理层汇报了集团新业务价值的最新情况，董事会要求在公告前严格保密。"),
            Para(table.title),
            TableBlock(table),
        )
    )


# --------------------------------------------------------------------------- tricky cases


@dataclass(frozen=True)
class _Case:
    name: str
    doc: str
    locator: str
    note: str


TRICKY_CASES: tuple[TrickyCase, ...] = tuple(
    TrickyCase(c.name, c.doc, c.locator, c.note)
    for c in (
        _Case(
            "transposed table",
            DECK_H1,
            "slide=2,table=1,row=2025H1,col=REVENUE",
            "Periods run down the rows (1H24, 1H25), metrics across: REVENUE ACME_HK 2025H1 = "
            "1512 USD_M.",
        ),
        _Case(
            "merged column header",
            DECK_Q3,
            "slide=2,table=1,row=REVENUE/ACME_HK,col=2025Q2",
            "'2025' is merged over 'Q2' and 'Q3': the column reads '2025 Q2' -> 2025Q2; "
            "REVENUE ACME_HK 2025Q2 = 762.",
        ),
        _Case(
            "merged row header",
            DECK_Q3,
            "slide=2,table=1,row=NBV/ACME_CN,col=2025Q3",
            "'中国内地' is merged over two rows; the second row reads "
            "'中国内地 新业务价值（百万美元）' -> NBV ACME_CN 2025Q3 = 127.",
        ),
        _Case(
            "dash cell skipped",
            DECK_Q3,
            "slide=2,table=1,row=NBV/ACME_CN,col=2024Q3",
            "'—' (not disclosed): no fact and no review item.",
        ),
        _Case(
            "low-confidence figure",
            DECK_Q3,
            "slide=2,table=1,row=REVENUE/ACME_GROUP,col=2025Q3",
            "'约1,300' -> review low_confidence with value 1300, no fact.",
        ),
        _Case(
            "unmapped label",
            DECK_FY2024,
            "slide=2,table=1,row=4,col=1",
            "'其他收入（百万美元）': '其他' is not covered -> review unmapped_label; 85 and 92 are "
            "not facts.",
        ),
        _Case(
            "text notes column ignored",
            DECK_FY2024,
            "slide=2,table=1,row=1,col=4",
            "The '备注' column holds only text: no facts, no review items.",
        ),
        _Case(
            "ambiguous entity",
            DECK_FY2024,
            "slide=5,table=1",
            "Title '香港与澳门业务对比' names ACME_HK and ACME_MO, headers name no entity -> one "
            "review ambiguous_entity for the table, no facts.",
        ),
        _Case(
            "accounting negative",
            DECK_FY2024,
            "slide=6,table=1,row=NET_PROFIT,col=FY2023",
            "'(45)' -> NET_PROFIT ACME_MO FY2023 = -45.",
        ),
        _Case(
            "restated figure conflict",
            DECK_FY2025,
            "slide=2,table=1,row=REVENUE,col=FY2024",
            "HK FY2024 revenue restated to 2,880; the earlier FY2024 review stated 2,850 -> review "
            "conflict on the later cell, no fact; the 2,850 fact stands.",
        ),
        _Case(
            "percent row in an amount table",
            DECK_FY2025,
            "slide=2,table=1,row=3,col=1",
            "'收入增长率 %' -> '增长率' left over -> review unmapped_label; 7.1% and 7.8% are not "
            "facts.",
        ),
        _Case(
            "metric from the title, entities in rows",
            DECK_FY2025,
            "slide=4,table=1,row=ACME_MO,col=FY2025",
            "Title '各地区营运利润（百万美元）' gives the metric and unit; rows are entities -> "
            "OPERATING_PROFIT ACME_MO FY2025 = 61.",
        ),
        _Case(
            "channel rows",
            DECK_FY2025,
            "slide=5,table=1,row=NBV/AGENCY,col=FY2025",
            "'新业务价值 - 代理人渠道' -> NBV + AGENCY; NBV ACME_HK AGENCY FY2025 = 921.",
        ),
        _Case(
            "competitor masked in the title",
            DECK_FY2025,
            "slide=6,table=1,row=NET_PROFIT,col=FY2025",
            "Title '香港净利润：对标中国竞联人寿': the competitor is masked first, so '中国' does "
            "not name ACME_CN -> NET_PROFIT ACME_HK FY2025 = 872.",
        ),
        _Case(
            "percent-formatted cell in an amount row",
            WORKBOOK,
            "sheet=Macau,cell=B2",
            "REVENUE row, FY2021 cell stores 0.033 as '0.0%' (3.3%) with no unit marker in "
            "header or title -> review unit_mismatch, no fact.",
        ),
        _Case(
            "percent number format on a ratio",
            WORKBOOK,
            "sheet=HK,cell=E5",
            "Stored 0.574 with format '0.0%' -> NBV_MARGIN ACME_HK FY2024 = 57.4 PCT.",
        ),
        _Case(
            "count metric",
            WORKBOOK,
            "sheet=HK,cell=E7",
            "'代理人数量' without a unit marker -> AGENT_COUNT ACME_HK FY2024 = 13240 COUNT.",
        ),
        _Case(
            "unit note in the corner cell",
            WORKBOOK,
            "sheet=GROUP,cell=A1",
            "'单位：百万美元' sits in the corner (header row x label column): not a label; bare "
            "amount rows take USD_M.",
        ),
        _Case(
            "entity from the sheet name",
            WORKBOOK,
            "sheet=Macau,cell=F3",
            "Sheet 'Macau' (an alias; 'MO' is not) -> OPERATING_PROFIT ACME_MO FY2025 = 61.",
        ),
        _Case(
            "same figure in two documents",
            WORKBOOK,
            "sheet=CN,cell=E2",
            "REVENUE ACME_CN FY2024 = 1320 here and in decks/ACME_FY2024_Review.pptx "
            "(slide=2,table=1,row=REVENUE,col=FY2024): same value -> both facts stand.",
        ),
        _Case(
            "US$bn scaling",
            ANNUAL_REPORT,
            "page=2,table=1,row=5,col=2",
            "'Embedded value (US$bn)' 12.5 -> EMBEDDED_VALUE ACME_HK FY2024 = 12500 USD_M.",
        ),
        _Case(
            "image-only page",
            ANNUAL_REPORT,
            "page=4",
            "A scanned picture without a text layer -> review needs_ocr.",
        ),
        _Case(
            "full-width digits",
            HK_MEMO,
            "table=1,row=2,col=3",
            "'７５０' -> REVENUE ACME_HK 2025Q1 = 750.",
        ),
        _Case(
            "人民币亿元 scaling",
            CN_MEMO,
            "section=3,table=1,row=2,col=2",
            "'2024年上半年（人民币亿元）' 10.5 -> NBV ACME_CN AGENCY 2024H1 = 1050 CNY_M.",
        ),
        _Case(
            "sensitivity from a sidecar",
            STRATEGY,
            "document",
            "Strategy_2026.md.meta.json says CONFIDENTIAL; no filename or keyword rule applies.",
        ),
        _Case(
            "sensitivity from a keyword",
            HK_MEMO,
            "document",
            "The text contains 'strictly confidential' -> CONFIDENTIAL; its facts carry it.",
        ),
        _Case(
            "sensitivity from the filename (RESTRICTED)",
            BOARD,
            "table=1,row=2,col=3",
            "'*board*' -> RESTRICTED (the text also has 董事会决议); NBV ACME_GROUP FY2025 = 2165 "
            "exists only here, as a RESTRICTED fact.",
        ),
        _Case(
            "sensitivity from the filename (PUBLIC)",
            ANNUAL_REPORT,
            "document",
            "'*annual_report*' -> PUBLIC.",
        ),
    )
)
