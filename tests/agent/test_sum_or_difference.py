"""Two named units of one figure: a sum when the words say so, a difference when they compare,
a question when they say both; a sum of some units is never checked against the whole.

Each test writes its own facts (``test_analyst.regions``: HK 2,850, CN 1,320, MO 410, Group
4,580), so the sums are known before the agent runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.types import AnalysisOp, AnswerKind
from tests.agent.test_analysis_cues import parse
from tests.agent.test_analyst import CN, HK, MO, ask, numbers, regions

SUMS = [
    ("香港与澳门2024年收入合计", HK + MO),
    ("香港和澳门FY2024收入合计是多少", HK + MO),
    ("中国内地和澳门2024年收入加起来是多少", CN + MO),
    ("香港、澳门2024年收入之和", HK + MO),
    ("Hong Kong plus Mainland China revenue in FY2024, total", HK + CN),
    ("Hong Kong and Macau revenue in FY2024 added together", HK + MO),
    ("Total revenue of Hong Kong and Macau in FY2024", HK + MO),
    ("Combined revenue of Hong Kong and Macau in FY2024", HK + MO),
    ("Hong Kong and Mainland China revenue together in FY2024", HK + CN),
]


@pytest.mark.parametrize(("question", "total"), SUMS)
def test_a_sum_of_two_named_units_is_their_sum_never_their_difference(
    tmp_path: Path, question: str, total: float
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(result.answer.splitlines()[0]) == [f"{total:.0f}"]
    assert not any(line.startswith(("差值", "Difference")) for line in result.answer.splitlines())


@pytest.mark.parametrize(("question", "_total"), SUMS)
def test_a_sum_of_some_units_is_not_checked_against_the_whole(question: str, _total: float) -> None:
    # "the units do not add up to the Group figure" belongs to a total of every unit only
    intent = parse(question)
    assert intent.analysis is not None and intent.analysis.op is AnalysisOp.TOTAL
    assert intent.analysis.whole is None
    assert "ACME_GROUP" not in intent.entities


def test_a_sum_of_every_unit_is_still_checked_against_the_whole(tmp_path: Path) -> None:
    result = ask(tmp_path, "香港、中国内地和澳门2024年收入合计", regions(ACME_GROUP=4570.0))
    lines = result.answer.splitlines()
    assert numbers(lines[0]) == [f"{HK + CN + MO:.0f}"]
    assert "集团" in lines[1] and "4570" in numbers(lines[1])


@pytest.mark.parametrize(
    "question",
    [
        "香港与澳门2024年收入对比",
        "Compare Hong Kong and Macau revenue in FY2024",
        "Hong Kong vs Macau revenue FY2024",
    ],
)
def test_a_comparison_of_two_units_is_their_difference(tmp_path: Path, question: str) -> None:
    result = ask(tmp_path, question, regions())
    last = result.answer.splitlines()[-1]
    assert last.startswith(("差值", "Difference"))
    assert f"{HK - MO:.0f}" in numbers(last)
    assert f"{HK + MO:.0f}" not in numbers(result.answer)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("香港与澳门2024年收入对比，合计多少", "合计"),
        ("Hong Kong vs Macau revenue in FY2024, combined", "sum"),
    ],
)
def test_a_question_asking_for_both_is_asked_back_with_no_figure(
    tmp_path: Path, question: str, said: str
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert said in result.answer
    assert not {f"{HK + MO:.0f}", f"{HK - MO:.0f}"} & set(numbers(result.answer))
