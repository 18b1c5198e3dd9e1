"""The fabrication check on hand-made answers of every kind: each planted number is counted,
in the part of the answer it was planted in, and every allowed source of digits is not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragspine.agent.messages import zh
from ragspine.agent.types import (
    AnswerKind,
    Citation,
    ClarifyMode,
    ClarifyReason,
    NarrativeSection,
    Route,
    Slots,
    Source,
    UnrecognizedParam,
)
from ragspine.eval.fabrication import Fabrication, asked_slots, fabricated_numbers
from ragspine.profile.periods import Period
from tests.eval.answers import (
    DOC,
    DOC_2025,
    FOUND_2025_LINE,
    FOUND_LINE,
    FY2019,
    FY2023,
    FY2024,
    FY2025,
    LOC,
    LOC_2025,
    NOT_FOUND_2019,
    SOURCE,
    asking,
    composite,
    found,
    not_found,
    passage,
    result,
    section,
)

FOUND_2025 = found(3105.0, period=FY2025, doc=DOC_2025, locator=LOC_2025)
SOURCE_2025 = Source(DOC_2025, LOC_2025)
GROWTH_LINES = "\n".join(
    [FOUND_2025_LINE, FOUND_LINE, zh.change("FY2025", "FY2024", "+255 百万美元", "+8.95%")]
)
AGENTS = passage(1, "香港收入增长主要受代理人渠道带动。2024年代理人数量增至13,240人。")
RBC = passage(2, "风险为本资本制度于2024年正式实施，2025年代理人目标为14,020人。")


def structured(*numbers: str) -> list[Fabrication]:
    return [Fabrication(n, "structured") for n in numbers]


def narrative(*numbers: str) -> list[Fabrication]:
    return [Fabrication(n, "narrative") for n in numbers]


def growth_answer(text: str = GROWTH_LINES) -> list[Fabrication]:
    answer = result(
        text,
        tool_results=[FOUND_2025, found()],
        sources=[SOURCE_2025, SOURCE],
        intent=asking(FY2025, growth=True),
    )
    return fabricated_numbers(answer)


# --------------------------------------------------------------------------- found answers


def test_a_found_answer_stating_its_fact_is_clean() -> None:
    answer = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    assert fabricated_numbers(answer) == []


def test_a_number_planted_in_a_found_answer_counts() -> None:
    answer = result(
        f"{FOUND_LINE}\n另约 2,990 USD_M。",
        tool_results=[found()],
        sources=[SOURCE],
        periods=[FY2024],
    )
    assert fabricated_numbers(answer) == structured("2,990")


def test_thousands_separators_and_rounding_to_one_decimal_are_the_same_value() -> None:
    answer = result(
        "ACME_HK FY2024 REVENUE：2,850 USD_M；NBV_MARGIN：58.0 PCT",
        tool_results=[found(), found(57.96, unit="PCT", metric="NBV_MARGIN")],
        intent=asking(FY2024, metrics=("REVENUE", "NBV_MARGIN")),
    )
    assert fabricated_numbers(answer) == []


def test_a_found_value_for_slots_not_asked_counts() -> None:
    """The store returned FY2023 too, but the question asked for FY2024 only."""
    answer = result(
        f"{FOUND_LINE}\nACME_HK FY2023 REVENUE：2710 USD_M",
        tool_results=[found(), found(2710.0, period=FY2023)],
        periods=[FY2024],
    )
    assert fabricated_numbers(answer) == structured("2710")


def test_a_growth_questions_base_year_its_difference_and_percentage_are_allowed() -> None:
    assert growth_answer() == []


def test_without_the_growth_cue_the_base_year_fact_was_not_asked() -> None:
    answer = result(
        GROWTH_LINES,
        tool_results=[FOUND_2025, found()],
        sources=[SOURCE_2025, SOURCE],
        periods=[FY2025],
    )
    assert fabricated_numbers(answer) == structured("2,850", "255", "8.95")


@pytest.mark.parametrize(
    ("change", "planted"),
    [
        ("+256 百万美元（+8.95%）", "256"),  # a difference the facts do not give
        ("+255 百万美元（+9.12%）", "9.12"),  # a percentage change the facts do not give
    ],
)
def test_arithmetic_the_facts_do_not_give_counts(change: str, planted: str) -> None:
    text = GROWTH_LINES.replace("+255 百万美元（+8.95%）", change)
    assert growth_answer(text) == structured(planted)


def test_the_difference_and_percentage_of_a_comparison_are_allowed() -> None:
    macau = found(410.0, entity="ACME_MO", doc="workbooks/ACME_5Y.xlsx", locator="sheet=MO,cell=E2")
    lines = [
        FOUND_LINE,
        zh.found("ACME_MO FY2024 REVENUE", "410 百万美元", macau.source.doc, macau.source.locator),
        zh.difference("香港", "澳门", "+2,440 百万美元", "+595.12%"),
    ]
    answer = result(
        "\n".join(lines),
        tool_results=[found(), macau],
        sources=[SOURCE, macau.source],
        intent=asking(FY2024, entities=("ACME_HK", "ACME_MO")),
    )
    assert fabricated_numbers(answer) == []


def test_codes_documents_and_locators_hold_no_values() -> None:
    text = zh.found(
        "ACME_HK2 FY2024 REVENUE_3", "2,850 百万美元", "book_2021.xlsx", "sheet=HK,cell=C4"
    )
    answer = result(
        text,
        tool_results=[found(doc="book_2021.xlsx", locator="sheet=HK,cell=C4")],
        periods=[FY2024],
    )
    assert fabricated_numbers(answer) == []


def test_the_default_channel_decides_which_facts_were_asked() -> None:
    direct = found(1200.0, channel="DIRECT")
    answer = result("ACME_HK FY2024 REVENUE：1200 USD_M", tool_results=[direct], periods=[FY2024])
    assert fabricated_numbers(answer) == structured("1200")
    assert fabricated_numbers(answer, default_channel="DIRECT") == []


# --------------------------------------------------------------------------- composite answers

COMPOSITE_NARRATIVE = section(
    "香港收入增长主要受代理人渠道带动。 [1] 2024年代理人数量增至13,240人。 [1]", AGENTS
)


def composite_answer(
    structured_part: str, narrative_part: NarrativeSection = COMPOSITE_NARRATIVE
) -> list[Fabrication]:
    answer = result(
        composite(structured_part, narrative_part),
        route=Route.COMPOSITE,
        tool_results=[FOUND_2025, found()],
        sources=[SOURCE_2025, SOURCE, AGENTS.source],
        intent=asking(FY2025, growth=True, route=Route.COMPOSITE),
        narrative=narrative_part,
    )
    return fabricated_numbers(answer)


def test_a_composite_answer_with_facts_and_grounded_attribution_is_clean() -> None:
    assert composite_answer(GROWTH_LINES) == []


def test_a_number_planted_in_the_structured_part_of_a_composite_answer_counts() -> None:
    assert composite_answer(f"{GROWTH_LINES}\n另有一次性收入 77 USD_M。") == structured("77")


def test_a_passages_number_is_not_a_value_for_the_structured_part() -> None:
    """The restated 2,880 is in a passage; the structured part may still only state facts."""
    restated = passage(1, "香港FY2024收入按新会计政策重述为2,880百万美元。")
    narrative_part = section("香港FY2024收入按新会计政策重述。 [1]", restated)
    planted = GROWTH_LINES.replace(FOUND_LINE, FOUND_LINE.replace("2,850", "2,880"))
    assert composite_answer(planted, narrative_part) == structured("2,880")


def test_a_number_planted_in_the_attribution_of_a_composite_answer_counts() -> None:
    planted = section("香港收入增长主要受代理人渠道带动，代理人数量增至14,020人。 [1]", AGENTS)
    assert composite_answer(GROWTH_LINES, planted) == narrative("14,020")


def test_text_after_the_attribution_is_checked_too() -> None:
    answer = result(
        composite(GROWTH_LINES, COMPOSITE_NARRATIVE) + "\n附注：FY2026 预计 3,400 USD_M。",
        route=Route.COMPOSITE,
        tool_results=[FOUND_2025, found()],
        sources=[SOURCE_2025, SOURCE, AGENTS.source],
        intent=asking(FY2025, growth=True, route=Route.COMPOSITE),
        narrative=COMPOSITE_NARRATIVE,
    )
    assert fabricated_numbers(answer) == structured("2026", "3,400")


def test_a_found_value_is_not_grounding_for_an_attribution_sentence() -> None:
    planted = section("香港收入达到3105百万美元。 [1]", AGENTS)
    assert composite_answer(GROWTH_LINES, planted) == narrative("3105")


# --------------------------------------------------------------------------- narrative answers


def narrative_answer(
    body: str, citations: tuple[Citation, ...] = (AGENTS, RBC)
) -> list[Fabrication]:
    part = section(body, *citations)
    answer = result(
        part.text,
        kind=AnswerKind.NARRATIVE,
        route=Route.NARRATIVE,
        sources=[c.source for c in citations],
        intent=asking(route=Route.NARRATIVE, metrics=()),
        narrative=part,
    )
    return fabricated_numbers(answer)


def test_a_narrative_answer_of_cited_numbers_is_clean() -> None:
    body = "2024年代理人数量增至13,240人。 [1] 风险为本资本制度于2024年正式实施。 [2]"
    assert narrative_answer(body) == []


def test_a_number_only_another_passage_holds_counts() -> None:
    """14,020 is in passage [2], but the sentence that states it cites [1]."""
    body = "2024年代理人数量增至13,240人。 [1] 代理人目标为14,020人。 [1]"
    assert narrative_answer(body) == narrative("14,020")


def test_a_number_no_passage_holds_counts() -> None:
    assert narrative_answer("代理人数量增至15,000人。 [1][2]") == narrative("15,000")


def test_a_sentence_citing_only_a_passage_that_does_not_exist_is_grounded_in_nothing() -> None:
    assert narrative_answer("代理人目标为14,020人。 [9]") == narrative("14,020")


def test_a_sentence_citing_nothing_may_use_any_cited_passage() -> None:
    assert narrative_answer("2025年目标为14,020人。") == []
    assert narrative_answer("2025年目标为14,500人。") == narrative("14,500")


def test_citation_markers_and_separators_are_not_numbers() -> None:
    """[2] is not a number of passage [2]; 13240 is the passage's 13,240."""
    assert narrative_answer("代理人数量增至13240人。 [1] 制度已实施。 [2]") == []


