"""A computed case's expected figures, recomputed here from its expected facts.

A ranking, total, exclusion, average, cumulative total, CAGR, change over a span or rescaling
case (tag ``analyst`` and the kind's tag) writes its computed figures by hand in ``derived``.
Its ``values`` are the facts the figure is computed from, each held to the corpus's ground
truth by ``test_golden.py``; this test recomputes every derived figure from those values by the
kind's rule, never from the engine, so a slip in a hand-written sum, mean, rate or order fails
here, in every split. A held-out case's id never reaches a message: only a count does.

The rules, per kind tag (the values listed in the case are the inputs):

- ``total``, ``exclude``, ``cumulative``: an unsigned amount is the sum of the values (an
  exclusion lists the units kept);
- ``average``: an unsigned amount is the mean of the values;
- ``cagr``: a percentage is the compound annual rate from the earliest period's value to the
  latest one's over the years between them;
- ``span``: a signed amount is the last value listed less the first (the order the question
  asks: "from FY2025 to FY2022" lists FY2025 first), a percentage that difference over the first
  — never over a first value of zero or less (a change from a loss has no percentage);
- ``sequential``: the two values listed are a figure and the one of the period just before it
  (2025Q2 before 2025Q3, 2024Q4 before 2025Q1, 2024H2 before 2025H1), worked out here from the
  labels; a signed amount is the first less the second, a percentage that over the second;
- ``rank``: ``N. name`` names the unit at position N when the values (or, for a ``growth``
  ranking, each unit's change over its two periods) are ordered one way, the same way for every
  line of the case; a percentage is the growth of the unit ranked first;
- ``scale``: a number written as the answer shows it ("10.65", "34,000") is one of the values
  in billions, 亿 or thousands (values in millions);
- ``convert`` (with any kind above): a converted figure as the answer shows it ("HK$ 38,798.86
  m", "387.99 亿港元") is a value, or the sum or mean of the values, times the example
  profile's rate for its period — the latest of the pair dated on or before the period's last
  day, chosen here from the profile file — at the scale written, within its last digit; the
  case's other figures are held to the kind's rule.
"""

from __future__ import annotations

import calendar
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ragspine.eval.cases import Expectation, ExpectedValue, GoldenCase, Split, load_golden
from ragspine.profile.loader import example_profile_path

KINDS = (
    "total",
    "exclude",
    "cumulative",
    "average",
    "cagr",
    "span",
    "sequential",
    "rank",
    "scale",
    "convert",
)
_AMOUNT = re.compile(r"^([+-]?)(\d[\d,]*(?:\.\d+)?) ([A-Z][A-Z0-9_]*)$")
_PERCENT = re.compile(r"^\(?([+-]\d+(?:\.(\d+))?)%\)?$")
_LEVEL = re.compile(r"^(\d+(?:\.(\d+))?)%$")
_PLACE = re.compile(r"^(\d+)\. (.+?)(?:[:：]\s*([+-]\d+(?:\.\d+)?)%)?$")
_NUMBER = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
# From millions: billions, 亿 (10^8) and thousands.
_SCALES = (1e-3, 1e-2, 1e3)


def _names() -> dict[str, str]:
    """Every name (English and Chinese) of every entity in the example profile -> its code."""
    profile = tomllib.loads(Path(example_profile_path()).read_text(encoding="utf-8"))
    return {
        name: entity["code"]
        for entity in profile["entities"]
        for name in (entity["name_en"], entity["name_zh"])
    }


NAMES = _names()


def _rates() -> list[tuple[str, str, Decimal, date]]:
    """The example profile's declared rates, read from its file: (from, to, rate, as of)."""
    profile = tomllib.loads(Path(example_profile_path()).read_text(encoding="utf-8"))
    assert profile["fiscal"]["year_end_month"] == 12  # the period ends below assume it
    return [
        (r["from"], r["to"], Decimal(str(r["rate"])), r["as_of"])
        for r in profile.get("exchange_rates", [])
    ]


RATES = _rates()
# A converted figure as answers write it, and what its scale word is worth against millions.
_CONVERTED = re.compile(r"^(?:HK\$ )?(\d[\d,]*(?:\.\d+)?) ?(m|bn|百万港元|亿港元|十亿港元)$")
_CONVERTED_SCALES = {"m": 1.0, "百万港元": 1.0, "bn": 1e-3, "十亿港元": 1e-3, "亿港元": 1e-2}


