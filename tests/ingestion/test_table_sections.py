"""Real report layouts: a label repeated under two section headings is qualified by its
section, and a row without a label fails alone instead of blanking its table."""

from __future__ import annotations

from ragspine.ingestion.model import LocatorStyle
from ragspine.ingestion.tables import ReviewReason, map_table
from tests.ingestion.test_tables import table
from tests.profiles import acme_glossary

Fact = tuple[str, str, str, float, str]


def facts(rows: list[list[str]], **kwargs: object) -> tuple[set[Fact], set[tuple[str, str]]]:
    mapped = map_table(table(rows, **kwargs), acme_glossary())  # type: ignore[arg-type]
    got = {(f.metric_code, f.entity, f.period.label, f.value, f.locator) for f in mapped.facts}
    return got, {(r.locator, r.reason) for r in mapped.review}


SECTIONED = [
    ["", "FY2024", "FY2025"],
    ["Hong Kong", "", ""],
    ["Revenue", "2,850", "3,105"],
    ["Operating profit", "760", "820"],
    ["Macau", "", ""],
    ["Revenue", "410", "438"],
    ["Operating profit", "95", "101"],
]


def test_a_label_repeated_under_two_sections_takes_each_sections_entity() -> None:
    got, review = facts(SECTIONED, title="Key figures (US$m)")
    loc = "slide=2,table=1,row={},col={}"
    assert got == {
        ("REVENUE", "ACME_HK", "FY2024", 2850.0, loc.format("REVENUE/ACME_HK", "FY2024")),
        ("REVENUE", "ACME_HK", "FY2025", 3105.0, loc.format("REVENUE/ACME_HK", "FY2025")),
        (
            "OPERATING_PROFIT",
            "ACME_HK",
            "FY2024",
            760.0,
            loc.format("OPERATING_PROFIT/ACME_HK", "FY2024"),
        ),
        (
            "OPERATING_PROFIT",
            "ACME_HK",
            "FY2025",
            820.0,
            loc.format("OPERATING_PROFIT/ACME_HK", "FY2025"),
        ),
        ("REVENUE", "ACME_MO", "FY2024", 410.0, loc.format("REVENUE/ACME_MO", "FY2024")),
        ("REVENUE", "ACME_MO", "FY2025", 438.0, loc.format("REVENUE/ACME_MO", "FY2025")),
        (
            "OPERATING_PROFIT",
            "ACME_MO",
            "FY2024",
            95.0,
            loc.format("OPERATING_PROFIT/ACME_MO", "FY2024"),
        ),
        (
            "OPERATING_PROFIT",
            "ACME_MO",
            "FY2025",
            101.0,
            loc.format("OPERATING_PROFIT/ACME_MO", "FY2025"),
        ),
    }
    assert review == set()


def test_rows_under_a_section_heading_nobody_can_read_fail_alone() -> None:
    rows = [row[:] for row in SECTIONED]
    rows[4][0] = "Segment B"  # not in the profile: the second "Revenue" names no section
    got, review = facts(rows, title="Key figures (US$m)")
    assert {f[1] for f in got} == {"ACME_HK"} and len(got) == 4
    loc = "slide=2,table=1,row={},col={}"
    assert review == {
        (loc.format(metric, year), ReviewReason.UNMAPPED_LABEL)
        for metric in ("REVENUE", "OPERATING_PROFIT")
        for year in ("FY2024", "FY2025")
    }


def test_an_unlabelled_total_row_fails_alone() -> None:
    rows = [
        ["", "FY2024", "FY2025"],
        ["Revenue", "2,850", "3,105"],
        ["Operating profit", "760", "820"],
        ["", "3,610", "3,925"],
    ]
    got, review = facts(rows, title="ACME Hong Kong (US$m)", style=LocatorStyle.GRID)
    assert {(f[0], f[2], f[3]) for f in got} == {
        ("REVENUE", "FY2024", 2850.0),
        ("REVENUE", "FY2025", 3105.0),
        ("OPERATING_PROFIT", "FY2024", 760.0),
        ("OPERATING_PROFIT", "FY2025", 820.0),
    }
    assert review == {
        ("slide=2,table=1,row=4,col=2", ReviewReason.MISSING_METRIC),
        ("slide=2,table=1,row=4,col=3", ReviewReason.MISSING_METRIC),
    }


def test_a_table_whose_rows_name_no_metric_is_still_reviewed_as_one() -> None:
    rows = [["", "FY2024"], ["", "2,850"], ["", "760"]]
    got, review = facts(rows, title="ACME Hong Kong (US$m)")
    assert got == set()
    assert review == {("slide=2,table=1", ReviewReason.MISSING_METRIC)}
