"""Number and unit reading as report tables write them."""

from __future__ import annotations

import pytest

from ragspine.ingestion.numbers import ParsedNumber, parse_number
from ragspine.ingestion.readers.number_format import displayed_exponent
from ragspine.ingestion.unit_markers import read_units
from ragspine.units import UnitKind


@pytest.mark.parametrize(
    ("text", "value", "percent", "approximate"),
    [
        ("1,320", 1320.0, False, False),
        ("(45)", -45.0, False, False),
        # the parentheses of a negative close before its unit in many reports
        ("(3.0)%", -3.0, True, False),
        ("(3.0) %", -3.0, True, False),
        ("（3.0）%", -3.0, True, False),
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


@pytest.mark.parametrize(
    "text", ["", "—", "-", "n/a", "N/A", "abc", "1,32", "12.3.4", "收入", "(3.0)x", "(a)%", "(1) 2"]
)
def test_non_numbers_are_none(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("text", "currency", "scale"),
    [
        ("收入（百万美元）", "USD", 6),
        ("Revenue (US$m)", "USD", 6),
        ("USD million", "USD", 6),
        ("US$bn", "USD", 9),
        ("十亿美元", "USD", 9),
        ("US$'000", "USD", 3),
        ("单位：人民币亿元", "CNY", 8),
        ("单位：百万元", "CNY", 6),
        ("单位：万元", "CNY", 4),
        ("单位：人民币千元", "CNY", 3),
        ("(RMB billion)", "CNY", 9),
        ("(in thousands)", None, 3),
        ("(HK$ million)", "HKD", 6),
        ("(HK$'000)", "HKD", 3),
        ("EUR m", "EUR", 6),
        ("€m", "EUR", 6),
        ("£ millions", "GBP", 6),
        ("Revenue (HK$ m)", "HKD", 6),
        ("收入（港币百万元）", "HKD", 6),
        ("港元千元", "HKD", 3),
        ("日元亿元", "JPY", 8),
        ("(RMB 100 million)", "CNY", 8),
        ("millions of US dollars", "USD", 6),
        ("2019 $'000", "USD", 3),
        ("Amounts in HK$ million unless otherwise stated", "HKD", 6),
        ("(in millions, except per share data)", None, 6),
    ],
)
def test_money_markers_read_currency_and_scale(text: str, currency: str | None, scale: int) -> None:
    marker = read_units(text, None, prose=True).marker
    assert marker is not None
    assert (marker.currency, marker.scale) == (currency, scale)


@pytest.mark.parametrize(
    ("text", "reporting", "currency"),
    [
        ("单位：百万元", "HKD", "HKD"),  # 元 alone is the reporting currency when it is a 元
        ("单位：百万元", "GBP", "CNY"),  # ... and the yuan otherwise
        ("($ m)", "HKD", "HKD"),
        ("($ m)", "EUR", "USD"),
        ("($ m)", None, "USD"),
        ("(¥ m)", "JPY", "JPY"),
        ("(¥ m)", None, "CNY"),
    ],
)
def test_symbols_several_currencies_write_follow_the_profile(
    text: str, reporting: str | None, currency: str
) -> None:
    marker = read_units(text, reporting, prose=True).marker
    assert marker is not None and marker.currency == currency


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("(HK$ lakh)", "HK$ lakh"),
        ("单位：千桶", "千桶"),
        ("Unit: tonnes", "tonnes"),
        ("(US$ m / RMB m)", "US$ m / RMB m"),
        ("(ZZ$ m)", "ZZ$"),
    ],
)
def test_unit_like_tokens_nobody_can_read_are_named(text: str, token: str) -> None:
    assert token in read_units(text, None, prose=True).unknown


@pytest.mark.parametrize(
    "text",
    [
        "Revenue",
        "Mumbai",
        "ALL regions",
        "Revenue grew 12% to US$3.5bn",
        "We serve millions of customers",
        "(restated)",
        "(HK$950m in 2023)",
    ],
)
def test_prose_without_a_declared_unit_declares_none(text: str) -> None:
    reading = read_units(text, None, prose=True)
    assert (reading.marker, reading.unknown) == (None, ())


