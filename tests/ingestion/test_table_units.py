"""Units at ingestion: every marker a report writes is read into the fact's currency and scale,
or the value goes to review — never to the profile's default. Expected outcomes are written by
hand from what each table states."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragspine.ingestion.model import Cell, LocatorStyle, Table
from ragspine.ingestion.tables import ReviewReason, TableMapping, map_table
from ragspine.profile.glossary import Glossary
from tests.profiles import acme_glossary


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return acme_glossary()


def grid(
    rows: Sequence[Sequence[str | Cell]], *, title: str = "Hong Kong", context: Sequence[str] = ()
) -> Table:
    cells = tuple(
        tuple(
            c if isinstance(c, Cell) else Cell(r, j, c, ref=f"{chr(65 + j)}{r + 1}")
            for j, c in enumerate(row)
        )
        for r, row in enumerate(rows)
    )
    return Table(cells, "page=1,table=1", LocatorStyle.GRID, title, tuple(context))


def one_fact(mapped: TableMapping) -> tuple[str, float, str]:
    assert mapped.review == [], mapped.review
    assert len(mapped.facts) == 1, mapped.facts
    fact = mapped.facts[0]
    return fact.metric_code, fact.value, fact.unit


def reasons(mapped: TableMapping) -> set[ReviewReason]:
    return {r.reason for r in mapped.review}


@pytest.mark.parametrize(
    ("title", "context", "label", "cell", "value", "unit"),
    [
        ("Hong Kong", ["单位：百万元"], "收入", "8,800", 8800.0, "CNY_M"),
        ("Hong Kong", ["单位：万元"], "收入", "8,800", 88.0, "CNY_M"),
        ("Hong Kong", ["单位：人民币千元"], "收入", "1,250,000", 1250.0, "CNY_M"),
        ("Hong Kong (HK$'000)", [], "Revenue", "950,000", 950.0, "HKD_M"),
        ("Hong Kong", ["(in thousands)"], "Revenue", "12,345", 12.345, "USD_M"),
        ("Hong Kong (HK$ million)", [], "Revenue", "3,480", 3480.0, "HKD_M"),
        ("Hong Kong EUR m", [], "Revenue", "950", 950.0, "EUR_M"),
        ("Hong Kong (RMB billion)", [], "Revenue", "1.5", 1500.0, "CNY_M"),
        ("Hong Kong", [], "Revenue (HK$ m)", "3,480", 3480.0, "HKD_M"),
        ("Hong Kong", [], "收入（港币百万元）", "3,480", 3480.0, "HKD_M"),
        ("Hong Kong (in millions)", [], "Revenue", "HK$ 950", 950.0, "HKD_M"),
        ("Hong Kong", [], "Revenue", "3.5bn", 3500.0, "USD_M"),
        ("Hong Kong", [], "收入", "8,800万元", 88.0, "CNY_M"),
        # 元 with no 万, 百万 or 亿 before it states whole units as plainly as "millions" would
        ("Hong Kong", ["单位：人民币元"], "收入", "452,300,000", 452.3, "CNY_M"),
        ("Hong Kong", ["单位：元"], "收入", "1,250,000", 1.25, "CNY_M"),
        ("Hong Kong", [], "收入（港元）", "950,000,000", 950.0, "HKD_M"),
        ("Hong Kong (US$m)", [], "Revenue", "US$ 1.2bn", 1200.0, "USD_M"),
        ("Hong Kong (in millions)", [], "Revenue", "£40", 40.0, "GBP_M"),
        ("Hong Kong", [], "Agent count ('000)", "12", 12000.0, "COUNT"),
        ("Hong Kong (US$m)", [], "ROE", "13.1%", 13.1, "PCT"),
        ("Hong Kong", [], "NBV margin (bps)", "25", 0.25, "PCT"),
    ],
)
def test_each_marker_sets_the_currency_and_scale_it_states(
    glossary: Glossary,
    title: str,
    context: list[str],
    label: str,
    cell: str,
    value: float,
    unit: str,
) -> None:
    table = grid([["", "FY2024"], [label, cell]], title=title, context=context)
    _, got, got_unit = one_fact(map_table(table, glossary))
    assert (got, got_unit) == (value, unit)


@pytest.mark.parametrize(
    ("title", "label", "cell", "reason"),
    [
        # A money scale never applies to a head count.
        ("Hong Kong (US$ thousands)", "Agent count", "12,000", ReviewReason.UNIT_MISMATCH),
        # The cell's currency contradicts its table's.
        ("Hong Kong (US$ m)", "Revenue", "HK$ 950", ReviewReason.UNIT_MISMATCH),
        # 0.131 for a percent metric could be 13.1% or 0.131%.
        ("Hong Kong", "ROE", "0.131", ReviewReason.UNIT_MISMATCH),
        ("Hong Kong", "Revenue", "12.5%", ReviewReason.UNIT_MISMATCH),
        ("Hong Kong (HK$ lakh)", "Revenue", "950", ReviewReason.UNIT_UNKNOWN),
        ("Hong Kong (US$ m / RMB m)", "Revenue", "950", ReviewReason.UNIT_UNKNOWN),
        ("Hong Kong", "Revenue (HK$ lakh)", "950", ReviewReason.UNIT_UNKNOWN),
        ("Hong Kong", "Revenue", "950 lakh", ReviewReason.UNREADABLE),
        # A currency with no scale anywhere: whole dollars in a statement, or a deck that left
        # out its "m". The profile's millions would be a guess.
        ("Hong Kong", "Revenue", "HK$ 950", ReviewReason.UNIT_UNKNOWN),
        ("Hong Kong (US$)", "Revenue", "950,000,000", ReviewReason.UNIT_UNKNOWN),
        ("Hong Kong", "Revenue (HK$)", "950,000,000", ReviewReason.UNIT_UNKNOWN),
    ],
)
def test_a_marker_that_does_not_fit_sends_the_value_to_review(
    glossary: Glossary, title: str, label: str, cell: str, reason: ReviewReason
) -> None:
    mapped = map_table(grid([["", "FY2024"], [label, cell]], title=title), glossary)
    assert mapped.facts == []
    assert reasons(mapped) == {reason}


def test_an_unknown_token_in_a_context_line_names_the_token(glossary: Glossary) -> None:
    table = grid([["", "FY2024"], ["Revenue", "950"]], context=["单位：千桶"])
    mapped = map_table(table, glossary)
    assert mapped.facts == []
    [item] = mapped.review
    assert item.reason == ReviewReason.UNIT_UNKNOWN and "千桶" in item.detail


@pytest.mark.parametrize(
    ("label", "value", "fmt", "text", "expected"),
    [
        ("Revenue", 512000000.0, "#,##0,,", "512", (512.0, "USD_M")),
        ("Revenue", 512340000.0, "#,##0,,", "512", (512.34, "USD_M")),
        ("Revenue", 950.0, '"HK$"#,##0', "HK$950", (950.0, "HKD_M")),
        ("Revenue", 950.0, "[$HK$-zh-HK]#,##0", "HK$950", (950.0, "HKD_M")),
        ("ROE", 0.131, "0.0%", "13.1%", (13.1, "PCT")),
    ],
)
def test_spreadsheet_formats_scale_and_name_the_currency(
    glossary: Glossary,
    label: str,
    value: float,
    fmt: str,
    text: str,
    expected: tuple[float, str],
) -> None:
    cell = Cell(1, 1, text, value=value, number_format=fmt, ref="B2")
    table = grid([["", "FY2024"], [label, cell]], title="Hong Kong (in millions)")
    _, got, unit = one_fact(map_table(table, glossary))
    assert (got, unit) == expected


def test_a_fraction_in_general_format_for_a_percent_metric_is_reviewed(
    glossary: Glossary,
) -> None:
    cell = Cell(1, 1, "0.131", value=0.131, number_format="General", ref="B2")
    mapped = map_table(grid([["", "FY2024"], ["ROE", cell]]), glossary)
    assert mapped.facts == [] and reasons(mapped) == {ReviewReason.UNIT_MISMATCH}


@pytest.mark.parametrize(
    "text", ["1,300¹", "1,300⁽¹⁾", "1,300 (1)", "1,300*", "1,300†", "1,300[a]"]
)
def test_a_footnoted_cell_keeps_its_number(glossary: Glossary, text: str) -> None:
    mapped = map_table(grid([["", "FY2024"], ["Revenue", text]]), glossary)
    [item] = mapped.review
    assert item.reason == ReviewReason.LOW_CONFIDENCE
    assert item.fact is not None and item.fact.value == 1300.0


# --------------------------------------------------------------------------- property
# Each known token with the currency and power of ten it states (currency None: the profile's
# USD; power None: no scale, so alone it sends the value to review).
KNOWN = [
    ("US$m", "USD", 6),
    ("US$ bn", "USD", 9),
    ("HK$'000", "HKD", 3),
    ("HK$ million", "HKD", 6),
    ("RMB billion", "CNY", 9),
    ("EUR m", "EUR", 6),
    ("£m", "GBP", 6),
    ("in thousands", None, 3),
    ("millions", None, 6),
    ("百万美元", "USD", 6),
    ("人民币千元", "CNY", 3),
    ("港币百万元", "HKD", 6),
    ("亿元", "CNY", 8),
    ("十亿美元", "USD", 9),
]
UNKNOWN = ["HK$ lakh", "INR crore", "Rs crore", "lakhs", "ZZ$ m", "US$ m / RMB m", "千桶"]
CELL_PREFIX = [("HK$", "HKD", None), ("US$", "USD", None), ("€", "EUR", None), ("RMB", "CNY", None)]
CELL_SUFFIX = [("bn", None, 9), ("m", None, 6), ("k", None, 3), ("'000", None, 3), ("亿", None, 8)]
CELL_SUFFIX += [("万元", "CNY", 4), ("百万", None, 6)]
CELL_UNKNOWN = ["{} lakh", "ZZ${}", "{} crore"]
HEADER_POSITIONS = ("title", "context", "column", "row")


def _table(position: str, token: str, written: str) -> Table:
    title, context, column, row, cell = "Hong Kong", [], "FY2024", "Revenue", written
    if position == "title":
        title = f"Hong Kong key figures ({token})"
    elif position == "context":
        context = [f"({token})"]
    elif position == "column":
        column = f"FY2024 ({token})"
    else:
        row = f"Revenue ({token})"
    return grid([["", column], [row, cell]], title=title, context=context)


def _expect(mapped: TableMapping, written: int, currency: str | None, power: int | None) -> None:
    """Exactly the written number at the token's power of ten, in millions of its currency."""
    millions = float(Decimal(written).scaleb((6 if power is None else power) - 6))
    assert one_fact(mapped) == ("REVENUE", millions, f"{currency or 'USD'}_M")


