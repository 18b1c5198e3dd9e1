"""Declared exchange rates (``[[exchange_rates]]``): read exactly, refused when unusable
(naming the entry), and chosen by date: the latest of the pair on or before the period's end,
in the declared direction only. Expected rates and dates are written here by hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ragspine.errors import ProfileError
from ragspine.profile.exchange_rates import ExchangeRateDef, PostDated, rate_on
from ragspine.profile.loader import load_profile
from ragspine.profile.periods import FiscalCalendar, Period
from tests.profiles import INITECH_PATH, acme


def _with_rates(tmp_path: Path, *tables: str) -> Path:
    """Initech (fiscal year ending in March) with the given ``[[exchange_rates]]`` bodies."""
    text = INITECH_PATH.read_text(encoding="utf-8")
    text += "".join(f"\n[[exchange_rates]]\n{body.strip()}\n" for body in tables)
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _rate(
    rate: str = "7.8", as_of: str = "2024-12-31", source: str = "USD", target: str = "HKD"
) -> str:
    return (
        f'from = "{source}"\nto = "{target}"\nrate = {rate}\nas_of = {as_of}\n'
        'source = "Treasury sheet"'
    )


def _refusal(tmp_path: Path, *tables: str) -> str:
    with pytest.raises(ProfileError) as caught:
        load_profile(_with_rates(tmp_path, *tables))
    return str(caught.value)


def test_a_rate_is_read_exactly_from_a_float_or_a_string(tmp_path: Path) -> None:
    profile = load_profile(
        _with_rates(
            tmp_path,
            _rate("7.8"),
            _rate('"7.7825"', as_of="2025-03-31"),
            _rate("8", as_of="2025-06-30"),
        )
    )
    rates = [r.rate for r in profile.exchange_rates]
    assert rates == [Decimal("7.8"), Decimal("7.7825"), Decimal("8")]
    first = profile.exchange_rates[0]
    assert (first.from_currency, first.to_currency) == ("USD", "HKD")
    assert first.as_of == date(2024, 12, 31)
    assert first.source == "Treasury sheet"


def test_the_example_profile_declares_its_fictional_usd_hkd_rates() -> None:
    rates = acme().exchange_rates
    assert [(r.from_currency, r.to_currency, r.rate, r.as_of) for r in rates] == [
        ("USD", "HKD", Decimal("7.80"), date(2024, 12, 31)),
        ("USD", "HKD", Decimal("7.78"), date(2025, 12, 31)),
    ]
    assert all("fictional" in r.source for r in rates)


@pytest.mark.parametrize(
    ("table", "key", "reason"),
    [
        (_rate(source="XYZ"), "exchange_rates.0.from", "'XYZ' is not an ISO 4217 currency code"),
        (_rate(target="HKX"), "exchange_rates.0.to", "'HKX' is not an ISO 4217 currency code"),
        (_rate(target="USD"), "exchange_rates.0.to", "converts USD into itself"),
        (_rate("0"), "exchange_rates.0.rate", "a rate must be a positive number"),
        (_rate("-7.8"), "exchange_rates.0.rate", "a rate must be a positive number"),
        (_rate('"seven"'), "exchange_rates.0.rate", "'seven' is not a number"),
        (_rate('"nan"'), "exchange_rates.0.rate", "a rate must be a positive number"),
        (_rate("true"), "exchange_rates.0.rate", "a rate is a number"),
        (_rate(as_of='"end of year"'), "exchange_rates.0.as_of", "date"),
    ],
)
def test_an_unusable_rate_is_refused_naming_the_entry(
    tmp_path: Path, table: str, key: str, reason: str
) -> None:
    message = _refusal(tmp_path, table)
    assert f"key '{key}'" in message
    assert reason in message


def test_a_rate_without_a_source_is_refused(tmp_path: Path) -> None:
    missing = _rate().replace('source = "Treasury sheet"', "")
    assert "key 'exchange_rates.0.source': Field required" in _refusal(tmp_path, missing)
    blank = _rate().replace('"Treasury sheet"', '"  "')
    assert "key 'exchange_rates.0.source'" in _refusal(tmp_path, blank)


def test_two_rates_of_one_pair_and_date_are_refused(tmp_path: Path) -> None:
    message = _refusal(tmp_path, _rate("7.8"), _rate("7.8", as_of="2025-12-31"), _rate("7.79"))
    assert "key 'exchange_rates.2.as_of'" in message
    assert "USD→HKD rate as of 2024-12-31 is already declared (exchange_rates.0)" in message


def test_the_inverse_pair_on_the_same_date_is_its_own_rate(tmp_path: Path) -> None:
    profile = load_profile(
        _with_rates(tmp_path, _rate("7.8"), _rate("0.128", source="HKD", target="USD"))
    )
    assert len(profile.exchange_rates) == 2


def _def(rate: str, as_of: date, source: str = "USD", target: str = "HKD") -> ExchangeRateDef:
    return ExchangeRateDef.model_validate(
        {"from": source, "to": target, "rate": rate, "as_of": as_of, "source": "sheet"}
    )


RATES = (
    _def("7.80", date(2024, 12, 31)),
    _def("7.75", date(2024, 6, 30)),
    _def("7.78", date(2025, 12, 31)),
    _def("0.92", date(2024, 1, 1), target="EUR"),
)


@pytest.mark.parametrize(
    ("period_end", "chosen"),
    [
        (date(2024, 6, 30), "7.75"),  # on the day of a rate: that rate
        (date(2024, 9, 30), "7.75"),  # between two: the earlier one
        (date(2024, 12, 31), "7.80"),
        (date(2025, 6, 30), "7.80"),
        (date(2026, 3, 31), "7.78"),  # after all: the latest
    ],
)
def test_the_latest_rate_on_or_before_the_period_end_is_chosen(
    period_end: date, chosen: str
) -> None:
    rate = rate_on(RATES, "USD", "HKD", period_end)
    assert isinstance(rate, ExchangeRateDef)
    assert rate.rate == Decimal(chosen)


def test_rates_all_after_the_period_end_are_post_dated() -> None:
    found = rate_on(RATES, "USD", "HKD", date(2024, 6, 29))
    assert found == PostDated(RATES[1])  # the earliest of the pair, 30 June 2024


def test_only_the_declared_direction_and_pair_convert() -> None:
    assert rate_on(RATES, "HKD", "USD", date(2026, 1, 1)) is None
    assert rate_on(RATES, "USD", "JPY", date(2026, 1, 1)) is None


@pytest.mark.parametrize(
    ("year_end_month", "period", "end"),
    [
        (12, Period(2024, "FY"), date(2024, 12, 31)),
        (12, Period(2024, "H1"), date(2024, 6, 30)),
        (12, Period(2024, "Q3"), date(2024, 9, 30)),
        (3, Period(2025, "FY"), date(2025, 3, 31)),
        (3, Period(2025, "H1"), date(2024, 9, 30)),
        (3, Period(2025, "Q3"), date(2024, 12, 31)),
        (3, Period(2025, "Q4"), date(2025, 3, 31)),
        (6, Period(2024, "Q1"), date(2023, 9, 30)),
        (2, Period(2024, "FY"), date(2024, 2, 29)),  # a leap year's February
    ],
)
def test_a_period_ends_on_the_last_day_of_its_last_fiscal_month(
    year_end_month: int, period: Period, end: date
) -> None:
    assert FiscalCalendar(year_end_month).period_end(period) == end