def test_percent_and_basis_points() -> None:
    pct = read_units("NBV margin (%)", None, prose=False).marker
    bps = read_units("Change (bps)", None, prose=False).marker
    assert pct is not None and (pct.kind, pct.scale) == (UnitKind.PERCENT, 0)
    assert bps is not None and (bps.kind, bps.scale) == (UnitKind.PERCENT, -2)


@pytest.mark.parametrize(
    ("text", "value", "currency", "scale"),
    [
        ("HK$ 950", 950.0, "HKD", None),
        ("US$1,200", 1200.0, "USD", None),
        ("3.5bn", 3.5, None, 9),
        ("950m", 950.0, None, 6),
        ("€12mn", 12.0, "EUR", 6),
        ("£40k", 40.0, "GBP", 3),
        ("RMB 8,800", 8800.0, "CNY", None),
        ("8,800万元", 8800.0, "CNY", 4),
        ("3亿", 3.0, None, 8),
        ("¥120", 120.0, "CNY", None),
        ("1,200'000", 1200.0, None, 3),
    ],
)
def test_cells_keep_the_unit_written_around_their_number(
    text: str, value: float, currency: str | None, scale: int | None
) -> None:
    parsed = parse_number(text)
    assert parsed is not None and parsed.marker is not None
    assert (parsed.value, parsed.marker.currency, parsed.marker.scale) == (value, currency, scale)


@pytest.mark.parametrize("text", ["950 lakh", "ZZ$950", "12.5x", "US$ 950 RMB", "950%m"])
def test_text_around_a_number_that_is_no_unit_makes_it_no_number(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize("text", ["HK$'000", "£'000", "RMB'000", "US$’000", "'000"])
def test_a_thousands_marker_in_a_corner_cell_is_no_number(text: str) -> None:
    """A header's "HK$'000" names a scale; read as the number 0 it made its row a data line."""
    assert parse_number(text) is None


@pytest.mark.parametrize(
    "text", ["1300¹", "1300²³", "1300⁽¹⁾", "1300 (1)", "1300*", "1300†", "1300[a]", "1,300 [2]"]
)
def test_footnote_marks_are_never_digits(text: str) -> None:
    assert parse_number(text) == ParsedNumber(1300.0, approximate=True)


def test_a_lone_parenthesised_number_is_negative_not_a_footnote() -> None:
    assert parse_number("(1)") == ParsedNumber(-1.0)


@pytest.mark.parametrize(
    ("number_format", "exponent"),
    [("#,##0,,", -6), ("#,##0,", -3), ("0.0%", 2), ("#,##0", 0), ("General", 0), ("", 0)],
)
def test_number_formats_say_the_power_of_ten_they_show(number_format: str, exponent: int) -> None:
    assert displayed_exponent(512000000.0, number_format) == exponent


def test_more_digits_than_a_float_holds_is_no_number() -> None:
    # A text cell of 400 "9"s would be infinity, which no fact can hold: it is unreadable.
    assert parse_number("9" * 400) is None
    assert parse_number("9" * 300) == ParsedNumber(float("9" * 300))


@pytest.mark.parametrize(
    ("text", "token"),
    [("(US$m) Revenue ", None), ("单位：千桶 ", "千桶"), ("Amounts in HK$ millions; ", None)],
)
def test_a_header_repeated_thousands_of_times_reads_as_once(text: str, token: str | None) -> None:
    # A damaged file can repeat a cell's text thousands of times (the reader fuzzer's
    # xml_odd_text); the reading must not change, and it used to take minutes (quadratic).
    once = read_units(text, "USD", prose=True)
    many = read_units(text * 5000, "USD", prose=True)
    assert (many.marker and many.marker.scale) == (once.marker and once.marker.scale)
    assert (many.marker and many.marker.currency) == (once.marker and once.marker.currency)
    assert len(many.spans) == 5000 * len(once.spans)
    if token is not None:
        assert [t.strip() for t in many.unknown] == [t.strip() for t in once.unknown]
        assert any(token in t for t in once.unknown)
