"""Tables → candidate facts and review items, per the mapping rules in ingestion/tables.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ragspine.ingestion.labels import read_label
from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.tables import MAX_UNMAPPED_ITEMS, ReviewReason, map_table
from ragspine.profile.glossary import Glossary
from tests.profiles import acme_glossary


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return acme_glossary()


def table(
    rows: Sequence[Sequence[str]],
    *,
    title: str = "",
    context: Sequence[str] = (),
    prefix: str = "slide=2,table=1",
    style: LocatorStyle = LocatorStyle.SEMANTIC,
) -> Table:
    cells = tuple(
        tuple(Cell(r, c, text, ref=f"{chr(65 + c)}{r + 1}") for c, text in enumerate(row))
        for r, row in enumerate(rows)
    )
    return Table(cells, prefix, style, title, tuple(context))


def facts_of(mapped) -> set[tuple[str, str, str, str, float, str, str]]:  # type: ignore[no-untyped-def]
    return {
        (f.metric_code, f.entity, f.channel, f.period.label, f.value, f.unit, f.locator)
        for f in mapped.facts
    }


def test_labels_must_be_fully_explained(glossary: Glossary) -> None:
    assert read_label("收入（百万美元）", glossary).covered
    assert read_label("新业务价值 - 代理人渠道", glossary).key == "NBV/AGENCY"
    assert not read_label("其他收入", glossary).covered
    assert not read_label("收入增长率 %", glossary).covered
    assert not read_label("净利润率", glossary).covered
    assert read_label("2025 Q3", glossary).key == "2025Q3"
    assert read_label("去年", glossary).periods == ()  # documents use absolute periods only


def test_metric_rows_by_period_columns_with_entity_from_title(glossary: Glossary) -> None:
    mapped = map_table(
        table(
            [
                ["指标（百万美元）", "FY2023", "FY2024"],
                ["收入", "1,210", "1,320"],
                ["营运利润", "(45)", "310"],
            ],
            title="中国内地业务",
        ),
        glossary,
    )
    assert facts_of(mapped) == {
        (
            "REVENUE",
            "ACME_CN",
            "TOTAL",
            "FY2023",
            1210.0,
            "USD_M",
            "slide=2,table=1,row=REVENUE,col=FY2023",
        ),
        (
            "REVENUE",
            "ACME_CN",
            "TOTAL",
            "FY2024",
            1320.0,
            "USD_M",
            "slide=2,table=1,row=REVENUE,col=FY2024",
        ),
        (
            "OPERATING_PROFIT",
            "ACME_CN",
            "TOTAL",
            "FY2023",
            -45.0,
            "USD_M",
            "slide=2,table=1,row=OPERATING_PROFIT,col=FY2023",
        ),
        (
            "OPERATING_PROFIT",
            "ACME_CN",
            "TOTAL",
            "FY2024",
            310.0,
            "USD_M",
            "slide=2,table=1,row=OPERATING_PROFIT,col=FY2024",
        ),
    }
    assert mapped.review == []


def test_transposed_table_and_percent_column(glossary: Glossary) -> None:
    mapped = map_table(
        table(
            [["", "Revenue", "NBV margin (%)"], ["1H24", "900", "50"], ["1H25", "1,000", "55.5"]],
            title="Hong Kong key figures (US$m)",
        ),
        glossary,
    )
    assert (
        "NBV_MARGIN",
        "ACME_HK",
        "TOTAL",
        "2025H1",
        55.5,
        "PCT",
        "slide=2,table=1,row=2025H1,col=NBV_MARGIN",
    ) in facts_of(mapped)
    assert (
        "REVENUE",
        "ACME_HK",
        "TOTAL",
        "2024H1",
        900.0,
        "USD_M",
        "slide=2,table=1,row=2024H1,col=REVENUE",
    ) in facts_of(mapped)


def test_merged_headers_combine_year_and_quarter(glossary: Glossary) -> None:
    mapped = map_table(
        table([["", "2025", "2025"], ["", "Q2", "Q3"], ["香港 收入", "10", "11"]]), glossary
    )
    assert {(f.period.label, f.value) for f in mapped.facts} == {("2025Q2", 10.0), ("2025Q3", 11.0)}


def test_unmapped_label_low_confidence_and_unit_mismatch_go_to_review(glossary: Glossary) -> None:
    mapped = map_table(
        table(
            [
                ["指标", "FY2024"],
                ["其他收入", "15"],
                ["净利润", "约100"],
                ["收入", "12%"],
                ["新业务价值", "80"],
            ],
            title="香港",
        ),
        glossary,
    )
    reasons = {(r.reason, r.locator) for r in mapped.review}
    assert reasons == {
        (ReviewReason.UNMAPPED_LABEL, "slide=2,table=1,row=2,col=1"),
        (ReviewReason.LOW_CONFIDENCE, "slide=2,table=1,row=NET_PROFIT,col=FY2024"),
        (ReviewReason.UNIT_MISMATCH, "slide=2,table=1,row=REVENUE,col=FY2024"),
    }
    low = next(r for r in mapped.review if r.reason == ReviewReason.LOW_CONFIDENCE)
    assert low.fact is not None and low.fact.value == 100.0
    assert {(f.metric_code, f.value) for f in mapped.facts} == {("NBV", 80.0)}


def test_unmapped_labels_past_the_cap_share_one_review_item(glossary: Glossary) -> None:
    extra = 7
    rows = [["指标", "FY2024"], ["收入", "15"]]
    rows += [[f"杂项{i}", str(i)] for i in range(MAX_UNMAPPED_ITEMS + extra)]
    mapped = map_table(table(rows, title="香港"), glossary)

    unmapped = [r for r in mapped.review if r.reason == ReviewReason.UNMAPPED_LABEL]
    assert len(unmapped) == MAX_UNMAPPED_ITEMS + 1
    summary = unmapped[-1]
    assert summary.locator == "slide=2,table=1"
    first_beyond = MAX_UNMAPPED_ITEMS
    assert summary.detail == (
        f"{extra} more row labels are not in the glossary (e.g. '杂项{first_beyond}', "
        f"'杂项{first_beyond + 1}', '杂项{first_beyond + 2}')"
    )
    assert {(f.metric_code, f.value) for f in mapped.facts} == {("REVENUE", 15.0)}


@pytest.mark.parametrize(
    ("title", "reason"),
    [
        ("香港与澳门业务对比", ReviewReason.AMBIGUOUS_ENTITY),
        ("业绩摘要", ReviewReason.MISSING_ENTITY),
    ],
)
def test_table_level_entity_problems_hold_back_every_number(
    glossary: Glossary, title: str, reason: ReviewReason
) -> None:
    mapped = map_table(table([["指标", "FY2024"], ["收入", "10"]], title=title), glossary)
    assert mapped.facts == []
    assert [(r.reason, r.locator) for r in mapped.review] == [(reason, "slide=2,table=1")]


def test_competitor_in_a_title_does_not_name_the_home_region(glossary: Glossary) -> None:
    mapped = map_table(
        table([["指标", "FY2024"], ["收入", "10"]], title="中国竞联人寿对标"), glossary
    )
    assert mapped.facts == []
    assert mapped.review[0].reason == ReviewReason.MISSING_ENTITY


def test_cell_and_grid_locators(glossary: Glossary) -> None:
    rows = [["Metric", "FY2024"], ["Revenue (US$bn)", "1.5"]]
    by_cell = map_table(
        table(rows, title="HK", prefix="sheet=HK", style=LocatorStyle.CELL), glossary
    )
    assert facts_of(by_cell) == {
        ("REVENUE", "ACME_HK", "TOTAL", "FY2024", 1500.0, "USD_M", "sheet=HK,cell=B2")
    }
    by_grid = map_table(
        table(rows, title="Table 3: Macau", prefix="page=3,table=1", style=LocatorStyle.GRID),
        glossary,
    )
    assert {f.locator for f in by_grid.facts} == {"page=3,table=1,row=2,col=2"}


def test_spreadsheet_percent_values_are_scaled(glossary: Glossary) -> None:
    cells = (
        (Cell(0, 0, "指标"), Cell(0, 1, "FY2025")),
        (Cell(1, 0, "新业务价值利润率"), Cell(1, 1, "55.2%", 0.552, "0.0%", "B2")),
    )
    mapped = map_table(Table(cells, "sheet=HK", LocatorStyle.CELL, "HK"), glossary)
    assert [(f.value, f.unit) for f in mapped.facts] == [(55.2, "PCT")]


def merged_table(
    rows: Sequence[Sequence[str]],
    merged: set[tuple[int, int]],
    *,
    title: str = "香港 (US$m)",
    style: LocatorStyle = LocatorStyle.CELL,
) -> Table:
    """A grid as a reader gives it: each merged position repeats its anchor's text."""
    cells = tuple(
        tuple(
            Cell(r, c, text, ref=f"{chr(65 + c)}{r + 1}", merged=(r, c) in merged)
            for c, text in enumerate(row)
        )
        for r, row in enumerate(rows)
    )
    prefix = "sheet=HK" if style == LocatorStyle.CELL else "slide=2,table=1"
    return Table(cells, prefix, style, title)


