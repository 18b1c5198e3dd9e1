"""Exchange rates a profile declares (``[[exchange_rates]]``), their checks, and which one a
figure of a given period is converted at.

A rate says that one unit of ``from`` is ``rate`` units of ``to`` as of the date ``as_of``,
according to ``source`` (free text an answer shows beside the converted figure). Only the
declared direction converts: a USD→HKD rate never converts HKD into USD, since the inverse of
a rounded rate is not the rate anyone published. The rate a figure takes is the latest one of
its pair dated on or before the end of the figure's period; nothing else is ever assumed or
looked up.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragspine.units import is_currency


class ExchangeRateDef(BaseModel):
    """One declared rate: 1 ``from`` = ``rate`` ``to``, as of ``as_of``, per ``source``."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_currency: str = Field(alias="from")
    to_currency: str = Field(alias="to")
    rate: Decimal
    as_of: date
    source: str

    @field_validator("from_currency", "to_currency")
    @classmethod
    def _check_code(cls, value: str) -> str:
        if not is_currency(value):
            raise ValueError(
                f"{value!r} is not an ISO 4217 currency code (e.g. USD, HKD, CNY, EUR)"
            )
        return value

    @field_validator("rate", mode="before")
    @classmethod
    def _exact_rate(cls, value: Any) -> Decimal:
        # A TOML float 7.8 arrives as the binary float nearest 7.8; its shortest repr is the
        # number as written, so the rate is exactly what the file says.
        if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
            raise ValueError('a rate is a number such as 7.8 or "7.8"')
        try:
            rate = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value).strip())
        except InvalidOperation:
            raise ValueError(f"{value!r} is not a number") from None
        if not rate.is_finite() or rate <= 0:
            raise ValueError(f"a rate must be a positive number, not {value!r}")
        return rate

    @field_validator("source")
    @classmethod
    def _named_source(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name where the rate comes from (answers show it)")
        return value.strip()

    @property
    def pair(self) -> str:
        return f"{self.from_currency}→{self.to_currency}"


def exchange_rate_issue(rates: Sequence[ExchangeRateDef]) -> tuple[str, str] | None:
    """The first problem as (dotted key, reason), or None when every rate can be used."""
    seen: dict[tuple[str, str, date], int] = {}
    for index, rate in enumerate(rates):
        if rate.from_currency == rate.to_currency:
            return (
                f"exchange_rates.{index}.to",
                f"the rate converts {rate.from_currency} into itself",
            )
        key = (rate.from_currency, rate.to_currency, rate.as_of)
        earlier = seen.setdefault(key, index)
        if earlier != index:
            return (
                f"exchange_rates.{index}.as_of",
                f"a {rate.pair} rate as of {rate.as_of.isoformat()} is already declared "
                f"(exchange_rates.{earlier}): one date has one rate",
            )
    return None


class PostDated(NamedTuple):
    """Rates are declared for the pair, but every one is dated after the period ended."""

    earliest: ExchangeRateDef


def rate_on(
    rates: Sequence[ExchangeRateDef], source: str, target: str, period_end: date
) -> ExchangeRateDef | PostDated | None:
    """The latest ``source``→``target`` rate dated on or before ``period_end``; ``PostDated``
    when the pair's rates all come later; ``None`` when the pair has none."""
    pair = [r for r in rates if r.from_currency == source and r.to_currency == target]
    if not pair:
        return None
    usable = [r for r in pair if r.as_of <= period_end]
    if not usable:
        return PostDated(min(pair, key=lambda r: r.as_of))
    return max(usable, key=lambda r: r.as_of)