def _period_end(label: str) -> date:
    """The last day of a period of a December year end: FY2024, 2025H1, 2025Q3."""
    year = int(re.sub(r"\D", "", label)[:4])
    part = label[4:] if not label.startswith("FY") else "FY"
    month = {"FY": 12, "H1": 6, "H2": 12, "Q1": 3, "Q2": 6, "Q3": 9, "Q4": 12}[part]
    return date(year, month, calendar.monthrange(year, month)[1])


def _usd_hkd(value: ExpectedValue) -> float | None:
    """The USD→HKD rate a figure of this period takes, or None when none is dated in time."""
    end = _period_end(value.period_label)
    usable = [(d, r) for f, t, r, d in RATES if (f, t) == ("USD", "HKD") and d <= end]
    return float(max(usable)[1]) if usable else None


def _converts(derived: str, values: tuple[ExpectedValue, ...]) -> bool:
    match = _CONVERTED.match(derived)
    if match is None:
        return False
    rates = {_usd_hkd(v) for v in values}
    if None in rates or len(rates) != 1:
        return False
    (rate,) = rates
    assert rate is not None
    numbers = [v.value for v in values]
    bases = [*numbers, math.fsum(numbers), math.fsum(numbers) / len(numbers)]
    stated = match.group(1).replace(",", "")
    scale = _CONVERTED_SCALES[match.group(2)]
    return any(_close(float(stated), b * rate * scale, _decimals(stated)) for b in bases)


def _year(value: ExpectedValue) -> int:
    return int(re.sub(r"\D", "", value.period_label)[:4])


def _close(stated: float, true: float, decimals: int) -> bool:
    return abs(stated - true) <= 0.5 * 10**-decimals + 1e-9


