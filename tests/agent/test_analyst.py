"""Computed answers end to end: a real SQLite store, the mock model, our own arithmetic.

Each test writes its own facts, so the right numbers are known before the agent runs; the
eval's fabrication check judges every answer against those facts alone.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.fact_store import Fact, FactStore
from tests.facts import fact
from tests.profiles import acme

REF = date(2026, 11, 26)
HK, CN, MO, GROUP = 2850.0, 1320.0, 410.0, 4580.0


def regions(year: str = "2024", **values: float) -> list[Fact]:
    figures = {"ACME_HK": HK, "ACME_CN": CN, "ACME_MO": MO, "ACME_GROUP": GROUP} | values
    return [fact("REVENUE", entity, "FY", year, value) for entity, value in figures.items()]


def ask(
    tmp_path: Path, question: str, facts: list[Fact], profile: DomainProfile | None = None
) -> AgentResult:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(facts)
    result = answer_question(question, store, MockProvider(), reference_date=REF, profile=profile)
    assert fabricated_numbers(result, allowed_values=[f.value for f in facts]) == [], result.answer
    return result


def headline(result: AgentResult) -> str:
    return result.answer.splitlines()[0]


def numbers(line: str) -> list[str]:
    """The figures a line states, thousands separators dropped ("US$ 1,730 m" -> "1730")."""
    found = re.findall(r"\d[\d,]*(?:\.\d+)?", re.sub(r"FY\d{4}", " ", line))
    return [n.replace(",", "").rstrip(",") for n in found]


@pytest.mark.parametrize(
    "question",
    [
        "What was revenue excluding Hong Kong in FY2024?",
        "FY2024 revenue not including Hong Kong",
        "除香港以外的FY2024收入是多少",
    ],
)
def test_an_exclusion_answers_the_other_units_never_the_excluded_one(
    tmp_path: Path, question: str
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(headline(result)) == ["1730"]  # 1320 + 410, not 2850
    assert "Mainland China" in headline(result) or "中国内地" in headline(result)
    assert "Macau" in headline(result) or "澳门" in headline(result)
    assert {s.locator for s in result.sources} >= {f.source_locator for f in regions()}


def test_all_regions_except_one_sums_the_others(tmp_path: Path) -> None:
    result = ask(tmp_path, "FY2024 revenue of all regions except Macau", regions())
    assert numbers(headline(result)) == ["4170"]  # 2850 + 1320, not 410


def test_an_exclusion_falls_back_to_the_whole_minus_the_unit_and_says_so(tmp_path: Path) -> None:
    facts = [f for f in regions() if f.entity != "ACME_MO"]
    result = ask(tmp_path, "What was revenue excluding Hong Kong in FY2024?", facts)
    assert result.answer_kind is AnswerKind.PARTIAL
    assert numbers(headline(result)) == ["1730"]  # 4580 - 2850
    assert "Group minus Hong Kong" in headline(result)
    assert "Not found: Revenue / Macau / FY2024" in result.answer


def test_units_that_do_not_add_up_to_the_whole_are_disclosed_with_both_totals(
    tmp_path: Path,
) -> None:
    result = ask(tmp_path, "除香港以外的FY2024收入是多少", regions(ACME_GROUP=4600))
    assert numbers(headline(result)) == ["1730"]
    assert "不一致" in result.answer and "4,580" in result.answer and "4,600" in result.answer
    # the other way, the whole minus the unit left out, is stated too
    assert any(numbers(line) == ["1750"] for line in result.answer.splitlines())


def test_a_total_of_a_named_group_is_checked_against_the_whole(tmp_path: Path) -> None:
    result = ask(tmp_path, "What was the total revenue of all regions in FY2024?", regions())
    assert numbers(headline(result)) == ["4580"]
    assert "add up to the Group figure" in result.answer


def test_a_ranking_lists_every_unit_in_order_with_its_source(tmp_path: Path) -> None:
    result = ask(tmp_path, "Which region had the highest revenue in FY2024?", regions())
    ranked = [line for line in result.answer.splitlines() if re.match(r"\d\. ", line)]
    assert [line.split(" FY")[0][3:] for line in ranked] == ["Hong Kong", "Mainland China", "Macau"]
    assert all("source:" in line for line in ranked)
    lowest = ask(tmp_path, "FY2024收入最低的地区", regions())
    ranked = [line for line in lowest.answer.splitlines() if re.match(r"\d\. ", line)]
    assert [line.split(" FY")[0][3:] for line in ranked] == ["澳门", "中国内地", "香港"]


def test_a_ranking_states_ties_and_units_without_a_figure(tmp_path: Path) -> None:
    facts = [f for f in regions(ACME_CN=HK) if f.entity != "ACME_MO"]
    result = ask(tmp_path, "Which region had the highest revenue in FY2024?", facts)
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "1. Hong Kong" in result.answer and "1. Mainland China" in result.answer
    assert "Tie: Hong Kong, Mainland China" in result.answer
    assert "Not ranked (no figure found): Macau." in result.answer


def test_fastest_growing_ranks_by_the_change_over_the_year_before(tmp_path: Path) -> None:
    facts = regions("2024") + regions("2025", ACME_HK=2900, ACME_CN=1452, ACME_MO=420)
    result = ask(tmp_path, "Which region grew revenue fastest in FY2025?", facts)
    # 1452 / 1320 - 1 = 10.00%, 420 / 410 - 1 = 2.44%, 2900 / 2850 - 1 = 1.75%
    assert "1. Mainland China: +10.00% (FY2025 vs FY2024)" in result.answer
    assert "2. Macau: +2.44%" in result.answer and "3. Hong Kong: +1.75%" in result.answer


def test_a_change_from_a_to_b_follows_the_order_asked(tmp_path: Path) -> None:
    facts = [
        fact("REVENUE", "ACME_HK", "FY", year, value)
        for year, value in (("2023", 2690), ("2024", 2850), ("2025", 3105))
    ]
    forward = ask(tmp_path, "How much did Hong Kong revenue grow from FY2023 to FY2025?", facts)
    assert headline(forward).endswith("from FY2023 to FY2025: +US$ 415 m (+15.43%)")
    assert "Year by year:" in forward.answer
    back = ask(tmp_path, "香港收入从FY2025到FY2023的变化", facts)
    assert "从FY2025到FY2023的变化：-415 百万美元（-13.37%）" in headline(back)


def test_a_change_to_a_year_without_a_figure_is_not_computed(tmp_path: Path) -> None:
    facts = [fact("REVENUE", "ACME_HK", "FY", "2023", 2690)]
    result = ask(tmp_path, "How much did Hong Kong revenue grow from FY2023 to FY2026?", facts)
    assert headline(result).startswith("Not computed: no figure was found for FY2026;")
    assert result.answer_kind is AnswerKind.PARTIAL


def test_average_cumulative_and_cagr_over_periods(tmp_path: Path) -> None:
    facts = [
        fact("REVENUE", "ACME_CN", "FY", year, value)
        for year, value in (("2022", 1120), ("2023", 1205), ("2024", 1320))
    ]
    average = ask(tmp_path, "中国内地FY2022至FY2024的平均收入", facts)
    assert "1,215 百万美元" in headline(average) or "US$ 1,215 m" in headline(average)
    total = ask(tmp_path, "Mainland China cumulative revenue FY2022-FY2024", facts)
    assert "3,645" in headline(total)
    cagr = ask(tmp_path, "CAGR of Mainland China revenue from FY2022 to FY2024", facts)
    # (1320 / 1120) ** (1 / 2) - 1 = 0.08562: two decimals of the percentage
    assert headline(cagr) == "CAGR of Mainland China Revenue from FY2022 to FY2024: +8.56% a year."
    assert len(cagr.sources) == 2  # the two ends it is computed from


def test_the_mean_of_a_percent_is_shown_to_its_two_decimals(tmp_path: Path) -> None:
    """Found by a probe: the mean was rounded to one decimal, then shown as a percent with two,
    so (11.8 + 12.6 + 13.5) / 3 = 12.633 read "12.60%"."""
    years = [
        fact("ROE", "ACME_GROUP", "FY", year, value, unit="PCT")
        for year, value in (("2023", 11.8), ("2024", 12.6), ("2025", 13.5))
    ]
    over_years = ask(tmp_path / "years", "average group ROE from FY2023 to FY2025", years)
    assert numbers(headline(over_years))[-1] == "12.63"
    units = [
        fact("NBV_MARGIN", entity, "FY", "2024", value, unit="PCT")
        for entity, value in (("ACME_HK", 57.4), ("ACME_CN", 40.1), ("ACME_MO", 33.2))
    ]
    over_units = ask(tmp_path / "units", "各地区FY2024平均新业务价值利润率", units)
    assert numbers(headline(over_units))[-1] == "43.57"  # 130.7 / 3


def test_figures_in_different_currencies_are_not_summed(tmp_path: Path) -> None:
    facts = [f for f in regions() if f.entity != "ACME_MO"]
    facts.append(fact("REVENUE", "ACME_MO", "FY", "2024", MO, unit="EUR_M"))
    result = ask(tmp_path, "What was revenue excluding Hong Kong in FY2024?", facts)
    assert headline(result).startswith("Not computed: the figures are in different units")
    assert "1730" not in result.answer and "1,730" not in result.answer


def test_ratios_are_not_added(tmp_path: Path) -> None:
    facts = [
        fact("NBV_MARGIN", e, "FY", "2024", v) for e, v in (("ACME_HK", 57.4), ("ACME_CN", 40.0))
    ]
    result = ask(tmp_path, "FY2024 NBV margin of all regions except Macau", facts)
    assert headline(result).startswith("Not computed: NBV margin is a ratio")
    assert "97.4" not in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "What was Hong Kong's revenue share in FY2024?",
        "香港FY2024收入占比是多少",
        "What was the median revenue of the regions in FY2024?",
        "Hong Kong revenue per head FY2024",
        "香港FY2024人均收入",
        "What was Hong Kong revenue per agent in FY2024?",
        "FY2024香港收入占集团的比例是多少",
        "Which branch had the highest revenue in FY2024?",
    ],
)
def test_a_cue_nothing_computes_is_said_never_answered_with_the_plain_figure(
    tmp_path: Path, question: str
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "2850" not in result.answer and "2,850" not in result.answer and not result.sources


def test_a_population_the_profile_does_not_define_is_said(tmp_path: Path) -> None:
    flat: Any = acme().model_copy(
        update={
            "entities": tuple(e.model_copy(update={"parent": None}) for e in acme().entities),
            "groups": (),
        }
    )
    result = ask(tmp_path, "What was revenue excluding Hong Kong in FY2024?", regions(), flat)
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "defines no units under Hong Kong" in result.answer
    for figure in ("2850", "2,850", "1730", "1,730"):
        assert figure not in result.answer


def test_segments_in_two_currencies_are_ranked_and_totalled_in_neither(tmp_path: Path) -> None:
    harbour = load_profile(example_profile_path().with_name("harbour.toml"))
    facts = [
        fact("REVENUE", "HLH_FERRY", "FY", "2025", 820, unit="HKD_M"),
        fact("REVENUE", "HLH_PORTS", "FY", "2025", 640, unit="CNY_M"),
    ]
    total = ask(tmp_path, "What was the revenue of all segments in FY2025?", facts, harbour)
    assert headline(total).startswith("Not computed: the figures are in different units")
    assert "1460" not in total.answer
    ranked = ask(tmp_path, "Which segment had the highest revenue in FY2025?", facts, harbour)
    assert headline(ranked).startswith("Not computed: the figures are in different units")
    assert not re.search(r"^\d\. ", ranked.answer, re.M)
