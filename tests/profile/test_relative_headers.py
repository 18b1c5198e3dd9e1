"""Relative-year words in table headers ("本年", "上年同期", "Prior year", "PY")."""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.profile.periods import Period, find_periods, find_relative_years


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("本年", 0),
        ("本年度", 0),
        ("今年", 0),
        ("本期", 0),
        ("上年", -1),
        ("上年同期", -1),
        ("去年", -1),
        ("上期", -1),
        ("前年", -2),
        ("Current year", 0),
        ("current  YEAR", 0),
        ("This year", 0),
        ("Prior year", -1),
        ("Previous period", -1),
        ("Last year", -1),
        ("CY", 0),
        ("PY", -1),
    ],
)
def test_each_word_names_its_distance_from_the_documents_year(text: str, offset: int) -> None:
    [match] = find_relative_years(text)
    assert (match.offset, match.start, match.end) == (offset, 0, len(text))


def test_words_are_found_left_to_right_and_ascii_ones_whole() -> None:
    found = find_relative_years("本年 vs 上年同期 (CY/PY)")
    assert [(m.offset, m.start) for m in found] == [(0, 0), (-1, 6), (0, 12), (-1, 15)]
    assert find_relative_years("COPY CYCLE PYTHON FY2025 2024年") == []


def test_shifting_a_period_keeps_its_type() -> None:
    assert Period(2025, "H1").years_later(-1) == Period(2024, "H1")
    assert Period(2025, "FY").previous_year() == Period(2024, "FY")


def test_header_only_words_do_not_reach_the_question_parser() -> None:
    """Questions keep their own vocabulary: "上期" or "PY" there is not resolved to a year."""
    day = date(2026, 6, 1)
    assert find_periods("上期收入", day) == []
    assert find_periods("PY revenue", day) == []
    assert [m.period for m in find_periods("去年收入", day)] == [Period(2025, "FY")]
