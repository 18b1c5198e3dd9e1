"""Column headers as real reports write periods, under December and March fiscal calendars.

Each header becomes a fully explained label naming one period, and a table under it yields the
facts written below; a header whose year end contradicts the profile's calendar is never
mapped to a period (the table goes to review instead).
"""

from __future__ import annotations

import pytest

from ragspine.ingestion.labels import read_label
from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.tables import ReviewReason, map_table
from ragspine.profile.glossary import Glossary, glossary_for
from tests.profiles import acme_glossary, initech

# ACME's fiscal year ends in December, Initech's in March (FY2025 = April 2024 – March 2025).
ACME = acme_glossary()
INITECH = glossary_for(initech())


def grid(headers: tuple[str, str], metric: str, title: str) -> Table:
    rows = [["Metric", *headers], [metric, "1,250", "1,180"]]
    cells = tuple(
        tuple(Cell(r, c, text) for c, text in enumerate(row)) for r, row in enumerate(rows)
    )
    return Table(cells, "table=1", LocatorStyle.GRID, title)


@pytest.mark.parametrize(
    ("header", "glossary", "label"),
    [
        ("Fiscal 2019", ACME, "FY2019"),
        ("FY 2019", ACME, "FY2019"),
        ("Year ended December 31, 2019", ACME, "FY2019"),
        ("December 31, 2019", ACME, "FY2019"),
        ("31 Dec 2019", ACME, "FY2019"),
        ("2019年度", ACME, "FY2019"),
        ("2019年12月31日", ACME, "FY2019"),
        ("截至2019年12月31日止年度", ACME, "FY2019"),
        ("As at 31 December 2019", ACME, "FY2019"),
        ("FY2024/25", INITECH, "FY2025"),
        ("2024/25", INITECH, "FY2025"),
        ("2024-25", INITECH, "FY2025"),
        ("24/25财年", INITECH, "FY2025"),
        ("Year ended 31 March 2025", INITECH, "FY2025"),
        ("截至2025年3月31日止年度", INITECH, "FY2025"),
        ("As at 31 March 2025", INITECH, "FY2025"),
        ("Six months ended 30 September 2024", INITECH, "2025H1"),
        ("Q3 FY2024/25", INITECH, "2025Q3"),
        # A quarter-end date of a March year: the quarter it ends.
        ("31 December 2024", INITECH, "2025Q3"),
    ],
)
def test_a_header_form_is_a_covered_period(header: str, glossary: Glossary, label: str) -> None:
    reading = read_label(header, glossary)
    assert reading.covered
    assert [p.label for p in reading.periods] == [label]


@pytest.mark.parametrize(
    ("headers", "glossary", "metric", "title", "expected"),
    [
        (
            ("Year ended December 31, 2019", "Year ended December 31, 2018"),
            ACME,
            "Revenue",
            "Hong Kong (US$m)",
            {("REVENUE", "FY2019", 1250.0), ("REVENUE", "FY2018", 1180.0)},
        ),
        (
            ("Fiscal 2019", "Fiscal 2018"),
            ACME,
            "Revenue",
            "Hong Kong (US$m)",
            {("REVENUE", "FY2019", 1250.0), ("REVENUE", "FY2018", 1180.0)},
        ),
        (
            ("2019年12月31日", "2018年12月31日"),
            ACME,
            "收入",
            "香港（百万美元）",
            {("REVENUE", "FY2019", 1250.0), ("REVENUE", "FY2018", 1180.0)},
        ),
        (
            ("FY2024/25", "FY2023/24"),
            INITECH,
            "Bookings",
            "Worldwide (US$m)",
            {("BOOKINGS", "FY2025", 1250.0), ("BOOKINGS", "FY2024", 1180.0)},
        ),
        (
            ("Year ended 31 March 2025", "Year ended 31 March 2024"),
            INITECH,
            "Bookings",
            "Worldwide (US$m)",
            {("BOOKINGS", "FY2025", 1250.0), ("BOOKINGS", "FY2024", 1180.0)},
        ),
        (
            ("2024/25财年", "2023/24财年"),
            INITECH,
            "订单额",
            "全球（百万美元）",
            {("BOOKINGS", "FY2025", 1250.0), ("BOOKINGS", "FY2024", 1180.0)},
        ),
    ],
)
def test_a_table_under_real_headers_yields_its_facts(
    headers: tuple[str, str],
    glossary: Glossary,
    metric: str,
    title: str,
    expected: set[tuple[str, str, float]],
) -> None:
    mapped = map_table(grid(headers, metric, title), glossary)
    assert mapped.review == []
    assert {(f.metric_code, f.period.label, f.value) for f in mapped.facts} == expected


@pytest.mark.parametrize(
    ("header", "glossary", "metric", "title"),
    [
        ("Year ended December 31, 2019", INITECH, "Bookings", "Worldwide (US$m)"),
        ("截至2019年12月31日止年度", INITECH, "订单额", "全球（百万美元）"),
        ("FY2024/25", ACME, "Revenue", "Hong Kong (US$m)"),
    ],
)
def test_a_year_end_the_calendar_does_not_have_is_never_mapped(
    header: str, glossary: Glossary, metric: str, title: str
) -> None:
    reading = read_label(header, glossary)
    assert not reading.covered
    assert reading.periods == ()
    mapped = map_table(grid((header, "FY2018"), metric, title), glossary)
    # Only the other column's figure is a fact; the contradicting column goes to review.
    assert {(f.period.label, f.value) for f in mapped.facts} == {("FY2018", 1180.0)}
    assert [item.reason for item in mapped.review] == [ReviewReason.UNMAPPED_LABEL]


@pytest.mark.parametrize(
    ("top", "years", "glossary", "metric", "title", "expected"),
    [
        (
            "Year ended December 31,",
            ("2019", "2018"),
            ACME,
            "Revenue",
            "Hong Kong (US$m)",
            {("FY2019", 1250.0), ("FY2018", 1180.0)},
        ),
        (
            "截至12月31日止年度",
            ("2019年", "2018年"),
            ACME,
            "收入",
            "香港（百万美元）",
            {("FY2019", 1250.0), ("FY2018", 1180.0)},
        ),
        (
            "Year ended 31 March",
            ("2025", "2024"),
            INITECH,
            "Bookings",
            "Worldwide (US$m)",
            {("FY2025", 1250.0), ("FY2024", 1180.0)},
        ),
        (
            "截至3月31日止年度",
            ("2025年", "2024年"),
            INITECH,
            "订单额",
            "全球（百万美元）",
            {("FY2025", 1250.0), ("FY2024", 1180.0)},
        ),
    ],
)
def test_a_year_end_merged_above_the_years_reads_with_each_year(
    top: str,
    years: tuple[str, str],
    glossary: Glossary,
    metric: str,
    title: str,
    expected: set[tuple[str, float]],
) -> None:
    rows = [
        [Cell(0, 0, ""), Cell(0, 1, top, merged=True), Cell(0, 2, top, merged=True)],
        [Cell(1, 0, "Metric"), Cell(1, 1, years[0]), Cell(1, 2, years[1])],
        [Cell(2, 0, metric), Cell(2, 1, "1,250"), Cell(2, 2, "1,180")],
    ]
    table = Table(tuple(tuple(row) for row in rows), "table=1", LocatorStyle.GRID, title)
    mapped = map_table(table, glossary)
    assert mapped.review == []
    assert {(f.period.label, f.value) for f in mapped.facts} == expected
