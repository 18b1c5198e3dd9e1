"""A percentage change from a loss or from nothing means nothing: -45 to 38 is a change of
+83, never "+184.44%". The absolute change is still given; a growth ranking leaves such a unit
out and says why (it has figures: "no figure found" would be false).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.agent.types import AnswerKind
from ragspine.storage.fact_store import Fact
from tests.agent.test_analyst import ask, numbers
from tests.facts import fact

# Net profit: Macau from a loss of 45 to a profit of 38; the others grow from a profit.
PROFITS = {"ACME_HK": (745.0, 801.0), "ACME_CN": (210.0, 232.0), "ACME_MO": (-45.0, 38.0)}


def profits() -> list[Fact]:
    return [
        fact("NET_PROFIT", entity, "FY", year, value, source_locator=f"{entity}-{year}")
        for entity, pair in PROFITS.items()
        for year, value in zip(("2023", "2024"), pair, strict=True)
    ]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much did Macau net profit change from 2023 to 2024?", "not meaningful"),
        ("澳门2023年到2024年净利润变化了多少", "无意义"),
        ("澳门FY2024净利润同比增长", "无意义"),
    ],
)
def test_a_change_from_a_loss_gives_the_amount_and_no_percentage(
    tmp_path: Path, question: str, said: str
) -> None:
    result = ask(tmp_path, question, profits())
    assert result.answer_kind is AnswerKind.FOUND
    change = next(line for line in result.answer.splitlines() if said in line)
    assert "83" in numbers(change)
    assert "%" not in result.answer


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which region's net profit grew fastest in FY2024?", "not meaningful"),
        ("2024年哪个地区净利润增长最快", "无意义"),
    ],
)
def test_a_growth_ranking_leaves_out_a_unit_growing_from_a_loss_and_says_why(
    tmp_path: Path, question: str, said: str
) -> None:
    result = ask(tmp_path, question, profits())
    lines = result.answer.splitlines()
    ranked = [line for line in lines if line[:2] in ("1.", "2.", "3.")]
    assert len(ranked) == 2 and not any("Macau" in r or "澳门" in r for r in ranked)
    assert any(said in line and ("Macau" in line or "澳门" in line) for line in lines)
    assert not any("no figure" in line or "未找到" in line for line in lines)
    assert "184.44" not in result.answer
