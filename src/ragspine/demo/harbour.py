"""Harbour Line Holdings: the demo's second company, and a regression corpus of real-report
units, currencies, fiscal-year headers, hidden content and footnotes in every format, with its
ground truth written out by hand.

The company (profile ``profile/data/harbour.toml``) reports in HK$, its ports arm in RMB (and
one note in EUR), and its fiscal year ends on 31 March, so "FY2024/25", "Year ended 31 March
2025", "截至2025年3月31日止年度" and "31 Mar 2025" all name FY2025.

Each document is written by its format's own library. ``EXPECTED_FACTS`` and
``EXPECTED_REVIEW`` are the outcome a careful reader of the documents would write down —
nothing here is read back from the engine. Amounts are in millions of the stated currency
(``HKD_M``: 2,980,000 under "HK$'000" is 2,980), ratios in percent, counts as counted.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import docx
from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter
from pptx import Presentation
from pptx.util import Inches

from ragspine.demo.corpus_writers.frozen import AUTHOR, FIXED_TIME, frozen_zip, write_bytes

PROFILE_NAME = "harbour.toml"

WORKBOOK = "workbooks/HLH_Five_Year.xlsx"
DECK = "decks/HLH_FY2025_Results.pptx"
REPORT = "reports/HLH_Annual_Report_2025.docx"
STATISTICS = "reports/HLH_Operating_Statistics.pdf"
NOTE = "memos/HLH_Ports_Note.md"


@dataclass(frozen=True, order=True)
class ExpectedFact:
    doc: str
    locator: str
    metric: str
    entity: str
    period: str  # label: FY2025
    value: float
    unit: str


@dataclass(frozen=True, order=True)
class ExpectedReview:
    doc: str
    locator: str
    reason: str


EXPECTED_FACTS: frozenset[ExpectedFact] = frozenset(
    {
        # Workbook, visible sheet "Summary" under "(HK$ million)", split-year headers. The hidden
        # column D ("FY2025/26 budget"), the hidden row 7 ("Revenue (draft)") and the hidden
        # sheet "Draft" (revenue 3,999) are skipped: none of them yields a fact or an item.
        ExpectedFact(
            WORKBOOK, "sheet=Summary,cell=B5", "REVENUE", "HLH_GROUP", "FY2024", 3210, "HKD_M"
        ),
        ExpectedFact(
            WORKBOOK, "sheet=Summary,cell=C5", "REVENUE", "HLH_GROUP", "FY2025", 3480, "HKD_M"
        ),
        ExpectedFact(
            WORKBOOK,
            "sheet=Summary,cell=B6",
            "OPERATING_PROFIT",
            "HLH_GROUP",
            "FY2024",
            402,
            "HKD_M",
        ),
        ExpectedFact(
            WORKBOOK,
            "sheet=Summary,cell=C6",
            "OPERATING_PROFIT",
            "HLH_GROUP",
            "FY2025",
            455,
            "HKD_M",
        ),
        # Sheet "Ferries": 512,000,000 shown as "512" by the format #,##0,, under a row label
        # naming HK$ m; 0.131 formatted 0.0% is 13.1%; a count without a marker.
        ExpectedFact(
            WORKBOOK,
            "sheet=Ferries,cell=B4",
            "OPERATING_PROFIT",
            "HLH_FERRY",
            "FY2025",
            512,
            "HKD_M",
        ),
        ExpectedFact(
            WORKBOOK,
            "sheet=Ferries,cell=B5",
            "OPERATING_MARGIN",
            "HLH_FERRY",
            "FY2025",
            13.1,
            "PCT",
        ),
        ExpectedFact(
            WORKBOOK, "sheet=Ferries,cell=B6", "PASSENGERS", "HLH_FERRY", "FY2025", 18450, "COUNT"
        ),
        # Sheet "Ports": the title names RMB million.
        ExpectedFact(
            WORKBOOK, "sheet=Ports,cell=B4", "OPERATING_PROFIT", "HLH_PORTS", "FY2025", 210, "CNY_M"
        ),
        # Deck slide 1: "HK$'000" in the corner cell, "Year ended 31 March …" headers.
        ExpectedFact(
            DECK,
            "slide=1,table=1,row=REVENUE,col=FY2024",
            "REVENUE",
            "HLH_FERRY",
            "FY2024",
            2980,
            "HKD_M",
        ),
        ExpectedFact(
            DECK,
            "slide=1,table=1,row=REVENUE,col=FY2025",
            "REVENUE",
            "HLH_FERRY",
            "FY2025",
            3105.5,
            "HKD_M",
        ),
        # Report table 1: 单位：人民币千元 and 截至…年3月31日止年度 headers.
        ExpectedFact(
            REPORT, "table=1,row=2,col=2", "REVENUE", "HLH_PORTS", "FY2024", 1180, "CNY_M"
        ),
        ExpectedFact(
            REPORT, "table=1,row=2,col=3", "REVENUE", "HLH_PORTS", "FY2025", 1250, "CNY_M"
        ),
        # Report table 2: 单位：港币百万元 over a split-year "2023/24" header; the margin row says
        # "%" itself, and a money marker never scales a ratio.
        ExpectedFact(
            REPORT, "table=2,row=2,col=2", "OPERATING_MARGIN", "HLH_FERRY", "FY2024", 12.4, "PCT"
        ),
        ExpectedFact(
            REPORT, "table=2,row=3,col=2", "OPERATING_PROFIT", "HLH_FERRY", "FY2024", 488, "HKD_M"
        ),
        # PDF: date headers "31 Mar 2024" / "31 Mar 2025" name the fiscal years ending then.
        ExpectedFact(
            STATISTICS,
            "page=1,table=1,row=2,col=2",
            "OPERATING_MARGIN",
            "HLH_GROUP",
            "FY2024",
            12.5,
            "PCT",
        ),
        ExpectedFact(
            STATISTICS,
            "page=1,table=1,row=2,col=3",
            "OPERATING_MARGIN",
            "HLH_GROUP",
            "FY2025",
            13.1,
            "PCT",
        ),
        ExpectedFact(
            STATISTICS,
            "page=1,table=1,row=3,col=2",
            "PASSENGERS",
            "HLH_GROUP",
            "FY2024",
            35100,
            "COUNT",
        ),
        ExpectedFact(
            STATISTICS,
            "page=1,table=1,row=3,col=3",
            "PASSENGERS",
            "HLH_GROUP",
            "FY2025",
            36250,
            "COUNT",
        ),
        # Markdown: "Unit: EUR m" and an "FY 2024" header.
        ExpectedFact(
            NOTE,
            "section=1,table=1,row=2,col=2",
            "OPERATING_PROFIT",
            "HLH_PORTS",
            "FY2024",
            28,
            "EUR_M",
        ),
    }
)

EXPECTED_REVIEW: frozenset[ExpectedReview] = frozenset(
    {
        # A bare fraction (General format) for a percent metric: 0.168 could be 0.168% or 16.8%.
        ExpectedReview(WORKBOOK, "sheet=Ports,cell=B5", "unit_mismatch"),
        # A head count under a money marker ("HK$'000" in the corner): never scaled by it.
        ExpectedReview(DECK, "slide=1,table=1,row=PASSENGERS,col=FY2024", "unit_mismatch"),
        # "16,800¹": the superscript is a footnote mark, not a digit; footnoted figures are
        # reviewed (the item proposes 16,800, never 168,001).
        ExpectedReview(DECK, "slide=3,table=1,row=PASSENGERS,col=FY2023", "low_confidence"),
        # "Unit: in lakhs": a unit-like token the engine cannot explain sends the table to review.
        ExpectedReview(REPORT, "table=3", "unit_unknown"),
        # "€ 12" in a table whose unit line says US$ m: the cell's currency contradicts the table's.
        ExpectedReview(NOTE, "section=2,table=1,row=2,col=2", "unit_mismatch"),
    }
)

# The figure the footnoted cell's review item proposes (the mark is not a digit).
FOOTNOTED_PROPOSAL = (DECK, "slide=3,table=1,row=PASSENGERS,col=FY2023", 16800.0)

# What is hidden in the corpus, so the ingest summary can be checked against it.
HIDDEN_SHEETS = 1  # workbook sheet "Draft"
HIDDEN_SLIDES = 1  # deck slide 2


def profile_path() -> Path:
    """The company's domain profile, shipped inside the package."""
    return Path(str(resources.files("ragspine.profile").joinpath("data", PROFILE_NAME)))


