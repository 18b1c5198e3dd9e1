from __future__ import annotations

import pytest

from ragspine.ingestion.readers.number_format import render_general, render_number

ACCOUNTING = '_("$"* #,##0_);_("$"* (#,##0);_("$"* "-"??_);_(@_)'


@pytest.mark.parametrize(
    ("value", "number_format", "shown"),
    [
        (1320, "General", "1320"),
        (0.1 + 0.2, "General", "0.3"),
        (1320, "", "1320"),
        (0.552, "0.0%", "55.2%"),
        (0.5525, "0.0%", "55.3%"),  # Excel rounds half away from zero on the decimal value
        (0.6, "0%", "60%"),
        (-0.1, "0.0%", "-10.0%"),
        (1320, "#,##0", "1,320"),
        (1320.456, "#,##0.00", "1,320.46"),
        (1234567, "#,##0,", "1,235"),  # a trailing comma shows thousands
        (1320, "0", "1320"),
        (1.5, "0.0#", "1.5"),
        (1.25, "0.0#", "1.25"),
        (0.55, "#.00", ".55"),
        (1320, "$#,##0", "$1,320"),
        (1320.5, '"US$"#,##0.0', "US$1,320.5"),
        (1320, "[$US$-409]#,##0", "US$1,320"),
        (81, "[$€-x-euro2] #,##0", "€ 81"),  # a named currency style shows its symbol
        (81, "[$-x-sysnumber]#,##0", "81"),
        (1320, "¥#,##0.00", "¥1,320.00"),
        (1320, '#,##0 "US$m"', "1,320 US$m"),
        (12.5, '0.0"x"', "12.5x"),
        (-1320, "#,##0", "-1,320"),
        (-1320, "#,##0;(#,##0)", "(1,320)"),
        (-1320, "#,##0;[Red](#,##0)", "(1,320)"),
        (0, '#,##0;(#,##0);"-"', "-"),
        (1320, ACCOUNTING, "$1,320"),
        (-5, ACCOUNTING, "$(5)"),
        (1320, "0.00E+00", "1.32E+03"),
        (1320, "[>=1000]#,##0;0", "1320"),  # conditions fall back to General
        (7, "@", "7"),
    ],
)
def test_render_number(value: float, number_format: str, shown: str) -> None:
    assert render_number(value, number_format) == shown


def test_general_keeps_large_and_small_numbers_readable() -> None:
    assert render_general(1e20) == "1e+20"
    assert render_general(-3.0) == "-3"
    assert render_general(1 / 3) == "0.333333333333333"


def test_a_number_too_long_for_its_format_falls_back_to_general() -> None:
    assert render_number(1e308, "#,##0.00") == "1e+308"
