"""The checks of a profile's derived metrics (``[[derived]]``): each divides two metrics the
documents state, of one kind and one currency, and is not its own operand.

A derived metric is answered by dividing two found facts (``agent.analyst_derived``), so a
rule that names an unknown code, itself, another derived metric, a ratio, or operands the
profile already expects in different currencies could never give a sound figure: the loader
refuses it, naming the key and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class _Metric(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def kind(self) -> str: ...
    def expected_currency(self, reporting_currency: str | None) -> str | None: ...


class _Derived(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def numerator(self) -> str: ...
    @property
    def denominator(self) -> str: ...


_SUMMABLE = ("amount", "count")


def derived_issue(
    metrics: Sequence[_Metric], derived: Sequence[_Derived], reporting_currency: str | None
) -> tuple[str, str] | None:
    """The first problem as (dotted key, reason), or None when every rule can be computed."""
    by_code = {m.code: m for m in metrics}
    rules = {d.code for d in derived}
    listing = ", ".join(by_code)
    for index, rule in enumerate(derived):
        if rule.code in by_code:
            return (
                f"derived.{index}.code",
                f"{rule.code!r} is already a metric code: a derived metric needs a code of its "
                "own (a figure a document states for it is read under that code)",
            )
        if rule.numerator == rule.denominator:
            return (
                f"derived.{index}.denominator",
                f"the numerator and the denominator are both {rule.numerator!r}: the ratio "
                "would always be 100%",
            )
        for operand in ("numerator", "denominator"):
            code = getattr(rule, operand)
            key = f"derived.{index}.{operand}"
            if code == rule.code:
                return (key, f"{rule.code} cannot be its own {operand}")
            if code in rules:
                return (
                    key,
                    f"{code!r} is a derived metric: the operands of a derived metric are "
                    "metrics the documents state",
                )
            if code not in by_code:
                return (key, f"{code!r} is not one of the metric codes ({listing})")
            kind = str(by_code[code].kind)
            if kind not in _SUMMABLE:
                return (
                    key,
                    f"{code} is a {kind} metric: a derived ratio divides two amounts or two counts",
                )
        top, bottom = by_code[rule.numerator], by_code[rule.denominator]
        if str(top.kind) != str(bottom.kind):
            return (
                f"derived.{index}.denominator",
                f"{top.code} is {_a(top.kind)} metric and {bottom.code} {_a(bottom.kind)} "
                "metric: a derived ratio divides two amounts or two counts",
            )
        currencies = (
            top.expected_currency(reporting_currency),
            bottom.expected_currency(reporting_currency),
        )
        if str(top.kind) == "amount" and None not in currencies and len(set(currencies)) > 1:
            return (
                f"derived.{index}.denominator",
                f"{top.code} is expected in {currencies[0]} and {bottom.code} in "
                f"{currencies[1]}: a ratio across currencies is never computed",
            )
    return None


def _a(kind: object) -> str:
    """ "an amount", "a ratio": a metric kind with its article."""
    word = str(kind).replace("_", " ")
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"
