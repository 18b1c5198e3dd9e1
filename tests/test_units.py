"""The typed unit: codes say the whole unit and round-trip; old codes keep their meaning."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.units import COUNT, PERCENT, Unit, UnitKind, amount, currency_codes, resolve


@pytest.mark.parametrize(
    ("code", "unit"),
    [
        ("USD_M", Unit(UnitKind.AMOUNT, "USD", 6)),
        ("CNY_M", Unit(UnitKind.AMOUNT, "CNY", 6)),
        ("PCT", PERCENT),
        ("COUNT", COUNT),
        ("HKD_K", Unit(UnitKind.AMOUNT, "HKD", 3)),
        ("EUR_B", Unit(UnitKind.AMOUNT, "EUR", 9)),
        ("JPY_E0", Unit(UnitKind.AMOUNT, "JPY", 0)),
        ("GBP_PS", Unit(UnitKind.PER_SHARE, "GBP")),
    ],
)
def test_codes_name_kind_currency_and_scale(code: str, unit: Unit) -> None:
    assert Unit.parse(code) == unit
    assert unit.code == code


@given(
    st.sampled_from(sorted(currency_codes())),
    st.integers(-12, 15),
    st.sampled_from([UnitKind.AMOUNT, UnitKind.PER_SHARE]),
)
def test_every_money_unit_round_trips(currency: str, scale: int, kind: UnitKind) -> None:
    unit = amount(currency, scale) if kind == UnitKind.AMOUNT else Unit(kind, currency)
    assert Unit.parse(unit.code) == unit


@pytest.mark.parametrize("code", ["USD", "ZZZ_M", "usd_m", "PCT_M", "HKD_X", ""])
def test_a_code_that_is_no_unit_is_rejected(code: str) -> None:
    with pytest.raises(ValueError):
        Unit.parse(code)


def test_a_unit_needs_a_currency_exactly_when_it_is_money() -> None:
    with pytest.raises(ValueError):
        Unit(UnitKind.AMOUNT)
    with pytest.raises(ValueError):
        Unit(UnitKind.COUNT, "USD")


@pytest.mark.parametrize(
    ("spelling", "reporting", "expected"),
    [
        ("HK$", None, "HKD"),
        ("港元", None, "HKD"),
        ("人民币", "USD", "CNY"),
        ("$", None, "USD"),
        ("$", "HKD", "HKD"),
        ("$", "EUR", "USD"),
        ("¥", "JPY", "JPY"),
        ("¥", None, "CNY"),
        ("元", "HKD", "HKD"),
        ("元", "GBP", "CNY"),
    ],
)
def test_a_spelling_resolves_to_one_currency(
    spelling: str, reporting: str | None, expected: str
) -> None:
    assert resolve(spelling, reporting) == expected
