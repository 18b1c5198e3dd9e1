"""A figure asked per quarter, month, week or day of a longer period, or for a quarter or half no
year has, is never answered with the whole period's figure.

"Net sales per quarter in FY2026" used to answer FY2026's net sales, and "net sales Q5 2026"
the year's too: the breakdown cue was read as no cue, and "Q5" as no period beside "2026" — an
answer to another question. A breakdown finer than the asked period is now said not to be
computed (``agent.period_breakdown``); an impossible quarter or half is asked about.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.intent import parse_intent
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AnalysisOp, AnswerKind, ClarifyReason
from ragspine.profile.fiscal_calendar import Period
from ragspine.profile.periods import find_periods
from ragspine.storage.fact_store import FactStore
from tests.facts import fact
from tests.profiles import lakeside

REF = date(2026, 11, 26)
YEAR_FIGURE = 48213
QUARTER_FIGURE = 11877


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    facts = FactStore(tmp_path / "facts.db")
    facts.init_schema()
    where = {"geography": "GLOBAL", "channel": "ALL"}
    facts.upsert_facts(
        [
            fact("NET_SALES", "LKS_ALL", "FY", "2026", YEAR_FIGURE, **where),
            fact("NET_SALES", "LKS_ALL", "Q3", "2026", QUARTER_FIGURE, **where),
        ]
    )
    return facts


def _ask(question: str, store: FactStore) -> tuple[str, AnswerKind, ClarifyReason | None]:
    result = answer_question(
        question, store, MockProvider(), reference_date=REF, profile=lakeside()
    )
    reason = result.clarification.reason if result.clarification is not None else None
    return result.answer.replace(",", ""), result.answer_kind, reason


BREAKDOWNS = [
    ("Lakeside net sales per quarter in FY2026", "quarter"),
    ("What were Lakeside's quarterly net sales for fiscal 2026?", "quarter"),
    ("Lakeside net sales quarter by quarter, FY2026", "quarter"),
    ("Lakeside monthly net sales FY2026", "month"),
    ("Lakeside net sales by month in the first half of 2026", "month"),
    ("Lakeside average daily net sales FY2026", "day"),
    ("Lakeside weekly net sales in Q3 2026", "week"),
    ("Lakeside FY2026每季度销售净额", "quarter"),
    ("Lakeside 2026年各季度的销售净额是多少", "quarter"),
    ("Lakeside FY2026每月销售净额", "month"),
    ("Lakeside 2026年第三季度每周销售净额", "week"),
]


@pytest.mark.parametrize(("question", "unit"), BREAKDOWNS)
def test_a_breakdown_finer_than_the_period_is_not_answered_with_its_total(
    store: FactStore, question: str, unit: str
) -> None:
    intent = parse_intent(question, REF, profile=lakeside())
    assert intent.analysis is not None
    assert intent.analysis.op is AnalysisOp.UNSUPPORTED
    assert intent.analysis.unsupported == (f"breakdown:{unit}",)
    shown, kind, _ = _ask(question, store)
    assert str(YEAR_FIGURE) not in shown and str(QUARTER_FIGURE) not in shown
    assert kind is AnswerKind.CLARIFY


def test_the_answer_names_the_breakdown_and_a_quarter_to_ask_for(store: FactStore) -> None:
    shown, _, _ = _ask("Lakeside net sales per quarter in FY2026", store)
    assert "each quarter of FY2026" in shown
    assert '"the first quarter of FY2026"' in shown
    shown_zh, _, _ = _ask("Lakeside FY2026每季度销售净额", store)
    assert "每季度" in shown_zh and "「FY2026第一季度」" in shown_zh
    # The suggested periods parse to the quarter they name.
    for asked in (
        "Lakeside net sales the first quarter of FY2026",
        "Lakeside FY2026第一季度销售净额",
    ):
        assert parse_intent(asked, REF, profile=lakeside()).periods == (Period(2026, "Q1"),)


@pytest.mark.parametrize(
    "question",
    [
        "Lakeside quarterly net sales in Q3 2026",  # a quarter's own figure
        "Lakeside net sales for the quarter, Q3 2026",
        "Lakeside 2026年第三季度的季度销售净额",
    ],
)
def test_a_cue_no_finer_than_the_period_asks_for_nothing_more(
    store: FactStore, question: str
) -> None:
    shown, kind, _ = _ask(question, store)
    assert kind is AnswerKind.FOUND
    assert str(QUARTER_FIGURE) in shown


def test_control_the_year_figure_is_there_to_be_shown(store: FactStore) -> None:
    """A pass above is not an empty store: the year's own question gets the year's figure."""
    shown, kind, _ = _ask("Lakeside annual net sales FY2026", store)
    assert kind is AnswerKind.FOUND
    assert str(YEAR_FIGURE) in shown


IMPOSSIBLE = [
    ("Lakeside net sales Q5 2026", "Q5 2026"),
    ("Lakeside net sales 2026Q0", "2026Q0"),
    ("Lakeside net sales in H3 FY2026", "H3 FY2026"),
    ("Lakeside net sales Q7", "Q7"),
    ("Lakeside 2026年第五季度销售净额", "2026年第五季度"),
]


@pytest.mark.parametrize(("question", "written"), IMPOSSIBLE)
def test_a_quarter_or_half_no_year_has_is_asked_about(
    store: FactStore, question: str, written: str
) -> None:
    intent = parse_intent(question, REF, profile=lakeside())
    assert intent.periods == ()
    assert intent.unknown_periods == (written,)
    shown, kind, reason = _ask(question, store)
    assert str(YEAR_FIGURE) not in shown and str(QUARTER_FIGURE) not in shown
    assert kind is AnswerKind.CLARIFY
    assert reason is ClarifyReason.UNKNOWN_PERIOD


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Q12026", "2026Q1"),
        ("2026 Q4", "2026Q4"),
        ("H2 2026", "2026H2"),
        ("Q3 of FY2026", "2026Q3"),
        ("FY2026第二季度", "2026Q2"),
        ("2026财年下半年", "2026H2"),
    ],
)
def test_real_quarters_and_halves_still_read(text: str, label: str) -> None:
    """Including a year written "FY2026" or "2026财年" before a Chinese quarter or half, which
    used to be read as the year and the current year's quarter."""
    unnamed: list[tuple[int, int]] = []
    found = find_periods(text, REF, unnamed=unnamed)
    assert [m.period.label for m in found] == [label]
    assert unnamed == []


def test_a_table_header_with_an_impossible_quarter_names_no_period() -> None:
    """Ingestion reads headers with the same rules: "2026Q5" is no column of 2026."""
    unnamed: list[tuple[int, int]] = []
    assert find_periods("2026Q5", REF, unnamed=unnamed) == []
    assert unnamed == [(0, 6)]
