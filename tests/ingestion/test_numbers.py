"""Number and unit reading as report tables write them."""

from __future__ import annotations

import pytest

from ragspine.ingestion.numbers import (
    ParsedNumber,
    find_unit,
    parse_number,
    unit_from_number_format,
)


@pytest.mark.parametrize(
    ("text", "value", "percent", "approximate"),
    [
        ("1,320", 1320.0, False, False),
        ("(45)", -45.0, False, False),
        ("-12.5", -12.5, False, False),
        ("55.2%", 55.2, True, False),
        ("１３２０", 1320.0, False, False),
        ("１,３２０.５", 1320.5, False, False),
        ("US$1,200", 1200.0, False, False),
        ("约1,300", 1300.0, False, True),
        ("~1300", 1300.0, False, True),
        ("≈1300", 1300.0, False, True),
        ("1,300*", 1300.0, False, True),
        ("c.1300", 1300.0, False, True),
    ],
)
def test_numbers_are_read_like_a_reader_would(
    text: str, value: float, percent: bool, approximate: bool
) -> None:
    parsed = parse_number(text)
    assert parsed is not None
    assert (parsed.value, parsed.percent, parsed.approximate) == (value, percent, approximate)


@pytest.mark.parametrize("text", ["", "—", "-", "n/a", "N/A", "abc", "1,32", "12.3.4", "收入"])
def test_non_numbers_are_none(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("text", "unit", "factor"),
    [
        ("收入（百万美元）", "USD_M", 1.0),
        ("Revenue (US$m)", "USD_M", 1.0),
        ("USD million", "USD_M", 1.0),
        ("US$bn", "USD_M", 1000.0),
        ("十亿美元", "USD_M", 1000.0),
        ("US$'000", "USD_M", 0.001),
        ("单位：人民币亿元", "CNY_M", 100.0),
        ("bps", "PCT", 0.01),
        ("NBV margin (%)", "PCT", 1.0),
    ],
)
def test_units_normalise_to_millions_or_percent(text: str, unit: str, factor: float) -> None:
    found = find_unit(text)
    assert found is not None
    assert (found[0].unit, found[0].factor) == (unit, factor)


def test_no_unit_and_spreadsheet_percent_formats() -> None:
    assert find_unit("Revenue") is None
    assert find_unit("Mumbai") is None  # no stray "m" read as millions
    spec = unit_from_number_format("0.0%")
    assert spec is not None and (spec.unit, spec.factor) == ("PCT", 100.0)
    assert unit_from_number_format("#,##0") is None


def test_more_digits_than_a_float_holds_is_no_number() -> None:
    # A text cell of 400 "9"s would be infinity, which no fact can hold: it is unreadable.
    assert parse_number("9" * 400) is None
    assert parse_number("9" * 300) == ParsedNumber(float("9" * 300))
