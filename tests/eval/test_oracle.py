"""The eval's oracle on hand-made answers: numbers are judged against the demo corpus's ground
truth (figures written here from the corpus specification), never against the answer's own
tool results — so an engine that returns the wrong fact under the asked key is caught."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from ragspine.agent.messages import Messages, analysis_zh, en, zh
from ragspine.agent.types import (
    AgentResult,
    Analysis,
    AnalysisOp,
    AnswerKind,
    ClarifyMode,
    ClarifyReason,
    FoundFact,
    Route,
    Source,
)
from ragspine.demo.corpora import Corpus
from ragspine.eval.cases import Expectation, ExpectedValue, GoldenCase
from ragspine.eval.oracle import Oracle, demo_truth
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import PendingValue
from tests.eval.answers import (
    DOC,
    DOC_2025,
    FOUND_2025_LINE,
    FOUND_LINE,
    FY2023,
    FY2024,
    FY2025,
    HK_2024,
    LOC,
    LOC_2025,
    SOURCE,
    asking,
    found,
    passage,
    result,
    section,
)

ORACLE = Oracle(load_profile(), "TOTAL")
# The corpus specification's figures (ACME FY2025 review deck, five-year workbook).
HK_REVENUE = {"FY2024": 2850.0, "FY2025": 3105.0}
CN_REVENUE_2025 = 1436.0
HK_RESTATED_2024 = 2880.0  # the FY2025 deck's restatement, held for review
GROUP_NBV_2025 = 2165.0  # RESTRICTED: the board minutes only


def case(
    *, values: tuple[ExpectedValue, ...] = (), clearance: Sensitivity = Sensitivity.INTERNAL
) -> GoldenCase:
    return GoldenCase("c1", "q", expect=Expectation(values=values), clearance=clearance)


def numbers(c: GoldenCase, answer: AgentResult) -> list[str]:
    return [f.number for f in ORACLE.fabrications(c, answer)]


def test_the_truth_is_the_specifications() -> None:
    truth = demo_truth()
    key = ("REVENUE", "ACME_HK", "FY2025", "TOTAL")
    assert truth.values(key, Sensitivity.INTERNAL) == [HK_REVENUE["FY2025"]]
    restated = ("REVENUE", "ACME_HK", "FY2024", "TOTAL")
    assert truth.pending_values(restated, Sensitivity.INTERNAL) == [HK_RESTATED_2024]
    group_nbv = ("NBV", "ACME_GROUP", "FY2025", "TOTAL")
    assert truth.values(group_nbv, Sensitivity.CONFIDENTIAL) == []
    assert truth.values(group_nbv, Sensitivity.RESTRICTED) == [GROUP_NBV_2025]


def test_the_trust_corpus_shares_the_demo_truth() -> None:
    assert ORACLE.table(Corpus.TRUST) is ORACLE.table(Corpus.DEMO)


def test_a_true_answer_is_clean_with_and_without_expected_values() -> None:
    answer = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    assert numbers(case(values=(HK_2024,)), answer) == []
    assert numbers(case(), answer) == []


def last_years_value() -> AgentResult:
    """The audit's demonstration: FY2024's fact served under the FY2025 label, cited."""
    served = FoundFact(found(period=FY2025).slots, HK_REVENUE["FY2024"], "USD_M", SOURCE)
    line = zh.found("ACME_HK FY2025 REVENUE", "2,850 百万美元", DOC, LOC)
    return result(line, tool_results=[served], sources=[SOURCE], periods=[FY2025])


def test_last_years_value_under_this_years_label_counts_though_cited() -> None:
    expected = replace(HK_2024, period_label="FY2025", value=3105.0, doc=DOC_2025, locator=LOC_2025)
    assert numbers(case(values=(expected,)), last_years_value()) == ["2,850"]
    # Without expected values the parsed slots name the key; the truth gives its value.
    assert numbers(case(), last_years_value()) == ["2,850"]


def test_a_growth_question_may_state_the_base_year_and_the_changes() -> None:
    lines = "\n".join(
        [FOUND_2025_LINE, FOUND_LINE, zh.change("FY2025", "FY2024", "+255 百万美元", "+8.95%")]
    )
    sources = [Source(DOC_2025, LOC_2025), SOURCE]
    answer = result(lines, sources=sources, intent=asking(FY2025, growth=True))
    assert numbers(case(), answer) == []
    expected = replace(HK_2024, period_label="FY2025", value=3105.0)
    assert numbers(case(values=(expected,)), answer) == []
    # Without the growth cue the base year is not a key (nor a period) the question is about.
    unasked = numbers(case(), replace(answer, intent=asking(FY2025)))
    assert unasked == ["2024", "2,850", "2024", "255", "8.95"]


def test_a_sum_of_two_true_values_counts() -> None:
    """A comparison may state each value, their difference and percentage change — a total
    the answer invents by adding them is no ground-truth figure."""
    total = HK_REVENUE["FY2025"] + CN_REVENUE_2025
    difference = HK_REVENUE["FY2025"] - CN_REVENUE_2025
    lines = f"{FOUND_2025_LINE}\nACME_CN FY2025 REVENUE：1436 USD_M\n差额：{difference:.0f} USD_M"
    answer = result(
        f"{lines}\n合计：{total:.0f} USD_M",
        sources=[Source(DOC_2025, LOC_2025)],
        intent=asking(FY2025, entities=("ACME_HK", "ACME_CN")),
    )
    assert numbers(case(), answer) == [f"{total:.0f}"]


def test_a_pending_value_counts_only_when_the_truth_holds_it() -> None:
    def disclosing(value: float) -> AgentResult:
        pending = PendingValue(
            value, "USD_M", DOC_2025, "slide=2,table=1,row=REVENUE,col=FY2024", "INTERNAL"
        )
        text = f"{FOUND_LINE}\n待复核：{value:.0f} USD_M"
        answer = result(text, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
        return replace(answer, pending=[pending])

    assert numbers(case(), disclosing(HK_RESTATED_2024)) == []
    assert numbers(case(), disclosing(2890.0)) == ["2890"]


def test_a_value_above_the_callers_clearance_is_not_allowed() -> None:
    line = zh.found("ACME_GROUP FY2025 NBV", "2,165 百万美元", DOC, LOC)
    asked = asking(FY2025, entities=("ACME_GROUP",), metrics=("NBV",))
    answer = result(line, sources=[SOURCE], intent=asked)
    assert numbers(case(clearance=Sensitivity.CONFIDENTIAL), answer) == ["2,165"]
    assert numbers(case(clearance=Sensitivity.RESTRICTED), answer) == []


@pytest.mark.parametrize(
    ("sentence", "counted"),
    [
        ("香港FY2025收入为3,105百万美元。[1]", []),
        ("香港FY2025收入为31.05亿美元。[1]", []),
        ("香港FY2025收入为3,300百万美元。[1]", ["3,300"]),
        ("Hong Kong revenue in FY2025 was US$3.3bn [1].", ["3.3"]),
        # The home company's name before a region qualifies it.
        ("ACME Hong Kong revenue in FY2025 was US$3.3bn [1].", ["3.3"]),
        # Two entities, or no period: no single key to hold the sentence to.
        ("Group and Hong Kong revenue in FY2025 was US$3.3bn [1].", []),
        ("香港和澳门FY2025收入为3,300百万美元。[1]", []),
        ("香港收入为3,300百万美元。[1]", []),
    ],
)
def test_a_narrative_sentence_contradicting_the_truth_counts(
    sentence: str, counted: list[str]
) -> None:
    cited = passage(1, sentence.replace("[1]", ""))
    part = section(sentence, cited)
    answer = result(
        part.text,
        route=Route.NARRATIVE,
        sources=[cited.source],
        intent=asking(FY2025, route=Route.NARRATIVE),
        narrative=part,
    )
    assert numbers(case(), answer) == counted


def test_a_narrative_number_is_grounded_only_by_the_passage_it_cites() -> None:
    first = passage(1, "代理人数量增至13,240人。")
    second = passage(2, "2025年代理人目标为14,020人。")
    part = section("代理人数量增至14,020人。[1]", first, second)
    answer = result(
        part.text,
        route=Route.NARRATIVE,
        sources=[first.source, second.source],
        intent=asking(FY2025, route=Route.NARRATIVE),
        narrative=part,
    )
    assert [(f.number, f.where) for f in ORACLE.fabrications(case(), answer)] == [
        ("14,020", "narrative")
    ]


def test_an_unknown_corpus_has_no_truth_to_judge_by() -> None:
    oracle = Oracle(load_profile(), "TOTAL", {Corpus.DEMO: demo_truth()})
    with pytest.raises(KeyError):
        oracle.table(Corpus.TRUST)


def test_sources_never_lend_a_value() -> None:
    """A result that lists the true fact as a tool result but states another number."""
    wrong = result(
        FOUND_LINE.replace("2,850", "2,851"),
        tool_results=[found(2851.0)],
        sources=[Source(DOC, LOC)],
        periods=[FY2024],
    )
    assert numbers(case(), wrong) == ["2,851"]


def test_a_true_value_of_a_key_not_asked_counts() -> None:
    """An answer to one unit that also shows the whole company and the gap between them states
    true figures, but of a key the question did not ask: the case's expected values name the
    keys, so each of those numbers counts (the truth lends a value only to the keys asked)."""
    whole = Source("workbooks/ACME_5Y_Financials.xlsx", "sheet=GROUP,cell=E2")
    lines = "\n".join(
        [
            zh.found("ACME_GROUP FY2024 REVENUE", "4,580 百万美元", whole.doc, whole.locator),
            FOUND_LINE,
            "差额：+1,730 百万美元（+60.70%）",
        ]
    )
    both = asking(FY2024, entities=("ACME_GROUP", "ACME_HK"))
    answer = result(lines, sources=[whole, SOURCE], intent=both)
    assert numbers(case(values=(HK_2024,)), answer) == ["4,580", "1,730", "60.70"]
    # Without expected values the parsed slots name the keys, so a misparse grades itself.
    assert numbers(case(), answer) == []


@pytest.mark.parametrize("messages", [zh, en])
def test_asking_back_about_a_period_the_calendar_lacks_echoes_the_question_only(
    messages: Messages,
) -> None:
    """Found by the sweep: asking back about "截至2025年3月31日止年度" under a December year
    end quotes the user's words and states the month fiscal years end in — neither is a value.
    A figure planted in the same text still counts."""
    unknown = "截至2025年3月31日止年度" if messages is zh else "for the year ended 31 March 2025"
    text = messages.ask_period([unknown], 12, ["FY2025", "FY2024"])
    intent = replace(asking(), unknown_periods=(unknown,))
    asked_back = result(
        text,
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ASK_FIRST,
        reason=ClarifyReason.UNKNOWN_PERIOD,
        narrowing_options=("FY2025", "FY2024"),
        intent=intent,
    )
    assert numbers(case(), asked_back) == []
    planted = replace(asked_back, answer=f"{text} 3,480")
    assert numbers(case(), planted) == ["3,480"]


# Hong Kong's agents at each year end (a balance) and its revenue (a flow), from the corpus
# specification's five-year workbook.
HK_AGENTS = {"FY2023": 12600.0, "FY2024": 13240.0, "FY2025": 14020.0}
HK_REVENUE_2023 = 2690.0
THREE_YEARS = (FY2023, FY2024, FY2025)


def computed(op: AnalysisOp, metric: str, stated: float) -> AgentResult:
    """A computed answer over Hong Kong's ``metric`` in FY2023-FY2025 stating ``stated``."""
    line = analysis_zh.cumulative(f"ACME_HK {metric}", "FY2023–FY2025", f"{stated:,.1f}")
    asked = asking(*THREE_YEARS, metrics=(metric,), analysis=Analysis(op))
    return result(line, intent=asked)