def test_a_value_merged_across_two_periods_is_one_review_item_not_two_facts(
    glossary: Glossary,
) -> None:
    rows = [["Metric", "FY2023", "FY2024"], ["收入", "1,320", "1,320"], ["净利润", "80", "90"]]
    mapped = map_table(merged_table(rows, {(1, 1), (1, 2)}), glossary)
    assert facts_of(mapped) == {
        ("NET_PROFIT", "ACME_HK", "TOTAL", "FY2023", 80.0, "USD_M", "sheet=HK,cell=B3"),
        ("NET_PROFIT", "ACME_HK", "TOTAL", "FY2024", 90.0, "USD_M", "sheet=HK,cell=C3"),
    }
    assert [(r.reason, r.locator) for r in mapped.review] == [
        (ReviewReason.AMBIGUOUS_CELL, "sheet=HK,cell=B2")
    ]
    assert "merged over 2 cells" in mapped.review[0].detail


def test_a_value_merged_under_one_merged_period_is_one_fact_at_its_anchor(
    glossary: Glossary,
) -> None:
    rows = [["Metric", "FY2024", "FY2024"], ["收入", "1,320", "1,320"]]
    mapped = map_table(merged_table(rows, {(0, 1), (0, 2), (1, 1), (1, 2)}), glossary)
    assert facts_of(mapped) == {
        ("REVENUE", "ACME_HK", "TOTAL", "FY2024", 1320.0, "USD_M", "sheet=HK,cell=B2")
    }
    assert mapped.review == []


