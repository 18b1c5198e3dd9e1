"""Values, units and names as a person reads them (``profile.display``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.ingestion.numbers import parse_number
from ragspine.profile.display import (
    Names,
    format_percent_change,
    format_value,
    percent_points,
    plain_number,
    unit_label,
)
from ragspine.units import UnitKind
from tests.profiles import acme, initech


@pytest.mark.parametrize(
    ("value", "unit", "language", "shown"),
    [
        (3480, "HKD_M", "en", "HK$ 3,480 m"),
        (2850, "USD_M", "en", "US$ 2,850 m"),
        (1250, "CNY_M", "en", "RMB 1,250 m"),
        (28, "EUR_M", "en", "€ 28 m"),
        (12.5, "EUR_B", "en", "€ 12.5 bn"),
        (950, "AUD_K", "en", "A$ 950 k"),
        (3, "CHF_M", "en", "CHF 3 m"),
        (3480, "HKD_M", "zh", "3,480 百万港元"),
        (2850, "USD_M", "zh", "2,850 百万美元"),
        (1250, "CNY_M", "zh", "1,250 百万人民币"),
        (8800, "CNY_E4", "zh", "8,800 万人民币"),
        (63.8, "PCT", "en", "63.80%"),
        (63.8, "PCT", "zh", "63.80%"),
        (5, "PCT", "en", "5.00%"),
        (860, "COUNT", "en", "860"),
        (12000, "COUNT", "zh", "12,000"),
        (1.23, "USD_PS", "en", "US$ 1.23"),
        (1.23, "HKD_PS", "zh", "1.23 港元"),
        (-22, "USD_M", "en", "-US$ 22 m"),
        (-22, "USD_M", "zh", "-22 百万美元"),
        (7, "USD_E2", "en", "US$ 7 ×10^2"),
    ],
)
def test_a_value_is_shown_with_its_unit_as_a_person_reads_it(
    value: float, unit: str, language: str, shown: str
) -> None:
    assert format_value(value, unit, language) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (3480.0, "3,480"),
        (1234567.125, "1,234,567.125"),
        (2210.5, "2,210.5"),
        (0.000001, "0.000001"),
        (-0.0000001, "0"),
        (1e12, "1,000,000,000,000"),
    ],
)
def test_a_number_keeps_every_stored_digit_and_groups_thousands(value: float, shown: str) -> None:
    assert plain_number(value) == shown


def test_a_percent_keeps_digits_beyond_two_decimals_and_pads_to_two() -> None:
    assert format_value(63.825, "PCT", "en") == "63.825%"
    assert format_value(63, "PCT", "en") == "63.00%"


def test_signed_values_put_the_sign_before_the_currency() -> None:
    assert format_value(255, "USD_M", "en", signed=True) == "+US$ 255 m"
    assert format_value(255, "USD_M", "zh", signed=True) == "+255 百万美元"
    assert format_value(0, "COUNT", "en", signed=True) == "+0"
    assert format_value(-3.4, "PCT", "en", signed=True) == "-3.40%"


def test_a_change_in_percent_is_computed_at_full_precision_and_printed_with_two_decimals() -> None:
    assert format_percent_change(3105, 2850) == "+8.95%"  # 8.947…
    assert format_percent_change(150, 200) == "-25.00%"
    assert format_percent_change(1, 3) == "-66.67%"
    assert format_percent_change(-50, 100) == "-150.00%"  # a fall into a loss is meaningful
    # from a loss or from nothing no percentage means anything ("-45 to 38" is no "+184%")
    assert format_percent_change(38, -45) is None
    assert format_percent_change(-50, -100) is None
    assert format_percent_change(40, 0) is None
    assert percent_points(55.4 - 52.0) == "+3.40"


@pytest.mark.parametrize(
    ("unit", "language", "label"),
    [
        ("USD_M", "en", "US$ m"),
        ("USD_M", "zh", "百万美元"),
        ("CNY_M", "en", "RMB m"),
        ("JPY_B", "zh", "十亿日元"),
        ("PCT", "en", "%"),
        ("COUNT", "zh", ""),
        ("EUR_PS", "en", "€ per share"),
        ("EUR_PS", "zh", "欧元/股"),
    ],
)
def test_a_unit_alone_reads_like_a_column_heading(unit: str, language: str, label: str) -> None:
    assert unit_label(unit, language) == label


def test_names_come_from_the_profile_in_the_questions_language() -> None:
    en, zh = Names(acme(), "en"), Names(acme(), "zh")
    assert (en.entity("ACME_HK"), zh.entity("ACME_HK")) == ("Hong Kong", "香港")
    assert (en.metric("NBV_MARGIN"), zh.metric("REVENUE")) == ("NBV margin", "收入")
    assert (en.channel("AGENCY"), zh.channel("AGENCY")) == ("Agency", "代理人渠道")
    assert Names(initech(), "zh").metric("BOOKINGS") == "订单额"


def test_a_code_the_profile_lacks_or_an_empty_name_falls_back() -> None:
    names = Names(initech(), "zh")
    assert names.entity("NOT_IN_PROFILE") == "NOT_IN_PROFILE"
    # Initech's channels have no Chinese name: the English one, else the code.
    channel = initech().channels[0]
    assert names.channel(channel.code) == (channel.name_zh or channel.name_en or channel.code)


_UNITS = st.sampled_from(["USD_M", "HKD_M", "CNY_M", "EUR_M", "GBP_B", "JPY_K", "PCT", "COUNT"])
_VALUES = st.decimals(min_value=0, max_value=10**9, places=3, allow_nan=False).map(float)


@given(value=_VALUES, unit=_UNITS, language=st.sampled_from(["en", "zh"]))
def test_ingestions_cell_reader_reads_back_every_shown_value(
    value: float, unit: str, language: str
) -> None:
    """What the page and answers show is what a report cell would write: the reader that reads
    report cells gets the same value and unit back (a check independent of the writer)."""
    parsed = parse_number(format_value(value, unit, language))
    assert parsed is not None
    assert parsed.value == pytest.approx(value, abs=1e-9)
    marker = parsed.marker
    if unit == "COUNT":
        assert marker is None
    elif unit == "PCT":
        assert marker is not None and marker.kind == UnitKind.PERCENT
    else:
        assert marker is not None and marker.kind == UnitKind.AMOUNT
        assert f"{marker.currency}_{'KMB'[[3, 6, 9].index(marker.scale or 0)]}" == unit
