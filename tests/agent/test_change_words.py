"""Words that ask for a change of one figure, and the metric names a prefix negates.

"How many agents did Hong Kong add in 2025?" asks for the change, not the year-end level;
"add up" / "added together" still ask for a sum. "Non-operating profit" is not the operating
profit: it is a metric the profile lacks, asked about, never answered with the other figure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.types import AnswerKind
from tests.agent.helpers import CountingStore, ask_offline


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


ask = ask_offline


@pytest.mark.parametrize(
    "question",
    [
        "How much revenue did Hong Kong add in FY2025?",
        "How much revenue was added in Hong Kong in FY2025?",
        "Hong Kong net additions to revenue in FY2025",
    ],
)
def test_add_asks_for_the_change(store: CountingStore, question: str) -> None:
    result = ask(question, store)
    assert result.answer.splitlines()[-1] == "Change (FY2025 vs FY2024): +US$ 269.5 m (+12.19%)"


@pytest.mark.parametrize(
    "question",
    [
        "Hong Kong and Mainland China revenue in FY2024 added together",
        "how much do Hong Kong and Mainland China revenue in FY2024 add up to",
    ],
)
def test_add_up_and_added_together_still_ask_for_a_sum(store: CountingStore, question: str) -> None:
    result = ask(question, store)
    assert "3,530.5" in result.answer  # 2,210.5 + 1,320
    assert "Change (" not in result.answer


@pytest.mark.parametrize(
    "question", ["Hong Kong non-operating profit in FY2024", "香港FY2024非营运利润"]
)
def test_a_negated_metric_is_asked_about_never_answered_with_the_metric(
    store: CountingStore, question: str
) -> None:
    result = ask(question, store)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "610" not in result.answer
