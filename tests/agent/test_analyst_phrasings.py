"""Computed answers asked in other words: "mean", "between A and B", a currency or scale asked
for, a follow-up to a ranking, a median. Each test writes its own facts, so the right figures
are known before the agent runs (the fixtures and checks of ``test_analyst``)."""

from __future__ import annotations

import math
import re
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.agent.unit_request import exchange_rate
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.periods import Period
from ragspine.storage.fact_store import Fact, FactStore
from tests.agent.test_analyst import ask, headline, numbers, regions
from tests.facts import fact
from tests.profiles import acme

CN_YEARS = (("2022", 1120.0), ("2023", 1205.0), ("2024", 1320.0))


def cn_revenue() -> list[Fact]:
    return [fact("REVENUE", "ACME_CN", "FY", year, value) for year, value in CN_YEARS]


MEAN = round(math.fsum(v for _, v in CN_YEARS) / len(CN_YEARS), 1)  # 1215.0
SUM = math.fsum(v for _, v in CN_YEARS)  # 3645.0


@pytest.mark.parametrize(
    "question",
    [
        "What was the mean revenue of Mainland China from FY2022 to FY2024?",
        "arithmetic mean of Mainland China revenue FY2022-FY2024",
        "中国内地FY2022至FY2024收入的平均数",
        "中国内地FY2022至FY2024收入均值",
    ],
)
def test_mean_is_an_average(tmp_path: Path, question: str) -> None:
    result = ask(tmp_path, question, cn_revenue())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(headline(result)) == [f"{MEAN:g}"]
    assert len(result.sources) == len(CN_YEARS)


@pytest.mark.parametrize(
    "question", ["What does revenue mean?", "What do you mean by Mainland China revenue in FY2024?"]
)
def test_mean_the_verb_asks_for_no_average(tmp_path: Path, question: str) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(cn_revenue())
    result = answer_question(question, store, MockProvider(), reference_date=date(2026, 11, 26))
    assert result.intent is not None and result.intent.analysis is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was Mainland China's average revenue between FY2022 and FY2024?", MEAN),
        ("中国内地FY2022和FY2024之间的平均收入", MEAN),
        ("中国内地2022年至2024年的平均收入", MEAN),
        ("Mainland China cumulative revenue between FY2022 and FY2024", SUM),
        ("中国内地FY2022与FY2024之间的累计收入", SUM),
    ],
)
def test_between_two_years_is_the_range_for_an_average_or_a_cumulative_total(
    tmp_path: Path, question: str, expected: float
) -> None:
    result = ask(tmp_path, question, cn_revenue())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(headline(result)) == [f"{expected:g}"]  # every year, not the two ends only
    assert "FY2022–FY2024" in headline(result)
    assert len(result.sources) == len(CN_YEARS)


@pytest.mark.parametrize(
    "question",
    [
        "How much did Mainland China revenue change between FY2022 and FY2024?",
        "中国内地FY2022和FY2024之间收入变化多少",
    ],
)
def test_a_change_between_two_years_is_last_less_first(tmp_path: Path, question: str) -> None:
    result = ask(tmp_path, question, cn_revenue())
    first, last = CN_YEARS[0][1], CN_YEARS[-1][1]
    assert f"{last - first:,.0f}" in headline(result)  # 1320 - 1120


def test_a_comparison_between_two_years_keeps_the_two_years(tmp_path: Path) -> None:
    result = ask(tmp_path, "Compare Mainland China revenue between FY2022 and FY2024", cn_revenue())
    assert result.intent is not None
    assert [p.label for p in result.intent.periods] == ["FY2022", "FY2024"]


def test_a_pair_without_a_declared_rate_has_none() -> None:
    # ACME declares USD→HKD only: no other pair, and not its inverse.
    fy2025 = Period(2025, "FY")
    assert exchange_rate(acme(), "USD", "EUR", fy2025) is None
    assert exchange_rate(acme(), "HKD", "USD", fy2025) is None


@pytest.mark.parametrize(
    ("question", "refusal"),
    [
        ("What was Hong Kong revenue in FY2024 in euros?", "Not converted into EUR"),
        ("Hong Kong revenue FY2024 in Japanese yen", "Not converted into JPY"),
        ("香港FY2024收入换算成美元", None),  # reported in US dollars: nothing to convert
        ("香港FY2024收入以欧元计", "未换算为 EUR"),
        ("Which region had the highest revenue in FY2024 in euros?", "Not converted into EUR"),
        ("FY2024各地区收入排名，以日元计", "未换算为 JPY"),
        ("What was revenue excluding Hong Kong in FY2024, in euros?", "Not converted into"),
    ],
)
def test_a_conversion_without_a_declared_rate_is_refused_with_its_reason(
    tmp_path: Path, question: str, refusal: str | None
) -> None:
    result = ask(tmp_path, question, regions())
    if refusal is None:
        assert "换算" not in result.answer and "convert" not in result.answer
        return
    assert refusal in result.answer
    assert "USD" in result.answer  # the currency the figures stay in is named
    # every figure shown is a found one (``ask`` checks fabrication): none converted
    assert " × " not in result.answer and "€" not in result.answer


