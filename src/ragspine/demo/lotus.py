"""Lotus Bay Holdings: a small invented company for trying ``ragspine profile suggest`` — no
profile ships for it; one is drafted from its documents.

Three units (Hotels, Cruises and Parks), figures in HK$ and, for Parks, in RMB, a fiscal year
ending on 31 March, labels in English and Chinese, and one document of each everyday kind: a
workbook, a deck, a Word report and a Markdown memo. ``TRUTH`` is every table value as a
reader of the documents would write it down, by hand — never read back from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragspine.demo.corpus_model import Codes, Column, Row, TableSpec, Val
from ragspine.demo.corpus_writers import (
    DeckSpec,
    FlowSpec,
    Heading,
    Para,
    SheetSpec,
    SlideSpec,
    TableBlock,
    WorkbookSpec,
    write_docx,
    write_md,
    write_pptx,
    write_xlsx,
)

COMPANY = "Lotus Bay Holdings"
WORKBOOK = "LBH_Units.xlsx"
DECK = "LBH_FY2025_Results.pptx"
REPORT = "LBH_Annual_Report_2025.docx"
MEMO = "LBH_Parks_Memo.md"

# The units as the documents name them, in English and Chinese.
HOTELS = ("Hotels", "酒店")
CRUISES = ("Cruises", "邮轮")
PARKS = ("Parks", "乐园")


@dataclass(frozen=True)
class TrueValue:
    """One table value: where it is, the row's labels (English, Chinese; "" where the table
    prints one language only), the unit it belongs to, its fiscal year, value and unit."""

    doc: str
    label_en: str
    label_zh: str
    unit_name: tuple[str, str]
    year: int
    value: float
    unit: str


def _sheet_values(
    unit_name: tuple[str, str], currency: str, rows: dict[tuple[str, str], tuple[float, float]]
) -> list[TrueValue]:
    out = []
    for (en, zh), (fy2024, fy2025) in rows.items():
        code = "PCT" if "margin" in en else currency
        out += [
            TrueValue(WORKBOOK, en, zh, unit_name, 2024, fy2024, code),
            TrueValue(WORKBOOK, en, zh, unit_name, 2025, fy2025, code),
        ]
    return out


_SHEETS = {
    HOTELS: (
        "HKD_M",
        "(HK$ million)",
        {
            ("Turnover", "营业额"): (1250.0, 1410.0),
            ("Operating profit", "经营溢利"): (180.0, 214.0),
            ("Operating margin", "经营利润率"): (14.4, 15.2),
        },
    ),
    CRUISES: (
        "HKD_M",
        "(HK$ million)",
        {
            ("Turnover", "营业额"): (860.0, 935.0),
            ("Operating profit", "经营溢利"): (72.0, 88.0),
            ("Operating margin", "经营利润率"): (8.4, 9.4),
        },
    ),
    PARKS: (
        "CNY_M",
        "(RMB million)",
        {
            ("Turnover", "营业额"): (540.0, 602.0),
            ("Operating profit", "经营溢利"): (61.0, 70.0),
            ("Operating margin", "经营利润率"): (11.3, 11.6),
        },
    ),
}
_DECK_ROWS = {
    ("Passengers", "乘客人次"): (412000.0, 455500.0),
    ("Sailings", "航次"): (310.0, 342.0),
}
_REPORT_ROWS = {  # (label_en, label_zh): (Hotels FY2025, Cruises FY2025), HK$ million
    ("Capital expenditure", "资本开支"): (95.0, 140.0),
    ("Depreciation", "折旧"): (60.0, 82.0),
}
_MEMO_ROWS = {"门票收入": (210.0, 236.0), "餐饮收入": (88.0, 97.0)}  # RMB million

TRUTH: tuple[TrueValue, ...] = (
    *(v for name, (cur, _, rows) in _SHEETS.items() for v in _sheet_values(name, cur, rows)),
    *(
        TrueValue(DECK, en, zh, CRUISES, year, value, "COUNT")
        for (en, zh), values in _DECK_ROWS.items()
        for year, value in zip((2024, 2025), values, strict=True)
    ),
    *(
        TrueValue(REPORT, label, "", unit, 2025, value, "HKD_M")
        for (en, zh), values in _REPORT_ROWS.items()
        for label in (en,)
        for unit, value in zip((HOTELS, CRUISES), values, strict=True)
    ),
    *(
        TrueValue(REPORT, "", zh, unit, 2025, value, "HKD_M")
        for (en, zh), values in _REPORT_ROWS.items()
        for unit, value in zip((HOTELS, CRUISES), values, strict=True)
    ),
    *(
        TrueValue(MEMO, "", zh, PARKS, year, value, "CNY_M")
        for zh, values in _MEMO_ROWS.items()
        for year, value in zip((2024, 2025), values, strict=True)
    ),
)


def _table(
    title: str,
    header: tuple[tuple[str, ...], ...],
    rows: Sequence[tuple[tuple[str, ...], tuple[Val, ...]]],
) -> TableSpec:
    n_values = len(rows[0][1])
    spec = TableSpec(
        title=title,
        title_codes=Codes(),
        header=header,
        columns=tuple(Column(Codes()) for _ in range(n_values)),
        rows=tuple(
            Row(
                labels,
                Codes(),
                cells,
                fmt="{:,.1f}" if any(not c.shown.is_integer() for c in cells) else "{:,.0f}",
            )
            for labels, cells in rows
        ),
    )
    spec.validate()
    return spec


def _workbook() -> WorkbookSpec:
    sheets = []
    for (en, zh), (_, marker, rows) in _SHEETS.items():
        grid_rows = []
        for (label_en, label_zh), values in rows.items():
            percent = "margin" in label_en
            shown = f"{label_en} (%)" if percent else label_en
            grid_rows.append(((shown, label_zh), tuple(Val(v, percent=percent) for v in values)))
        header = (("", "", "Year ended 31 March 2024", "Year ended 31 March 2025"),)
        sheets.append(
            SheetSpec(f"{en} {zh}", _table(en, header, grid_rows), (f"{en} {zh}", marker))
        )
    return WorkbookSpec(tuple(sheets))


def _deck() -> DeckSpec:
    rows = [
        ((f"{en} {zh}",), tuple(Val(v) for v in values)) for (en, zh), values in _DECK_ROWS.items()
    ]
    table = _table("Cruises 邮轮 — operating statistics", (("", "FY2023/24", "FY2024/25"),), rows)
    return DeckSpec(
        (
            SlideSpec(f"{COMPANY} FY2025 results", subtitle="Year ended 31 March 2025"),
            SlideSpec(table.title, table=table),
        )
    )


def _report() -> FlowSpec:
    english = _table(
        "Capital expenditure (HK$ million)",
        (("", HOTELS[0], CRUISES[0]), ("", "FY2024/25", "FY2024/25")),
        [((en,), tuple(Val(v) for v in values)) for (en, _), values in _REPORT_ROWS.items()],
    )
    chinese = _table(
        "资本开支（港币百万元）",
        (("", HOTELS[1], CRUISES[1]), ("", "2024/25财年", "2024/25财年")),
        [((zh,), tuple(Val(v) for v in values)) for (_, zh), values in _REPORT_ROWS.items()],
    )
    return FlowSpec(
        (
            Heading(f"{COMPANY} Annual Report 2025"),
            Para("For the year ended 31 March 2025 all three units grew."),
            Heading(english.title, 2),
            TableBlock(english),
            Heading(chinese.title, 2),
            TableBlock(chinese),
        )
    )


def _memo() -> FlowSpec:
    table = _table(
        "Parks 乐园 — visitor memo",
        (("单位：人民币百万元", "2023/24财年", "2024/25财年"),),
        [((zh,), tuple(Val(v) for v in values)) for zh, values in _MEMO_ROWS.items()],
    )
    return FlowSpec(
        (
            Heading(table.title),
            Para("截至2025年3月31日止年度，乐园门票收入创新高。"),
            TableBlock(table),
        )
    )


def build(root: Path) -> Path:
    """Write the four documents into ``root`` (created if missing) and return it."""
    root.mkdir(parents=True, exist_ok=True)
    write_xlsx(root / WORKBOOK, _workbook())
    write_pptx(root / DECK, _deck())
    write_docx(root / REPORT, _report())
    write_md(root / MEMO, _memo())
    return root
