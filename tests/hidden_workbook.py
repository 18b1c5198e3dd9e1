"""A workbook hiding figures that disagree with its visible ones, for the tests of reading hidden
content (tests/ingestion/test_hidden_visible_first.py, tests/service/test_hidden_uploads.py).
The expected counts and facts are written out by hand from what the workbook holds."""

from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook

HK = "Hong Kong (US$m)"


def write_workbook(path: Path) -> None:
    """A hidden "Draft" sheet first (so it is read first), then the visible "HK" sheet with a
    hidden row 5 restating revenue and a hidden column D restating FY2025."""
    book = Workbook()
    draft = book.active
    assert draft is not None
    draft.title = "Draft"
    draft["A1"] = HK
    draft["A3"], draft["B3"], draft["C3"] = "Metric", "FY2025", "FY2026"
    draft["A4"], draft["B4"], draft["C4"] = "Revenue", 9999, 3000
    draft.sheet_state = "hidden"
    hk = book.create_sheet("HK")
    hk["A1"] = HK
    rows = [
        ("Metric", "FY2024", "FY2025", "FY2025"),
        ("Revenue", 2480, 2710, 8888),
        ("Revenue", 1111, 2222, 2710),  # hidden row; D5 agrees with C4
        ("Net profit", 501, 547, 600),
    ]
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            hk.cell(row=r, column=c, value=value)
    hk.row_dimensions[5].hidden = True
    hk.column_dimensions["D"].hidden = True
    book.save(path)


# Skipped by default: Draft's 7 cells, column D's 4 and row 5's other 3.
HIDDEN_CELLS = 7 + 4 + 3
VISIBLE = {
    ("REVENUE", "2024", 2480.0),
    ("REVENUE", "2025", 2710.0),
    ("NET_PROFIT", "2024", 501.0),
    ("NET_PROFIT", "2025", 547.0),
}
# Draft B4, HK D4, B5, C5, D6 disagree with a visible figure; D5 agrees and adds nothing.
SET_ASIDE = 5