def profile_declaring(tmp_path: Path, agents: str) -> Oracle:
    """The example profile with the agent count's ``nature`` line written as ``agents``."""
    text = example_profile_path().read_text(encoding="utf-8")
    declared = 'nature = "balance"  # agents at a period\'s end: never summed over periods'
    assert declared in text
    path = tmp_path / "profile.toml"
    path.write_text(text.replace(declared, agents), encoding="utf-8")
    return Oracle(load_profile(path), "TOTAL")


def test_a_sum_of_a_balance_over_periods_counts() -> None:
    """The agents at three year ends add up to no figure of the truth; their mean, the sum of a
    flow's years and the regions' agents at one year end are computed from it."""
    summed = math.fsum(HK_AGENTS.values())
    assert numbers(case(), computed(AnalysisOp.CUMULATIVE, "AGENT_COUNT", summed)) == ["39,860.0"]
    two_years = HK_AGENTS["FY2024"] + HK_AGENTS["FY2025"]
    assert numbers(case(), computed(AnalysisOp.CUMULATIVE, "AGENT_COUNT", two_years)) != []
    mean = summed / len(HK_AGENTS)
    assert numbers(case(), computed(AnalysisOp.AVERAGE, "AGENT_COUNT", mean)) == []
    revenue = HK_REVENUE_2023 + HK_REVENUE["FY2024"] + HK_REVENUE["FY2025"]
    assert numbers(case(), computed(AnalysisOp.CUMULATIVE, "REVENUE", revenue)) == []
    regions = ("ACME_CN", "ACME_MO")
    total = Analysis(AnalysisOp.TOTAL, regions, "ACME_GROUP")
    fy2020 = asking(Period(2020, "FY"), entities=regions, metrics=("AGENT_COUNT",), analysis=total)
    line = "ACME_CN, ACME_MO FY2020 AGENT_COUNT 合计：4,096"  # 2,046 + 2,050
    assert numbers(case(), result(line, intent=fy2020)) == []


def test_the_oracle_reads_the_metrics_nature_from_the_profile(tmp_path: Path) -> None:
    """Undeclared, the agent count's names say neither: an unknown is never summed, so its sum
    counts, as a declared balance's does; declared a flow, it is summed."""
    answer = computed(AnalysisOp.CUMULATIVE, "AGENT_COUNT", math.fsum(HK_AGENTS.values()))
    counted = {
        declared: [
            f.number for f in profile_declaring(tmp_path, declared).fabrications(case(), answer)
        ]
        for declared in ("", 'nature = "flow"', 'nature = "balance"')
    }
    assert counted == {"": ["39,860.0"], 'nature = "flow"': [], 'nature = "balance"': ["39,860.0"]}
