""" "Total revenue from FY2022 to FY2024" is a cumulative total; a question computing nothing
assumes nothing.

"Total" (总, 合计) beside a metric over a range of years asks for the sum over the years — of
the total channel, or of a channel named beside it — while over one year it is the plain
figure, and with a population ("of all regions") the sum over the units. Each test writes its
own facts, so the sums are known before the agent runs (``test_analyst``'s fixtures and
fabrication check).
"""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.parse import parse_intent
from ragspine.agent.types import AgentResult, AnalysisOp, AnswerKind, ClarifyMode
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.fact_store import Fact, FactStore
from tests.agent.test_analyst import ask, numbers, regions
from tests.facts import fact
from tests.profiles import INITECH_PATH, acme

REF = date(2026, 11, 26)
GROUP_YEARS = (("2022", 3948.0), ("2023", 4260.0), ("2024", 4580.0))
AGENCY_YEARS = (("2022", 1510.0), ("2023", 1620.0), ("2024", 1777.0))
GROUP_SUM = math.fsum(v for _, v in GROUP_YEARS)  # 12788
AGENCY_SUM = math.fsum(v for _, v in AGENCY_YEARS)  # 4907
MARKS = ("[Assumption]", "【假设】")


def group_revenue() -> list[Fact]:
    total = [fact("REVENUE", "ACME_GROUP", "FY", y, v) for y, v in GROUP_YEARS]
    agency = [
        fact("REVENUE", "ACME_GROUP", "FY", y, v, channel="AGENCY", source_locator=f"agency={y}")
        for y, v in AGENCY_YEARS
    ]
    return total + agency


def computed(result: AgentResult) -> str:
    """The first line that is not an assumption: the computed figure's line."""
    return next(line for line in result.answer.splitlines() if not line.startswith(MARKS))


@pytest.mark.parametrize(
    "question",
    [
        "What was total revenue between FY2022 and FY2024?",
        "total revenue from FY2022 to FY2024",
        "Total revenue over FY2022-FY2024",
        "FY2022至FY2024的总收入",
        "FY2022至FY2024的合计收入",
        "收入合计 2022-2024年",
        "2022到2024年累计收入",
    ],
)
def test_total_over_a_range_of_years_is_their_sum(tmp_path: Path, question: str) -> None:
    result = ask(tmp_path, question, group_revenue())
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(computed(result)) == [f"{GROUP_SUM:g}"]  # the TOTAL channel, every year
    assert "FY2022–FY2024" in computed(result)
    assert len(result.sources) == len(GROUP_YEARS)


@pytest.mark.parametrize(
    "question",
    [
        "agency channel total revenue from FY2022 to FY2024",
        "FY2022至FY2024代理人渠道的总收入",
        "Group agency total net profit from FY2022 to FY2024",  # "total": the channel alias
    ],
)
def test_a_channel_named_beside_total_is_the_one_summed(tmp_path: Path, question: str) -> None:
    facts = group_revenue() + [
        fact("NET_PROFIT", "ACME_GROUP", "FY", y, v, channel="AGENCY", source_locator=f"np={y}")
        for y, v in AGENCY_YEARS
    ]
    result = ask(tmp_path, question, facts)
    assert result.answer_kind is AnswerKind.FOUND
    assert numbers(computed(result)) == [f"{AGENCY_SUM:g}"]
    assert result.intent is not None and result.intent.channels == ("AGENCY",)


def test_total_in_one_year_is_the_plain_figure(tmp_path: Path) -> None:
    result = ask(tmp_path, "total revenue in FY2024", group_revenue())
    assert result.intent is not None and result.intent.analysis is None
    assert result.answer.startswith("[Assumption] no entity given")  # an answer assumes
    assert computed(result).startswith("Group FY2024 Revenue: US$ 4,580 m")
    assert f"{GROUP_SUM:,.0f}" not in result.answer


def test_total_of_all_regions_is_the_sum_over_the_units(tmp_path: Path) -> None:
    result = ask(tmp_path, "total revenue of all regions in FY2024", regions())
    assert result.intent is not None and result.intent.analysis is not None
    assert result.intent.analysis.op is AnalysisOp.TOTAL
    assert numbers(computed(result))[0] == f"{2850 + 1320 + 410:g}"


def _op(question: str, profile: DomainProfile | None = None) -> AnalysisOp | None:
    intent = parse_intent(question, REF, profile=profile or acme())
    return intent.analysis.op if intent.analysis is not None else None


