"""Kestrel Mutual: an invented insurer with a single entity, the golden eval's one-entity
corpus (``demo.corpora``: ``one_entity``).

The company (profile ``profile/data/kestrel.toml``) has no business units: every figure is the
company's, so no question is ever asked "which entity?". It reports in HK$ and its fiscal year
ends on 30 June, so "Year ended 30 June 2025", "截至2025年6月30日止年度" and "as at June 30,
2025" name FY2025, and "six months ended 31 December 2024" names 2025H1. Two of its row
labels hold another row's label ("Net claims incurred" holds "Claims incurred"; "Operating
expenses excluding depreciation" holds "Depreciation"), and its tables print the words a
reader may mistake for names ("Premiums", "Claims", "Underwriting").

Three documents: a workbook with English and Chinese row labels, an English interim deck and
a Chinese memo. ``EXPECTED_FACTS`` is every table value as a careful reader writes it down,
by hand — nothing is read back from the engine. Amounts are in HK$ million, ratios in
percent.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter
from pptx import Presentation
from pptx.util import Inches

from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes

PROFILE_NAME = "kestrel.toml"

WORKBOOK = "workbooks/KM_Financials.xlsx"
DECK = "decks/KM_Interim_FY2025.pptx"
MEMO = "memos/KM_年度摘要.md"

# Every document is INTERNAL (the profile's default level).
SENSITIVITY = "INTERNAL"


@dataclass(frozen=True, order=True)
class ExpectedFact:
    doc: str
    locator: str
    metric: str
    period: str  # label: FY2025, 2025H1
    value: float
    unit: str

    entity = "KESTREL"
    channel = "TOTAL"


def _sheet(sheet: str, rows: dict[str, tuple[float, float, float]]) -> set[ExpectedFact]:
    """A workbook sheet's values: labels in A and B, FY2023..FY2025 in C..E from row 5."""
    return {
        ExpectedFact(WORKBOOK, f"sheet={sheet},cell={column}{row}", metric, period, value, "HKD_M")
        for row, (metric, values) in enumerate(rows.items(), start=5)
        for column, period, value in zip("CDE", ("FY2023", "FY2024", "FY2025"), values, strict=True)
    }


EXPECTED_FACTS: frozenset[ExpectedFact] = frozenset(
    {
        # Workbook sheet "Underwriting" under "(HK$ million)", "Year ended 30 June …" headers.
        *_sheet(
            "Underwriting",
            {
                "GWP": (4120, 4385, 4702),
                "NET_PREMIUMS": (3640, 3871, 4096),
                "CLAIMS": (2518, 2690, 2847),
                "NET_CLAIMS": (2203, 2351, 2472),
            },
        ),
        # Sheet "Expenses": the long label first, the short one inside it below.
        *_sheet(
            "Expenses",
            {"OPEX_EX_DEP": (512, 538, 566), "DEPRECIATION": (41, 44, 47)},
        ),
        # Deck slide 1: "HK$ million" in the corner, "Six months ended 31 December …" headers.
        ExpectedFact(DECK, "slide=1,table=1,row=GWP,col=2024H1", "GWP", "2024H1", 2060, "HKD_M"),
        ExpectedFact(DECK, "slide=1,table=1,row=GWP,col=2025H1", "GWP", "2025H1", 2215, "HKD_M"),
        ExpectedFact(
            DECK,
            "slide=1,table=1,row=COMBINED_RATIO,col=2024H1",
            "COMBINED_RATIO",
            "2024H1",
            95.8,
            "PCT",
        ),
        ExpectedFact(
            DECK,
            "slide=1,table=1,row=COMBINED_RATIO,col=2025H1",
            "COMBINED_RATIO",
            "2025H1",
            94.9,
            "PCT",
        ),
        # Memo: 截至…年6月30日止年度 headers, the ratio row says "%" itself.
        ExpectedFact(
            MEMO, "section=1,table=1,row=2,col=2", "COMBINED_RATIO", "FY2024", 95.1, "PCT"
        ),
        ExpectedFact(
            MEMO, "section=1,table=1,row=2,col=3", "COMBINED_RATIO", "FY2025", 94.3, "PCT"
        ),
    }
)

_UNDERWRITING = (
    ("Gross written premiums", "毛承保保费", 4120, 4385, 4702),
    ("Net premiums earned", "已赚保费净额", 3640, 3871, 4096),
    ("Claims incurred", "已发生赔款", 2518, 2690, 2847),
    ("Net claims incurred", "已发生赔款净额", 2203, 2351, 2472),
)
_EXPENSES = (
    ("Operating expenses excluding depreciation", "不含折旧的营运开支", 512, 538, 566),
    ("Depreciation", "折旧", 41, 44, 47),
)


def profile_path() -> Path:
    """The company's domain profile, shipped inside the package."""
    return Path(str(resources.files("ragspine.profile").joinpath("data", PROFILE_NAME)))


def build(root: Path) -> Path:
    """Write the three documents under ``root`` and return it."""
    for name, writer in ((WORKBOOK, _workbook), (DECK, _deck), (MEMO, _memo)):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        writer(path)
    return root


def _workbook(path: Path) -> None:
    book = Workbook()
    first = book.active
    assert first is not None
    book.remove(first)
    for title, heading, rows in (
        ("Underwriting", "Premiums and Claims 保费及赔款", _UNDERWRITING),
        ("Expenses", "Expenses 开支", _EXPENSES),
    ):
        sheet = book.create_sheet(title)
        sheet["A1"] = f"Kestrel Mutual — {heading}"
        sheet["A2"] = "(HK$ million)"
        for column, year in zip("CDE", (2023, 2024, 2025), strict=True):
            sheet[f"{column}4"] = f"Year ended 30 June {year}"
        for r, row in enumerate(rows, start=5):
            for c, value in enumerate(row, start=1):
                sheet.cell(row=r, column=c, value=value)
    book.properties.creator = AUTHOR
    book.properties.created = book.properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    # ExcelWriter directly: openpyxl's save() would stamp "modified" with the current time.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(book, archive).write_data()
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _deck(path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    slide.shapes.title.text = "Kestrel Mutual — interim results"
    grid = (
        ("HK$ million", "Six months ended 31 December 2023", "Six months ended 31 December 2024"),
        ("Gross written premiums", "2,060", "2,215"),
        ("Combined ratio (%)", "95.8", "94.9"),
    )
    shape = slide.shapes.add_table(3, 3, Inches(0.5), Inches(1.5), Inches(9), Inches(2))
    for r, row in enumerate(grid):
        for c, text in enumerate(row):
            shape.table.cell(r, c).text = text
    props = prs.core_properties
    props.author = props.last_modified_by = AUTHOR
    props.revision = 1
    props.created = props.modified = props.last_printed = FIXED_TIME
    buffer = io.BytesIO()
    prs.save(buffer)
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _memo(path: Path) -> None:
    path.write_text(
        "# 隼峰互助 年度摘要\n\n"
        "截至2025年6月30日止年度，承保业绩继续改善，理赔效率有所提升。\n\n"
        "| | 截至2024年6月30日止年度 | 截至2025年6月30日止年度 |\n"
        "| --- | --- | --- |\n"
        "| 综合成本率 | 95.1% | 94.3% |\n",
        encoding="utf-8",
    )
