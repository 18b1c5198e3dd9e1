"""Derived metrics end to end (the example profile's operating margin = operating profit ÷
revenue): a real SQLite store, the mock model, our own arithmetic.

Each test writes its own facts and computes the ratio it expects from them; the eval's
fabrication check judges every answer against those facts and those ratios alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnalysisOp, AnswerKind
from ragspine.eval.fabrication import Fabrication, fabricated_numbers
from ragspine.storage.fact_store import Fact, FactStore
from tests.facts import fact

REF = date(2026, 11, 26)
OP = {"ACME_HK": 968.0, "ACME_CN": 301.0, "ACME_MO": 52.0}
REV = {"ACME_HK": 2850.0, "ACME_CN": 1320.0, "ACME_MO": 410.0}


def operands(year: str = "2024", skip: Sequence[str] = (), **units: str) -> list[Fact]:
    """Each region's operating profit and revenue for ``year`` (``units``: a revenue unit by
    entity; ``skip``: "<metric>/<entity>" left out)."""
    facts = [
        fact("OPERATING_PROFIT", e, "FY", year, v) for e, v in OP.items() if f"OP/{e}" not in skip
    ]
    facts += [
        fact("REVENUE", e, "FY", year, v, unit=units.get(e, "USD_M"))
        for e, v in REV.items()
        if f"REV/{e}" not in skip
    ]
    return facts


def percent(top: float, bottom: float) -> str:
    """The ratio as an answer prints it: in percent, two decimals."""
    return f"{top / bottom * 100:.2f}"


def ratios_of(facts: list[Fact]) -> list[float]:
    """Every operating margin the facts give one key: its profit over its revenue."""
    tops = {(f.entity, f.period): f.value for f in facts if f.metric_code == "OPERATING_PROFIT"}
    return [
        tops[(f.entity, f.period)] / f.value * 100
        for f in facts
        if f.metric_code == "REVENUE" and (f.entity, f.period) in tops and f.value
    ]


def ask(
    tmp_path: Path, question: str, facts: list[Fact], previous: Sequence[str] = ()
) -> AgentResult:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(facts)
    result = answer_question(question, store, MockProvider(), reference_date=REF, previous=previous)
    allowed = [f.value for f in facts]
    assert fabricated_numbers(result, allowed_values=allowed, ratios=ratios_of(facts)) == [], (
        result.answer
    )
    return result


def headline(result: AgentResult) -> str:
    return result.answer.splitlines()[0]


def percents(text: str) -> list[str]:
    return re.findall(r"(\d+\.\d+)%", text)


def test_a_derived_metric_is_computed_from_its_two_cited_operands(tmp_path: Path) -> None:
    facts = operands()
    result = ask(tmp_path, "What was the operating margin of Hong Kong in FY2024?", facts)
    assert result.answer_kind is AnswerKind.FOUND
    assert result.intent is not None and result.intent.analysis is not None
    assert result.intent.analysis.op is AnalysisOp.DERIVED
    assert percents(headline(result)) == [percent(968, 2850)]  # 33.96
    assert "Operating profit ÷ Revenue" in headline(result)
    hk = {f.source_locator for f in facts if f.entity == "ACME_HK"}
    assert {s.locator for s in result.sources} == hk
    assert all(loc in result.answer for loc in hk)


def test_the_chinese_question_names_the_rule_in_chinese(tmp_path: Path) -> None:
    result = ask(tmp_path, "中国内地FY2024经营利润率", operands())
    assert percents(headline(result)) == [percent(301, 1320)]  # 22.80
    assert "营运利润 ÷ 收入" in headline(result)


def test_a_stated_figure_wins_and_agreement_is_checked(tmp_path: Path) -> None:
    stated = fact("OPERATING_MARGIN", "ACME_HK", "FY", "2024", 34)
    result = ask(tmp_path, "Hong Kong operating margin FY2024", [*operands(), stated])
    assert percents(headline(result)) == ["34.00"]
    assert "as a document states it" in headline(result)
    assert f"gives {percent(968, 2850)}%, which agrees" in result.answer
    assert stated.source_locator in {s.locator for s in result.sources}


def test_a_stated_figure_that_differs_is_disclosed_with_both_sources(tmp_path: Path) -> None:
    stated = fact("OPERATING_MARGIN", "ACME_HK", "FY", "2024", 35.5)
    facts = [*operands(), stated]
    result = ask(tmp_path, "香港FY2024营运利润率", facts)
    assert percents(headline(result)) == ["35.50"]
    diff = f"{35.5 - 968 / 2850 * 100:+.2f}"  # +1.54
    assert f"计算为 {percent(968, 2850)}%，文件所列为 35.50%（相差 {diff} 个百分点）" in (
        result.answer
    )
    assert {s.locator for s in result.sources} == {
        f.source_locator for f in facts if f.entity == "ACME_HK"
    }


def test_a_missing_operand_is_named_and_no_ratio_is_given(tmp_path: Path) -> None:
    result = ask(tmp_path, "Macau operating margin FY2024", operands(skip=["REV/ACME_MO"]))
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "no figure was found for Revenue" in headline(result)
    assert percents(result.answer) == []
    assert "US$ 52 m" in result.answer  # the operand found is shown with its source


def test_operands_in_different_currencies_give_no_ratio_and_say_why(tmp_path: Path) -> None:
    facts = operands(ACME_CN="CNY_M")
    result = ask(tmp_path, "Mainland China operating margin FY2024", facts)
    assert "different currencies or scales" in headline(result)
    assert "US$ m" in headline(result) and "RMB m" in headline(result)
    assert percents(result.answer) == []


def test_a_zero_denominator_gives_no_ratio(tmp_path: Path) -> None:
    facts = [*operands(skip=["REV/ACME_HK"]), fact("REVENUE", "ACME_HK", "FY", "2024", 0)]
    result = ask(tmp_path, "Hong Kong operating margin FY2024", facts)
    assert "the Revenue figure is zero" in headline(result)
    assert percents(result.answer) == []


def test_a_ranking_by_a_derived_metric_orders_the_computed_figures(tmp_path: Path) -> None:
    facts = operands(skip=["REV/ACME_MO"])
    result = ask(tmp_path, "Which region had the highest operating margin in FY2024?", facts)
    ranked = [line for line in result.answer.splitlines() if re.match(r"\d\. ", line)]
    assert ranked == [
        f"1. Hong Kong: {percent(968, 2850)}% (Operating profit ÷ Revenue)",
        f"2. Mainland China: {percent(301, 1320)}% (Operating profit ÷ Revenue)",
    ]
    assert "Not ranked (no figure found): Macau." in result.answer
    assert "no figure was found for Revenue" in result.answer
    assert result.answer_kind is AnswerKind.PARTIAL
    lowest = ask(tmp_path, "FY2024营运利润率最低的地区", operands())
    ranked = [line for line in lowest.answer.splitlines() if re.match(r"\d\. ", line)]
    assert [line.split("：")[0] for line in ranked] == ["1. 澳门", "2. 中国内地", "3. 香港"]


def test_a_combination_of_a_derived_metric_is_said_not_computed(tmp_path: Path) -> None:
    facts = operands("2023") + operands("2024")
    result = ask(tmp_path, "Average operating margin of Hong Kong FY2023 to FY2024", facts)
    assert result.answer_kind is AnswerKind.NOT_FOUND
    assert "Not computed: Operating margin is derived (Operating profit ÷ Revenue)" in (
        result.answer
    )
    assert percents(result.answer) == []


def test_a_follow_up_inherits_the_derived_metric(tmp_path: Path) -> None:
    earlier = [
        fact("OPERATING_PROFIT", "ACME_HK", "FY", "2023", 910),
        fact("REVENUE", "ACME_HK", "FY", "2023", 2690),
    ]
    result = ask(
        tmp_path,
        "and in FY2023?",
        [*operands(), *earlier],
        previous=["What was the operating margin of Hong Kong in FY2024?"],
    )
    computed = [line for line in result.answer.splitlines() if "computed as" in line]
    assert len(computed) == 1 and "Hong Kong FY2023 Operating margin" in computed[0]
    assert percents(computed[0]) == [percent(910, 2690)]  # 33.83, not FY2024's 33.96


def test_the_fabrication_check_rejects_a_ratio_its_operands_do_not_give(tmp_path: Path) -> None:
    facts = operands()
    result = ask(tmp_path, "What was the operating margin of Hong Kong in FY2024?", facts)
    result.answer = result.answer.replace(percent(968, 2850), percent(301, 2850))
    allowed = [f.value for f in facts]
    assert fabricated_numbers(result, allowed_values=allowed, ratios=ratios_of(facts)) == [
        Fabrication(percent(301, 2850), "structured")
    ]