values = st.integers(1, 999_999)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(HEADER_POSITIONS), st.sampled_from(KNOWN), values)
def test_a_known_header_token_states_the_scale_and_currency(
    position: str, known: tuple[str, str | None, int], written: int
) -> None:
    token, currency, power = known
    mapped = map_table(_table(position, token, f"{written:,}"), acme_glossary())
    _expect(mapped, written, currency, power)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(HEADER_POSITIONS), st.sampled_from(UNKNOWN), values)
def test_an_unknown_header_token_sends_the_value_to_review(
    position: str, token: str, written: int
) -> None:
    mapped = map_table(_table(position, token, f"{written:,}"), acme_glossary())
    assert mapped.facts == []
    assert mapped.review != []


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CELL_PREFIX + CELL_SUFFIX), st.booleans(), values)
def test_a_known_cell_token_states_the_scale_and_currency(
    known: tuple[str, str | None, int | None], spaced: bool, written: int
) -> None:
    token, currency, power = known
    gap = " " if spaced else ""
    prefix = (token, currency, power) in CELL_PREFIX
    text = f"{token}{gap}{written:,}" if prefix else f"{written:,}{gap}{token}"
    mapped = map_table(grid([["", "FY2024"], ["Revenue", text]]), acme_glossary())
    if power is None:  # a currency with no scale anywhere: units or millions is not stated
        assert mapped.facts == [] and reasons(mapped) == {ReviewReason.UNIT_UNKNOWN}
        return
    _expect(mapped, written, currency, power)