def build(root: Path) -> Path:
    """Write the five documents under ``root`` and return it."""
    for name, writer in (
        (WORKBOOK, _workbook),
        (DECK, _deck),
        (REPORT, _report),
        (STATISTICS, _statistics),
        (NOTE, _note),
    ):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        writer(path)
    return root


def _workbook(path: Path) -> None:
    book = Workbook()
    summary = book.active
    assert summary is not None
    summary.title = "Summary"
    summary["A1"] = "Harbour Line Holdings — Group summary"
    summary["A2"] = "(HK$ million)"
    rows = (
        ("", "FY2023/24", "FY2024/25", "FY2025/26 budget"),
        ("Revenue", 3210, 3480, 3900),
        ("Operating profit", 402, 455, 500),
        ("Revenue (draft)", 3300, 3999, 4100),
    )
    for r, row in enumerate(rows, start=4):
        for c, value in enumerate(row, start=1):
            if value != "":
                summary.cell(row=r, column=c, value=value)
    summary.column_dimensions["D"].hidden = True
    summary.row_dimensions[7].hidden = True

    draft = book.create_sheet("Draft")
    draft["A1"] = "Harbour Line Holdings — Group summary (draft)"
    draft["A2"] = "(HK$ million)"
    draft["B4"] = "FY2024/25"
    draft["A5"], draft["B5"] = "Revenue", 3999
    draft.sheet_state = "hidden"

    ferries = book.create_sheet("Ferries")
    ferries["A1"] = "Ferries segment"
    ferries["B3"] = "FY2024/25"
    ferries["A4"], ferries["B4"] = "Operating profit (HK$ m)", 512_000_000
    ferries["B4"].number_format = "#,##0,,"
    ferries["A5"], ferries["B5"] = "Operating margin", 0.131
    ferries["B5"].number_format = "0.0%"
    ferries["A6"], ferries["B6"] = "Passenger trips", 18450

    ports = book.create_sheet("Ports")
    ports["A1"] = "Ports segment (RMB million)"
    ports["B3"] = "FY2024/25"
    ports["A4"], ports["B4"] = "Operating profit", 210
    ports["A5"], ports["B5"] = "Operating margin", 0.168  # General format: a bare fraction
    book.properties.creator = AUTHOR
    book.properties.created = book.properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    # ExcelWriter directly: openpyxl's save() would stamp "modified" with the current time.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(book, archive).write_data()
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _deck(path: Path) -> None:
    prs = Presentation()
    layout = prs.slide_layouts[5]  # title only
    slides = (
        (
            "Ferries segment — results",
            (
                ("HK$'000", "Year ended 31 March 2024", "Year ended 31 March 2025"),
                ("Revenue", "2,980,000", "3,105,500"),
                ("Passenger trips", "17,900", "—"),
            ),
        ),
        ("Ferries segment — draft", (("", "FY2024/25"), ("Revenue (HK$ m)", "9,999"))),
        ("Ferries segment — customers", (("", "Fiscal 2023"), ("Passenger trips", "16,800¹"))),
    )
    for title, grid in slides:
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = title
        shape = slide.shapes.add_table(
            len(grid), len(grid[0]), Inches(0.5), Inches(1.5), Inches(9), Inches(2)
        )
        for r, row in enumerate(grid):
            for c, text in enumerate(row):
                shape.table.cell(r, c).text = text
    prs.slides[1]._element.set("show", "0")  # the draft slide is hidden in the show
    _pin_properties(prs.core_properties)
    buffer = io.BytesIO()
    prs.save(buffer)
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _report(path: Path) -> None:
    document = docx.Document()
    _pin_properties(document.core_properties)
    tables = (
        (
            "港口业务",
            "单位：人民币千元",
            (
                ("", "截至2024年3月31日止年度", "截至2025年3月31日止年度"),
                ("收入", "1,180,000", "1,250,000"),
            ),
        ),
        (
            "渡轮业务",
            "单位：港币百万元",
            (("", "2023/24"), ("营运利润率", "12.4%"), ("营运利润", "488")),
        ),
        ("渡轮业务 — 其他", "Unit: in lakhs", (("", "FY2024/25"), ("Revenue", "12.5"))),
    )
    for heading, unit_line, grid in tables:
        document.add_heading(heading, level=1)
        document.add_paragraph(unit_line)
        table = document.add_table(rows=len(grid), cols=len(grid[0]))
        for r, row in enumerate(grid):
            for c, text in enumerate(row):
                table.cell(r, c).text = text
    buffer = io.BytesIO()
    document.save(buffer)
    write_bytes(path, frozen_zip(buffer.getvalue()))