def test_a_percentage_asked_in_a_currency_says_it_has_none(tmp_path: Path) -> None:
    facts = [fact("NBV_MARGIN", "ACME_HK", "FY", "2024", 57.4)]
    result = ask(tmp_path, "Hong Kong NBV margin FY2024 in euros", facts)
    assert "57.4" in result.answer
    assert "Not converted: NBV margin is not an amount of money" in result.answer


def test_a_ranking_in_billions_shows_each_input_rescaled(tmp_path: Path) -> None:
    result = ask(tmp_path, "Which region had the highest revenue in FY2024 in billions?", regions())
    rescaled = [line for line in result.answer.splitlines() if " in billions: " in line]
    assert len(rescaled) == 3
    facts = {f.entity: f.value for f in regions() if f.entity != "ACME_GROUP"}
    shown = sorted(float(numbers(line.split(": ")[1])[0]) for line in rescaled)
    assert shown == sorted(v / 1000 for v in facts.values())


def _asked(tmp_path: Path, question: str, *previous: str) -> AgentResult:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    facts = regions("2024") + regions("2023", ACME_HK=2690, ACME_CN=1205, ACME_MO=380)
    store.upsert_facts(facts)
    result = answer_question(
        question, store, MockProvider(), reference_date=date(2026, 11, 26), previous=previous
    )
    assert fabricated_numbers(result, allowed_values=[f.value for f in facts]) == []
    return result


def _ranked(result: AgentResult) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\d\. (\S+(?: \S+)?) FY", result.answer, re.M)]


@pytest.mark.parametrize(
    ("first", "follow", "order", "kept"),
    [
        (
            "Which region had the highest revenue in FY2024?",
            "and in FY2023?",
            ["Hong Kong", "Mainland China", "Macau"],  # 2690 > 1205 > 380
            "the ranking (highest first)",
        ),
        (
            "FY2024哪个地区收入最高？",
            "那2023年呢？",
            ["香港", "中国内地", "澳门"],
            "排名（从高到低）",
        ),
        ("FY2024收入最低的地区", "那FY2023呢？", ["澳门", "中国内地", "香港"], "排名（从低到高）"),
    ],
)
def test_a_follow_up_to_a_ranking_keeps_the_ranking(
    tmp_path: Path, first: str, follow: str, order: list[str], kept: str
) -> None:
    result = _asked(tmp_path, follow, first)
    assert kept in result.answer.splitlines()[0]
    assert "FY2023" in result.answer.splitlines()[1]  # the ranking's heading
    assert _ranked(result) == order
    assert {s.locator for s in result.sources} >= {
        f.source_locator for f in regions("2023") if f.entity != "ACME_GROUP"
    }
    alone = _asked(tmp_path, follow)  # without its history it ranks nothing
    assert _ranked(alone) == []


def test_a_follow_up_naming_one_unit_asks_for_its_figure_not_the_ranking(tmp_path: Path) -> None:
    first = "Which region had the highest revenue in FY2024?"
    result = _asked(tmp_path, "what about Macau?", first)
    assert _ranked(result) == []
    assert result.answer.splitlines()[1].startswith("Macau FY2024 Revenue: US$ 410 m")


def test_a_median_follow_up_is_still_not_computed(tmp_path: Path) -> None:
    result = _asked(tmp_path, "and in FY2023?", "median revenue of all regions FY2024")
    assert result.answer_kind is AnswerKind.CLARIFY
    assert "median" in result.answer
    assert not result.sources


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("median revenue of all regions FY2024", "'median'"),
        ("各地区FY2024收入中位数", "「中位数」"),
    ],
)
def test_a_median_says_it_was_not_computed_and_gives_no_figure(
    tmp_path: Path, question: str, said: str
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert said in result.answer
    for f in regions():
        assert f"{f.value:,.0f}" not in result.answer and f"{f.value:.0f}" not in result.answer


def test_a_follow_up_to_an_average_over_years_keeps_it_for_another_unit_only(
    tmp_path: Path,
) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    hk = [(year, value + 1000) for year, value in CN_YEARS]
    facts = cn_revenue() + [fact("REVENUE", "ACME_HK", "FY", y, v) for y, v in hk]
    store.upsert_facts(facts)
    first = "中国内地FY2022至FY2024的平均收入"

    def asked(question: str) -> AgentResult:
        day = date(2026, 11, 26)
        provider = MockProvider()
        return answer_question(question, store, provider, reference_date=day, previous=[first])

    other_unit = asked("那香港呢？")
    assert "平均值" in other_unit.answer.splitlines()[0]  # the kept computation is named
    assert numbers(other_unit.answer.splitlines()[1]) == [f"{MEAN + 1000:g}"]
    one_year = asked("那FY2023呢？")  # a year of its own: that year's figure, no average
    assert "平均" not in one_year.answer
    assert one_year.answer.splitlines()[1].startswith("中国内地 FY2023 收入：1,205 百万美元")