# A text cell naming a year ("2024 crore") reads as a header line, not a value: a layout rule.
not_years = values.filter(lambda n: not 1900 <= n <= 2100)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CELL_UNKNOWN), not_years)
def test_an_unknown_cell_token_sends_the_value_to_review(form: str, written: int) -> None:
    mapped = map_table(grid([["", "FY2024"], ["Revenue", form.format(written)]]), acme_glossary())
    assert mapped.facts == []
    assert reasons(mapped) == {ReviewReason.UNREADABLE}


@pytest.mark.parametrize(
    ("unit", "expected"),
    [("USD_E0", (950.0, "USD_M")), ("USD_M", None)],
)
def test_a_currency_without_a_scale_is_read_in_units_only_when_the_profile_says_units(
    unit: str, expected: tuple[float, str] | None
) -> None:
    # "(US$)" over 950,000,000: a profile that keeps this metric in whole dollars has said which;
    # one that keeps it in millions has not, and the value goes to review.
    from ragspine.ingestion.labels import LabelReading
    from ragspine.ingestion.numbers import ParsedNumber
    from ragspine.ingestion.table_units import UnitProblem, resolve_unit
    from ragspine.ingestion.unit_words import Marker
    from ragspine.units import UnitKind
    from tests.profiles import acme

    revenue = acme().metric("REVENUE")
    assert revenue is not None
    metric = revenue.model_copy(update={"unit": unit})
    table = Marker(UnitKind.AMOUNT, "USD", None, "(US$)")
    got = resolve_unit(
        ParsedNumber(950_000_000.0),
        LabelReading("Revenue"),
        LabelReading("FY2024"),
        table,
        metric,
        "USD",
    )
    if expected is None:
        assert isinstance(got, UnitProblem) and got.reason is ReviewReason.UNIT_UNKNOWN
    else:
        assert not isinstance(got, UnitProblem)
        resolved, value = got
        assert (value, resolved.code) == expected