def _pin_properties(props: Any) -> None:
    """One author and one time, so the same corpus is always the same bytes."""
    props.author = props.last_modified_by = AUTHOR
    props.revision = 1
    props.created = props.modified = props.last_printed = FIXED_TIME


def _statistics(path: Path) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    canvas.setAuthor(AUTHOR)
    _, height = A4
    margin, y = 56.0, height - 56.0
    canvas.setFont("Helvetica-Bold", 12)
    y -= 16
    canvas.drawString(margin, y, "Harbour Line Holdings — Group operating statistics")
    y -= 12
    grid = (
        ("", "31 Mar 2024", "31 Mar 2025"),
        ("Operating margin", "12.5%", "13.1%"),
        ("Passenger trips", "35,100", "36,250"),
    )
    xs = (margin, margin + 200, margin + 320, margin + 440)
    row_height = 18.0
    for r, row in enumerate(grid):
        bottom = y - row_height
        for c, text in enumerate(row):
            canvas.rect(xs[c], bottom, xs[c + 1] - xs[c], row_height)
            if text:
                canvas.setFont("Helvetica-Bold" if r == 0 else "Helvetica", 9)
                if c == 0:
                    canvas.drawString(xs[c] + 4, bottom + 5.5, text)
                else:
                    canvas.drawRightString(xs[c + 1] - 4, bottom + 5.5, text)
        y = bottom
    canvas.showPage()
    canvas.save()
    write_bytes(path, buffer.getvalue())


def _note(path: Path) -> None:
    path.write_text(
        "# Ports segment\n\n"
        "Unit: EUR m\n\n"
        "| | FY 2024 |\n| --- | --- |\n| Operating profit | 28 |\n\n"
        "# Ferries segment\n\n"
        "Unit: US$ m\n\n"
        "| | FY2024 |\n| --- | --- |\n| Revenue | € 12 |\n",
        encoding="utf-8",
    )