@pytest.mark.parametrize(
    ("question", "op"),
    [
        ("total revenue in FY2023 and FY2024", None),  # two years listed: no range
        ("total revenue growth from FY2022 to FY2024", AnalysisOp.SPAN),  # a change asked
        ("total NBV margin from FY2022 to FY2024", None),  # a ratio does not add up
        ("总部2022到2024年营运利润", None),  # 总 of 总部, another word
        ("总收入 FY2024", None),
        ("Hong Kong net profit in total from FY2022 to FY2024", AnalysisOp.CUMULATIVE),
        ("香港2022年至2024年营运利润总额", AnalysisOp.CUMULATIVE),
        ("近三年总收入", AnalysisOp.CUMULATIVE),
    ],
)
def test_when_total_asks_for_a_sum_over_years(question: str, op: AnalysisOp | None) -> None:
    assert _op(question) is op


def test_total_in_other_profiles(tmp_path: Path) -> None:
    """Initech's default channel is DIRECT: "total" names its TOTAL channel, which is summed;
    Harbour has no alias "总收入", so 总 is read beside its metric."""
    initech = load_profile(INITECH_PATH)
    intent = parse_intent("total bookings from FY2023 to FY2025", REF, profile=initech)
    assert intent.analysis is not None and intent.analysis.op is AnalysisOp.CUMULATIVE
    assert intent.channels == ("TOTAL",)
    assert _op("total bookings in FY2024", initech) is None
    harbour = load_profile(example_profile_path().parent / "harbour.toml")
    assert _op("渡轮FY2024至FY2025的总收入", harbour) is AnalysisOp.CUMULATIVE
    # A metric whose own name holds the word: "Total assets" is its name, not a sum asked for.
    text = INITECH_PATH.read_text(encoding="utf-8") + (
        '\n[[metrics]]\ncode = "TOTAL_ASSETS"\nname_zh = "总资产"\nname_en = "Total assets"\n'
        'unit = "USD_M"\naliases = ["assets", "资产"]\n'
    )
    path = tmp_path / "assets.toml"
    path.write_text(text, encoding="utf-8")
    assets = load_profile(path)
    assert _op("total assets from FY2023 to FY2025", assets) is None
    assert _op("FY2023至FY2025的总资产", assets) is None


# --------------------------------------------------------------------------- nothing computed


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("median revenue of the regions in FY2024", "'median'"),
        ("各地区收入中位数", "「中位数」"),
        ("revenue per head in FY2024", "'per head'"),
        ("FY2024人均收入", "「人均」"),
        ("revenue share in FY2024", "'share'"),
        ("收入占比", "「占比」"),
        ("revenue per quarter in FY2024", "each quarter of FY2024"),
        ("which branch had the highest revenue in FY2024", "'branch'"),
    ],
)
def test_an_answer_computing_nothing_opens_with_no_assumption(
    tmp_path: Path, question: str, said: str
) -> None:
    result = ask(tmp_path, question, regions())
    assert result.answer_kind is AnswerKind.CLARIFY
    assert not any(mark in result.answer for mark in MARKS), result.answer
    assert result.answer.startswith(("Not answered", "未回答")) and said in result.answer
    assert result.clarification.mode is ClarifyMode.NONE
    assert not result.sources


@pytest.mark.parametrize(
    ("first", "follow", "note"),
    [
        (
            "median revenue of the regions in FY2024",
            "and in FY2023?",
            "[Assumption] what was asked ('median'), from your previous question",
        ),
        ("FY2024香港人均收入", "那澳门呢？", "【假设】所问的计算（「人均」），沿用上一个问题"),
    ],
)
def test_a_follow_up_computing_nothing_names_only_the_cue_kept(
    tmp_path: Path, first: str, follow: str, note: str
) -> None:
    store = FactStore(tmp_path / "facts.db")
    store.init_schema()
    store.upsert_facts(regions())
    result = answer_question(follow, store, MockProvider(), reference_date=REF, previous=[first])
    assert result.answer.splitlines()[0] == note  # no metric, unit or year assumed
    assert result.answer.splitlines()[1].startswith(("Not answered", "未回答"))


def test_a_unit_without_a_figure_is_named_not_coded(tmp_path: Path) -> None:
    facts = regions() + [f for f in regions("2023") if f.entity != "ACME_CN"]
    result = ask(tmp_path, "total revenue of all regions from FY2023 to FY2024", facts)
    assert result.answer_kind is AnswerKind.PARTIAL
    assert "no figure was found for Mainland China FY2023;" in result.answer
    assert "ACME_CN" not in result.answer