def _decimals(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


def _check_amount(derived: str, true: float, *, signed: bool) -> bool:
    match = _AMOUNT.match(derived)
    if match is None or (signed and not match.group(1)):
        return False
    number = match.group(2).replace(",", "")
    stated = float(number) * (-1 if match.group(1) == "-" else 1)
    return _close(stated, true, _decimals(number))


def _check_percent(derived: str, true: float) -> bool:
    match = _PERCENT.match(derived)
    return match is not None and _close(float(match.group(1)), true, len(match.group(2) or ""))


def _check_level(derived: str, true: float) -> bool:
    """An unsigned percent ("11.77%"): a level such as a mean of percents, not a change."""
    match = _LEVEL.match(derived)
    return match is not None and _close(float(match.group(1)), true, len(match.group(2) or ""))


def _growth(values: tuple[ExpectedValue, ...]) -> dict[str, float]:
    """Each entity's change, in percent, from its earlier to its later listed period."""
    by_entity: dict[str, list[ExpectedValue]] = {}
    for v in values:
        by_entity.setdefault(v.entity, []).append(v)
    out = {}
    for entity, pair in by_entity.items():
        first, last = sorted(pair, key=_year)[0], sorted(pair, key=_year)[-1]
        out[entity] = (last.value / first.value - 1) * 100
    return out


def _ranking(case: GoldenCase) -> list[str]:
    """What is wrong with a ranking case's derived lines (empty when each is recomputed)."""
    values = case.expect.values
    score = _growth(values) if "growth" in case.tags else {v.entity: v.value for v in values}
    orders = [sorted(score, key=score.__getitem__, reverse=r) for r in (True, False)]
    wrong: list[str] = []
    fits = [True, True]
    for derived in case.expect.derived:
        place = _PLACE.match(derived)
        if place is None:
            leader = [order[0] for order in orders]
            if not any(_check_percent(derived, score[unit]) for unit in leader):
                wrong.append(derived)
            continue
        position, name, percent = int(place.group(1)), place.group(2), place.group(3)
        code = NAMES.get(name)
        for i, order in enumerate(orders):
            fits[i] = fits[i] and code is not None and order[position - 1 : position] == [code]
        if percent is not None and (code is None or not _check_percent(f"{percent}%", score[code])):
            wrong.append(derived)
    if not any(fits):
        wrong.append("the places name no single order of the values")
    return wrong


def _rule(case: GoldenCase) -> Callable[[str], bool] | None:
    numbers = [v.value for v in case.expect.values]
    tags = set(case.tags)
    if "rank" in tags or not numbers:
        return None
    if tags & {"total", "exclude", "cumulative"}:
        return lambda d: _check_amount(d, math.fsum(numbers), signed=False)
    if "average" in tags:  # the mean of percents is a percent ("11.77%")
        mean = math.fsum(numbers) / len(numbers)
        return lambda d: _check_amount(d, mean, signed=False) or _check_level(d, mean)
    ordered = sorted(case.expect.values, key=_year)
    if "cagr" in tags:
        first, last = ordered[0], ordered[-1]
        rate = ((last.value / first.value) ** (1 / (_year(last) - _year(first))) - 1) * 100
        return lambda d: _check_percent(d, rate)
    if "span" in tags:
        start, end = case.expect.values[0].value, case.expect.values[-1].value
        return lambda d: (
            _check_amount(d, end - start, signed=True)
            or (start > 0 and _check_percent(d, (end - start) / start * 100))
        )
    if "sequential" in tags:
        return _sequential(case.expect.values)
    if "scale" in tags:
        return lambda d: (
            bool(_NUMBER.match(d))
            and any(
                _close(float(d.replace(",", "")), n * s, _decimals(d))
                for n in numbers
                for s in _SCALES
            )
        )
    return None


def _just_before(label: str) -> str:
    """The label of the quarter or half just before ``label`` ("2025Q3" -> "2025Q2")."""
    year, kind, number = int(label[:4]), label[4], int(label[5])
    if number > 1:
        return f"{year}{kind}{number - 1}"
    return f"{year - 1}{kind}{2 if kind == 'H' else 4}"


def _sequential(values: tuple[ExpectedValue, ...]) -> Callable[[str], bool]:
    later, before = values[0], values[-1]
    if len(values) != 2 or _just_before(later.period_label) != before.period_label:
        return lambda d: False  # a base that is not the period just before
    change = later.value - before.value
    return lambda d: (
        _check_amount(d, change, signed=True)
        or (before.value > 0 and _check_percent(d, change / before.value * 100))
    )


def not_recomputed(cases: list[GoldenCase]) -> list[str]:
    """``case id: derived`` for each derived figure its case's rule does not give back."""
    wrong: list[str] = []
    for case in cases:
        if "analyst" not in case.tags or not case.expect.derived:
            continue
        if "convert" in case.tags:
            converted = [d for d in case.expect.derived if _CONVERTED.match(d)]
            wrong += [f"{case.id}: {d}" for d in converted if not _converts(d, case.expect.values)]
            others = tuple(d for d in case.expect.derived if d not in converted)
            if not others:
                continue
            case = replace(case, expect=replace(case.expect, derived=others))
        if "derived" in case.tags:  # ratios of a profile's [[derived]] rule: recomputed from
            continue  # the ground truth by the rule itself in test_derived_golden.py
        if "rank" in case.tags:
            wrong += [f"{case.id}: {w}" for w in _ranking(case)]
            continue
        rule = _rule(case)
        if rule is None:
            wrong.append(f"{case.id}: no rule recomputes {list(case.expect.derived)}")
            continue
        wrong += [f"{case.id}: {d}" for d in case.expect.derived if not rule(d)]
    return wrong


@pytest.mark.parametrize("split", list(Split), ids=lambda s: s.value)
def test_every_computed_figure_is_recomputed_from_the_expected_facts(split: Split) -> None:
    wrong = not_recomputed(load_golden(split=split))
    shown = len(wrong) if split.held_out else wrong
    assert shown in ([], 0)


def _case(
    tags: tuple[str, ...], derived: tuple[str, ...], *facts: tuple[str, str, float]
) -> GoldenCase:
    values = tuple(
        ExpectedValue("REVENUE", entity, period, "TOTAL", value, "USD_M", "d", "l")
        for entity, period, value in facts
    )
    return GoldenCase(
        "c", "q", tags=("analyst", *tags), expect=Expectation(values=values, derived=derived)
    )


REGIONS = (
    ("ACME_HK", "FY2024", 2850.0),
    ("ACME_CN", "FY2024", 1320.0),
    ("ACME_MO", "FY2024", 410.0),
)


@pytest.mark.parametrize(
    ("case", "wrong"),
    [
        (_case(("total",), ("4580 USD_M",), *REGIONS), 0),
        (_case(("total",), ("4570 USD_M",), *REGIONS), 1),
        (_case(("exclude",), ("1730 USD_M",), *REGIONS[1:]), 0),
        (
            _case(
                ("average",),
                ("1215 USD_M",),
                *[
                    ("ACME_CN", f"FY{y}", v)
                    for y, v in ((2022, 1120.0), (2023, 1205.0), (2024, 1320.0))
                ],
            ),
            0,
        ),
        (
            _case(
                ("cagr",), ("+7.4%",), ("ACME_HK", "FY2023", 2690.0), ("ACME_HK", "FY2025", 3105.0)
            ),
            0,
        ),
        (
            _case(
                ("cagr",), ("+15.4%",), ("ACME_HK", "FY2023", 2690.0), ("ACME_HK", "FY2025", 3105.0)
            ),
            1,
        ),
        (
            _case(
                ("span",),
                ("-727 USD_M",),
                ("ACME_GROUP", "FY2025", 4987.0),
                ("ACME_GROUP", "FY2023", 4260.0),
            ),
            0,
        ),
        (
            _case(
                ("span",),
                ("+727 USD_M",),
                ("ACME_GROUP", "FY2025", 4987.0),
                ("ACME_GROUP", "FY2023", 4260.0),
            ),
            1,
        ),
        (
            _case(
                ("span",),
                ("+83 USD_M",),
                ("ACME_MO", "FY2023", -45.0),
                ("ACME_MO", "FY2024", 38.0),
            ),
            0,
        ),
        (
            _case(
                ("span",),
                ("+184.44%",),  # over a loss: no percentage means anything
                ("ACME_MO", "FY2023", -45.0),
                ("ACME_MO", "FY2024", 38.0),
            ),
            1,
        ),
        (
            _case(
                ("sequential",),
                ("+20 USD_M", "+5.25%"),
                ("ACME_HK", "2025Q3", 401.0),
                ("ACME_HK", "2025Q2", 381.0),
            ),
            0,
        ),
        (
            _case(
                ("sequential",),
                ("+49 USD_M",),  # over the same quarter a year earlier: not the one before
                ("ACME_HK", "2025Q3", 401.0),
                ("ACME_HK", "2024Q3", 352.0),
            ),
            1,
        ),
        (
            _case(
                ("sequential",),
                ("+13.92%",),
                ("ACME_HK", "2025Q3", 401.0),
                ("ACME_HK", "2025Q2", 381.0),
            ),
            1,
        ),
        (
            _case(
                ("sequential",),
                ("+50 USD_M",),  # the first quarter's base is the last of the year before
                ("ACME_HK", "2025Q1", 750.0),
                ("ACME_HK", "2024Q4", 700.0),
            ),
            0,
        ),
        (_case(("rank",), ("1. Hong Kong", "2. 中国内地"), *REGIONS), 0),
        (_case(("rank",), ("1. Macau",), *REGIONS), 0),
        (_case(("rank",), ("1. Hong Kong", "2. Macau"), *REGIONS), 1),
        (_case(("scale",), ("2.85",), REGIONS[0]), 0),
        (_case(("scale",), ("2.58",), REGIONS[0]), 1),
        # FY2024 ends 31 December 2024: the 7.80 rate of that day. 2,850 × 7.80 = 22,230.
        (_case(("convert",), ("HK$ 22,230 m",), REGIONS[0]), 0),
        (_case(("convert",), ("222.3 亿港元",), REGIONS[0]), 0),
        (_case(("convert",), ("HK$ 22,173 m",), REGIONS[0]), 1),  # at 7.78, FY2025's rate
        (_case(("total", "convert"), ("4580 USD_M", "HK$ 35,724 m"), *REGIONS), 0),
        (_case(("total", "convert"), ("4580 USD_M", "HK$ 35,632.4 m"), *REGIONS), 1),
        (_case(("convert",), ("HK$ 20,982 m",), ("ACME_HK", "FY2023", 2690.0)), 1),  # post-dated
    ],
)
def test_the_rules_catch_a_slip(case: GoldenCase, wrong: int) -> None:
    assert len(not_recomputed([case])) == wrong