def test_a_citation_inside_the_sentence_binds_it_too() -> None:
    assert narrative_answer("2025年目标为14,020人[2]，2024年为13,240人[1]。") == []


# --------------------------------------------------------------------------- refusals


def test_the_asked_periods_digits_are_not_fabrication() -> None:
    answer = result(
        NOT_FOUND_2019,
        kind=AnswerKind.NOT_FOUND,
        tool_results=[not_found(FY2019)],
        periods=[FY2019],
    )
    assert fabricated_numbers(answer) == []


def test_a_number_planted_in_a_not_found_refusal_counts() -> None:
    answer = result(NOT_FOUND_2019 + " 估计约 1702。", kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    assert fabricated_numbers(answer) == structured("1702")


def test_a_period_nobody_asked_for_counts() -> None:
    answer = result(
        NOT_FOUND_2019 + " FY2023 为 1205。", kind=AnswerKind.NOT_FOUND, periods=[FY2019]
    )
    assert fabricated_numbers(answer) == structured("2023", "1205")


def test_a_period_reported_not_found_is_allowed() -> None:
    """The base year of a growth question the store lacks, named by the not-found line."""
    text = zh.not_found("REVENUE", "ACME_HK", "FY2024", "TOTAL")
    answer = result(text, kind=AnswerKind.NOT_FOUND, tool_results=[not_found(FY2024)])
    assert fabricated_numbers(answer) == []


def test_an_unrecognised_parameters_raw_echo_is_allowed() -> None:
    answer = result(
        zh.unrecognized("period", "2025Q7"),
        kind=AnswerKind.UNRECOGNIZED,
        tool_results=[UnrecognizedParam("period", "2025Q7")],
    )
    assert fabricated_numbers(answer) == []


def test_the_users_unknown_and_competitor_names_are_echoes() -> None:
    unknown = result(
        zh.ask_entity(["Zeta9"], ["香港（ACME_HK）"]),
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ASK_FIRST,
        intent=asking(unknown_entities=("Zeta9",)),
    )
    rival = result(
        zh.refusal("Rival360", "ACME"),
        kind=AnswerKind.REFUSED,
        mode=ClarifyMode.OUT_OF_SCOPE_ENTITY,
        intent=asking(external_entity="Rival360"),
    )
    assert fabricated_numbers(unknown) == []
    assert fabricated_numbers(rival) == []


# --------------------------------------------------------------------------- clarification

ASSUMPTION = zh.assumption(None, "FY2025", ["FY2024", "2026H1"])


def test_a_number_planted_in_a_clarifying_question_counts() -> None:
    answer = result(
        zh.ask_metric(["收入（REVENUE）", "营运利润（OPERATING_PROFIT）"]) + "（去年收入约 3105）",
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ASK_FIRST,
        reason=ClarifyReason.MISSING_METRIC,
        intent=asking(FY2025, metrics=()),
    )
    assert fabricated_numbers(answer) == structured("3105")


def test_the_assumed_period_and_the_narrowing_options_are_allowed() -> None:
    answer = result(
        f"{ASSUMPTION}\n{FOUND_2025_LINE}",
        mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS,
        tool_results=[FOUND_2025],
        sources=[SOURCE_2025],
        periods=[FY2025],
        assumed_period=FY2025,
        assumption_note=ASSUMPTION,
        narrowing_options=("FY2024", "2026H1"),
    )
    assert fabricated_numbers(answer) == []


def test_options_the_gateway_did_not_offer_count() -> None:
    answer = result(
        ASSUMPTION,
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS,
        assumed_period=FY2025,
        assumption_note=ASSUMPTION,
    )
    assert fabricated_numbers(answer) == structured("2024", "2026", "1")


def test_the_assumed_period_alone_is_allowed() -> None:
    """The period the gateway filled in, even when the intent does not carry it."""
    answer = result(
        zh.assumption(None, "FY2025", []),
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS,
        assumed_period=FY2025,
    )
    assert fabricated_numbers(answer) == []


# --------------------------------------------------------------------------- an oracle's values


def test_allowed_values_replace_what_the_result_found() -> None:
    """A test that knows the true value judges against it, not against the tool results."""
    restated = result(
        FOUND_LINE.replace("2,850", "2,880"), tool_results=[found(2880.0)], periods=[FY2024]
    )
    assert fabricated_numbers(restated) == []
    assert fabricated_numbers(restated, allowed_values=[2850.0]) == structured("2,880")
    assert fabricated_numbers(restated, allowed_values=[2880.0]) == []


def test_allowed_values_also_allow_their_arithmetic() -> None:
    unfound = result(
        GROWTH_LINES, sources=[SOURCE_2025, SOURCE], intent=asking(FY2025, growth=True)
    )
    assert fabricated_numbers(unfound) == structured("3,105", "2,850", "255", "8.95")
    assert fabricated_numbers(unfound, allowed_values=[3105.0, 2850.0]) == []


def test_a_fabrication_prints_its_number_and_part() -> None:
    assert str(Fabrication("1702", "structured")) == "1702 (structured)"


# --------------------------------------------------------------------------- asked slots


def test_asked_slots_are_the_product_of_the_asked_slots() -> None:
    intent = asking(FY2024, FY2025, entities=("ACME_HK", "ACME_MO"))
    assert asked_slots(intent) == {
        Slots("REVENUE", e, p, "TOTAL") for e in ("ACME_HK", "ACME_MO") for p in (FY2024, FY2025)
    }


def test_a_growth_question_also_asks_the_base_year() -> None:
    assert asked_slots(asking(FY2025, growth=True)) == {
        Slots("REVENUE", "ACME_HK", FY2025, "TOTAL"),
        Slots("REVENUE", "ACME_HK", FY2024, "TOTAL"),
    }


def test_the_single_slots_stand_in_for_empty_lists_and_the_channel_defaults() -> None:
    intent = asking(
        metrics=(), entities=(), metric="NBV", entity="ACME_CN", period=Period(2025, "H1")
    )
    assert asked_slots(intent, "DIRECT") == {Slots("NBV", "ACME_CN", Period(2025, "H1"), "DIRECT")}
    named = asking(FY2024, channel="AGENCY")
    assert asked_slots(named, "DIRECT") == {Slots("REVENUE", "ACME_HK", FY2024, "AGENCY")}


def test_a_narrative_sentence_may_name_its_source_and_the_asked_period() -> None:
    """A model that echoes the prompt's source line or the question's period states no value."""
    report = passage(1, "香港收入增长来自代理人渠道。", doc="reports/ACME_annual_report_2025.pdf")
    echo = (
        "[1] (source: reports/ACME_annual_report_2025.pdf · section=1,para=1) "
        "FY2024 增长来自代理人渠道。"
    )

    def answer(body: str) -> list[Fabrication]:
        part = section(body, report)
        return fabricated_numbers(
            result(
                part.text,
                kind=AnswerKind.NARRATIVE,
                route=Route.NARRATIVE,
                sources=[report.source],
                intent=asking(Period(2024, "FY"), route=Route.NARRATIVE, metrics=()),
                narrative=part,
            )
        )

    assert answer(echo) == []
    # The same sentence with a figure of its own is still caught.
    assert [f.number for f in answer(echo + " 增长 12%。 [1]")] == ["12"]


def test_a_profile_name_holding_digits_is_a_name_not_a_number() -> None:
    """Answers print names, not codes; a unit named "Zone 7" states no 7."""
    text = zh.found("Zone 7 FY2024 收入", "2,850 百万美元", SOURCE.doc, SOURCE.locator)
    answer = result(text, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    assert fabricated_numbers(answer) == structured("7")
    assert fabricated_numbers(answer, names=["Zone 7", "收入"]) == []
    assert fabricated_numbers(answer, names=["Zone 8"]) == structured("7")


# --------------------------------------------------------------------------- row labels


RESTATED = "收入（2019年重述，百万美元）"


def _labelled(label: str | None) -> list[Fabrication]:
    fact = replace(found(), row_label=label)
    line = zh.found(zh.row_labelled("ACME_HK FY2024 REVENUE", RESTATED), "2,850 百万美元", DOC, LOC)
    answer = result(line, tool_results=[fact], sources=[SOURCE], periods=[FY2024])
    return fabricated_numbers(answer)


def test_the_digits_of_a_found_facts_row_label_state_no_value() -> None:
    # The label is quoted as the document writes it, like a locator: "2019" names the row.
    assert _labelled(RESTATED) == []


def test_a_row_label_the_fact_does_not_carry_is_counted() -> None:
    # The same line with a label no found fact has: its year is a number the answer states.
    assert _labelled(None) == structured("2019")
    assert _labelled("收入（百万美元）") == structured("2019")