def test_a_value_merged_down_two_metric_rows_is_ambiguous(glossary: Glossary) -> None:
    rows = [["Metric", "FY2024"], ["收入", "75"], ["净利润", "75"]]
    mapped = map_table(merged_table(rows, {(1, 1), (2, 1)}), glossary)
    assert (mapped.facts, [(r.reason, r.locator) for r in mapped.review]) == (
        [],
        [(ReviewReason.AMBIGUOUS_CELL, "sheet=HK,cell=B2")],
    )


def test_duplicate_period_columns_get_distinct_locators_and_go_to_review(
    glossary: Glossary,
) -> None:
    rows = [["", "FY2024", "FY2024", "FY2025"], ["收入", "1,320", "1,330", "1,400"]]
    mapped = map_table(table(rows, title="香港"), glossary)
    assert facts_of(mapped) == {
        (
            "REVENUE",
            "ACME_HK",
            "TOTAL",
            "FY2025",
            1400.0,
            "USD_M",
            "slide=2,table=1,row=REVENUE,col=FY2025",
        )
    }
    assert [(r.reason, r.locator) for r in mapped.review] == [
        (ReviewReason.AMBIGUOUS_CELL, "slide=2,table=1,row=REVENUE,col=FY2024#2"),
        (ReviewReason.AMBIGUOUS_CELL, "slide=2,table=1,row=REVENUE,col=FY2024#3"),
    ]
    assert "another column is also headed 'FY2024'" in mapped.review[0].detail


def test_duplicate_metric_columns_of_a_transposed_table_go_to_review(glossary: Glossary) -> None:
    rows = [["", "收入", "收入"], ["FY2024", "1,320", "1,330"]]
    mapped = map_table(table(rows, title="香港"), glossary)
    assert mapped.facts == []
    assert [r.locator for r in mapped.review] == [
        "slide=2,table=1,row=FY2024,col=REVENUE#2",
        "slide=2,table=1,row=FY2024,col=REVENUE#3",
    ]
