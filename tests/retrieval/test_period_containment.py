"""Period containment: spans of fiscal periods, and period filters in every channel."""

from __future__ import annotations

from datetime import date

import pytest

from ragspine.agent.intent import parse_intent
from ragspine.agent.narrative import filters_for
from ragspine.profile.loader import load_profile
from ragspine.profile.period_spans import (
    PeriodSpan,
    labels_within,
    month_label,
    month_span,
    span_of,
    span_of_label,
)
from ragspine.profile.periods import FiscalCalendar, Period
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.retriever import matches
from ragspine.storage.chunks import Chunk

REF = date(2026, 11, 26)
MARCH = FiscalCalendar(year_end_month=3)


def test_a_quarter_and_a_half_lie_inside_their_fiscal_year() -> None:
    year, q4, h1 = (span_of(Period(2024, kind)) for kind in ("FY", "Q4", "H1"))
    assert year.contains(q4) and year.contains(h1)
    assert not q4.contains(year) and q4.overlaps(year)
    assert not h1.overlaps(q4)
    assert not span_of(Period(2023, "FY")).overlaps(q4)


def test_a_calendar_month_belongs_to_the_fiscal_year_it_falls_in() -> None:
    november = month_span(2024, 11, FiscalCalendar())
    assert november == PeriodSpan(2024, 11, 11)
    assert span_of(Period(2024, "Q4")).contains(november)
    assert not span_of(Period(2024, "H1")).overlaps(november)


def test_a_march_year_end_moves_months_into_the_next_fiscal_year() -> None:
    # FY2025 runs April 2024 – March 2025: November 2024 is its eighth month, in H2 and Q3.
    november = month_span(2024, 11, MARCH)
    assert november == PeriodSpan(2025, 8, 8) and month_label(november) == "2025M08"
    assert span_of(Period(2025, "Q3")).contains(november)
    assert not span_of(Period(2024, "FY")).overlaps(november)
    assert month_span(2025, 3, MARCH) == PeriodSpan(2025, 12, 12)
    assert month_span(2025, 4, MARCH) == PeriodSpan(2026, 1, 1)


@pytest.mark.parametrize(
    ("label", "span"),
    [
        ("FY2024", PeriodSpan(2024, 1, 12)),
        ("2024H2", PeriodSpan(2024, 7, 12)),
        ("2024Q1", PeriodSpan(2024, 1, 3)),
        ("2025M08", PeriodSpan(2025, 8, 8)),
        ("2024H3", None),
        ("2024M13", None),
        ("FY24", None),
        ("ACME_HK", None),
    ],
)
def test_stored_labels_read_back_as_spans(label: str, span: PeriodSpan | None) -> None:
    assert span_of_label(label) == span


def test_labels_within_a_period_are_its_parts_and_its_months() -> None:
    assert labels_within(span_of(Period(2024, "H2"))) == (
        "2024H2",
        "2024Q3",
        "2024Q4",
        *(f"2024M{m:02d}" for m in range(7, 13)),
    )
    assert labels_within(span_of(Period(2024, "Q4"))) == ("2024Q4", "2024M10", "2024M11", "2024M12")
    assert len(labels_within(span_of(Period(2024, "FY")))) == 1 + 2 + 4 + 12


def chunk(chunk_id: str, *periods: str) -> Chunk:
    text = "香港 收入 增长"
    return Chunk(chunk_id, chunk_id, "page=1,para=1", "", text, (), periods, "zh", "PUBLIC")


CHUNKS = [
    chunk("fy2024", "FY2024"),
    chunk("q4", "2024Q4"),
    chunk("h1", "2024H1"),
    chunk("nov", "2024M11"),
    chunk("fy2023", "FY2023"),
    chunk("q4-2023", "2023Q4"),
    chunk("untagged"),
]


@pytest.fixture(scope="module")
def index() -> LexicalIndex:
    built = LexicalIndex.open(None)
    built.add(CHUNKS)
    built.commit()
    return built


@pytest.mark.parametrize(
    ("periods", "expected"),
    [
        (("FY2024",), {"fy2024", "q4", "h1", "nov", "untagged"}),
        (("2024Q4",), {"q4", "nov", "untagged"}),
        (("2024H1",), {"h1", "untagged"}),
        (("2024M11",), {"nov", "untagged"}),
        (("FY2024", "FY2023"), {c.chunk_id for c in CHUNKS}),
        (("2024Q1",), {"untagged"}),
    ],
)
def test_lexical_and_shared_filters_admit_the_periods_inside(
    index: LexicalIndex, periods: tuple[str, ...], expected: set[str]
) -> None:
    filters = RetrievalFilters(periods=periods)
    lexical = {cid for cid, _ in index.search("收入", top_k=50, filters=filters)}
    shared = {c.chunk_id for c in CHUNKS if matches(c, filters, Sensitivity.PUBLIC)}
    assert lexical == shared == expected


def periods_asked(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    filters = filters_for(parse_intent(question, REF, profile=load_profile()))
    return filters.periods, filters.comparison_periods


def test_a_bare_year_filters_as_the_fiscal_year_and_admits_its_parts() -> None:
    assert periods_asked("香港2024年的监管动态") == (("FY2024",), ())
    filters = RetrievalFilters(periods=("FY2024",))
    assert matches(chunk("q4", "2024Q4"), filters, Sensitivity.PUBLIC)


def test_a_growth_or_why_question_also_admits_the_comparison_year() -> None:
    assert periods_asked("Why did Hong Kong revenue grow in 2024?") == (("FY2024",), ("FY2023",))
    assert periods_asked("为什么香港2024年收入增长") == (("FY2024",), ("FY2023",))
    assert periods_asked("香港2024年第四季度业务增长的原因") == (("2024Q4",), ("2023Q4",))
    assert periods_asked("What is the regulatory impact on ACME HK in FY2024?") == (("FY2024",), ())


def test_comparison_periods_are_admitted_like_asked_ones(index: LexicalIndex) -> None:
    filters = RetrievalFilters(periods=("2024Q4",), comparison_periods=("2023Q4",))
    lexical = {cid for cid, _ in index.search("收入", top_k=50, filters=filters)}
    assert lexical == {"q4", "nov", "q4-2023", "untagged"}
