"""Each gate, the fabrication and forbidden checks and narrative recall, on hand-made answers
(no engine involved)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragspine.agent.messages import zh
from ragspine.agent.types import (
    AnswerKind,
    ClarifyMode,
    ClarifyReason,
    Route,
    Source,
    ToolResult,
)
from ragspine.eval.scoring import (
    GATE_CITATION,
    GATE_CLARIFICATION,
    GATE_NUMERIC,
    GATE_REFUSAL,
    GATES,
    Gate,
    citation_validity,
    clarification_appropriateness,
    forbidden_hits,
    is_refusal,
    narrative_retrieval,
    numeric_accuracy,
    refusal_appropriateness,
    score_case,
)
from tests.eval.answers import (
    DOC,
    FOUND_LINE,
    FY2019,
    FY2023,
    FY2024,
    FY2025,
    HK_2024,
    LOC,
    NOT_FOUND_2019,
    SOURCE,
    asking,
    case,
    found,
    not_found,
    passage,
    result,
    section,
)

ASSUMPTION = "【假设】未指定期间，按最近完整财年 FY2025 回答（如需收窄：FY2024 / 2026H1）"


def test_the_four_gates_in_report_order() -> None:
    assert GATES == (GATE_NUMERIC, GATE_CITATION, GATE_REFUSAL, GATE_CLARIFICATION)
    assert [g.value for g in GATES] == [
        "numeric_accuracy",
        "citation_validity",
        "refusal_appropriateness",
        "clarification_appropriateness",
    ]
    assert Gate.parse(" Citation_Validity ") is Gate.CITATION
    with pytest.raises(ValueError, match="unknown gate 'speed'; valid options: numeric_accuracy"):
        Gate.parse("speed")


# --------------------------------------------------------------------------- numeric accuracy


def test_numeric_passes_when_the_fact_is_found_and_stated_with_its_unit() -> None:
    answer = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, []) is True


@pytest.mark.parametrize(
    "text",
    ["香港：2,850 百万美元", "Hong Kong: US$ 2,850 m", "香港：2850 百万美元", "x US$ 2850 m"],
)
def test_numeric_reads_the_value_as_a_person_reads_it(text: str) -> None:
    answer = result(text, tool_results=[found()])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, []) is True


@pytest.mark.parametrize(
    ("text", "tool_result"),
    [
        ("香港：2,880 百万美元", found(2880.0)),  # the restated, unapproved figure
        ("香港：2,850 百万人民币", found(unit="CNY_M")),  # wrong unit
        ("香港：2,850", found()),  # the value without its unit
        ("香港：2,850 百万美元", found(period=FY2023)),  # the fact of another period
        ("香港：2,850 百万美元", found(channel="AGENCY")),  # the fact of another channel
        ("香港：2,850 百万美元", not_found(FY2024)),
    ],
)
def test_numeric_fails_on_a_wrong_or_unstated_value(text: str, tool_result: ToolResult) -> None:
    failures: list[str] = []
    answer = result(text, tool_results=[tool_result])
    assert numeric_accuracy(case(values=(HK_2024,)), answer, failures) is False
    assert failures and all(f.startswith("REVENUE/ACME_HK/FY2024/TOTAL: ") for f in failures)


def test_numeric_requires_every_derived_string() -> None:
    answer = result(f"{FOUND_LINE}\n变化：+160 百万美元（+5.94%）", tool_results=[found()])
    for derived in (("+160 USD_M", "+5.9%"), ("+160 USD_M", "+5.94%"), ("+5.95%",)):
        assert numeric_accuracy(case(values=(HK_2024,), derived=derived), answer, [])
    for missing in ("+255 USD_M", "-160 USD_M", "+160 CNY_M", "+6.0%", "-5.9%", "+5.8%"):
        failures: list[str] = []
        assert not numeric_accuracy(case(derived=(missing,)), answer, failures)
        assert failures == [f"answer lacks {missing!r}"]


def test_numeric_does_not_apply_without_values() -> None:
    refusal = result("查不到", kind=AnswerKind.NOT_FOUND)
    assert numeric_accuracy(case(refuse=True), refusal, []) is None


# --------------------------------------------------------------------------- citation validity


def test_citation_needs_the_source_listed_and_named_in_the_answer() -> None:
    good = result(FOUND_LINE, sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), good, []) is True


def test_citation_fails_when_the_source_is_only_in_the_text() -> None:
    failures: list[str] = []
    assert citation_validity(case(values=(HK_2024,)), result(FOUND_LINE), failures) is False
    assert "not in sources" in failures[0]


def test_citation_fails_when_the_source_is_only_listed() -> None:
    answer = result("香港：2850 USD_M", sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_citation_wants_document_and_locator_on_one_line() -> None:
    answer = result(f"香港：2850 USD_M（来源：{SOURCE.doc}）\n{SOURCE.locator}", sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_citation_fails_on_any_unnamed_source() -> None:
    extra = Source("memos/x.md", "section=1,para=1")
    answer = result(FOUND_LINE, sources=[SOURCE, extra])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is False


def test_a_narrative_case_must_cite_something() -> None:
    narrative = case(narrative_docs=("memos/HK_Regulatory_Memo.docx",))
    nothing = result("未检索到", kind=AnswerKind.NO_CONTEXT)
    assert citation_validity(narrative, nothing, []) is False
    part = section("RBC 已实施。 [1]", passage(1, "RBC 已实施。", "memos/x.md"))
    cited = result(part.text, kind=AnswerKind.NARRATIVE, sources=list(part.sources))
    assert citation_validity(narrative, cited, []) is True


COPIED = "Agency excellence in Hong Kong comes first."


def test_a_passage_in_two_files_is_quoted_once_citing_both() -> None:
    narrative = case(narrative_docs=("memos/Strategy.md",))
    original, copy = passage(1, COPIED, "memos/Strategy.md"), passage(1, COPIED, "shared/copy.md")
    merged = section(f"{COPIED} [1]", original, copy)
    once = result(merged.text, kind=AnswerKind.NARRATIVE, sources=list(merged.sources))
    assert citation_validity(narrative, once, []) is True
    twice = section(f"{COPIED} [1] {COPIED} [2]", original, replace(copy, number=2))
    failures: list[str] = []
    answer = result(twice.text, kind=AnswerKind.NARRATIVE, sources=list(twice.sources))
    assert citation_validity(narrative, answer, failures) is False
    assert failures == [f"passage quoted twice: {COPIED!r}"]


def test_every_copy_named_in_cited_docs_must_be_cited() -> None:
    copies = ("memos/Strategy.md", "shared/copy.md")
    original, copy = passage(1, COPIED, copies[0]), passage(1, COPIED, copies[1])
    both = section(f"{COPIED} [1]", original, copy)
    answer = result(both.text, kind=AnswerKind.NARRATIVE, sources=list(both.sources))
    assert citation_validity(case(cited_docs=copies), answer, []) is True
    one = section(f"{COPIED} [1]", original)
    failures: list[str] = []
    answer = result(one.text, kind=AnswerKind.NARRATIVE, sources=list(one.sources))
    assert citation_validity(case(cited_docs=copies), answer, failures) is False
    assert failures == ["shared/copy.md not in sources"]


def test_a_source_listed_twice_fails_citation() -> None:
    failures: list[str] = []
    answer = result(FOUND_LINE, sources=[SOURCE, SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, failures) is False
    assert failures == [f"source {SOURCE.doc} · {SOURCE.locator} listed twice"]


def test_our_own_uncited_messages_may_repeat() -> None:
    repeated = "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"
    answer = result(f"{FOUND_LINE}\n{repeated}\n{repeated}", sources=[SOURCE])
    assert citation_validity(case(values=(HK_2024,)), answer, []) is True


# --------------------------------------------------------------------------- refusal


@pytest.mark.parametrize(
    ("refuse", "kind", "ok"),
    [
        (True, AnswerKind.NOT_FOUND, True),
        (True, AnswerKind.REFUSED, True),
        (True, AnswerKind.CLARIFY, True),
        (True, AnswerKind.NO_CONTEXT, True),
        (True, AnswerKind.UNRECOGNIZED, True),
        (True, AnswerKind.FOUND, False),
        (True, AnswerKind.PARTIAL, False),
        (True, AnswerKind.DEGRADED, False),
        (False, AnswerKind.FOUND, True),
        (False, AnswerKind.PARTIAL, True),
        (False, AnswerKind.NARRATIVE, True),
        (False, AnswerKind.NOT_FOUND, False),
        (False, AnswerKind.CLARIFY, False),
    ],
)
def test_refusal_is_judged_in_both_directions(refuse: bool, kind: AnswerKind, ok: bool) -> None:
    answer = result("…", kind=kind)
    assert is_refusal(answer) is (kind in {k for k in AnswerKind if k.refuses})
    assert refusal_appropriateness(case(refuse=refuse), answer, []) is ok


def test_refusal_does_not_apply_when_unset() -> None:
    assert refusal_appropriateness(case(), result("…"), []) is None


# --------------------------------------------------------------------------- clarification


def test_clarification_compares_mode_and_reason() -> None:
    wanted = case(mode=ClarifyMode.ASK_FIRST, reason="missing_metric", refuse=True)
    asked = result(
        "请问…",
        kind=AnswerKind.CLARIFY,
        mode=ClarifyMode.ASK_FIRST,
        reason=ClarifyReason.MISSING_METRIC,
    )
    assert clarification_appropriateness(wanted, asked, []) is True
    wrong_reason = replace(
        asked, clarification=replace(asked.clarification, reason=ClarifyReason.UNKNOWN_ENTITY)
    )
    failures: list[str] = []
    assert clarification_appropriateness(wanted, wrong_reason, failures) is False
    assert failures == ["reason unknown_entity, expected missing_metric"]
    assert clarification_appropriateness(wanted, result("…"), []) is False


def test_clarification_does_not_apply_without_a_mode() -> None:
    assert clarification_appropriateness(case(refuse=False), result("…"), []) is None


def test_an_assumption_must_be_the_expected_one_and_surfaced() -> None:
    wanted = case(mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS, assumed={"period": "FY2025"})
    shown = result(
        f"{ASSUMPTION}\n…",
        mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS,
        assumed_period=FY2025,
        assumption_note=ASSUMPTION,
    )
    assert clarification_appropriateness(wanted, shown, []) is True
    hidden = replace(shown, answer="…")
    assert clarification_appropriateness(wanted, hidden, []) is False
    other = replace(shown, clarification=replace(shown.clarification, assumed_period=FY2024))
    assert clarification_appropriateness(wanted, other, []) is False


def test_an_assumption_made_where_none_was_expected_must_still_be_surfaced() -> None:
    """A case expecting only the mode still fails an assumption the answer does not show."""
    wanted = case(mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS)
    silent = result("…", mode=ClarifyMode.ANSWER_WITH_ASSUMPTIONS, assumed_period=FY2025)
    failures: list[str] = []
    assert clarification_appropriateness(wanted, silent, failures) is False
    assert failures == ["assumption not surfaced in the answer"]


# --------------------------------------------------------------------------- forbidden strings


def test_forbidden_strings_are_found_wherever_the_caller_can_read() -> None:
    secret = case(forbidden=("北极星", "board_minutes"))
    assert forbidden_hits(secret, result("项目代号“北极星”")) == ["北极星"]
    leaked_fact = found(doc="memos/Board_Minutes.docx")
    in_tool = result("查不到", tool_results=[leaked_fact])
    assert forbidden_hits(secret, in_tool) == ["board_minutes"]
    in_sources = result("查不到", sources=[Source("memos/Board_Minutes.docx", "p=1")])
    assert forbidden_hits(secret, in_sources) == ["board_minutes"]
    in_question = result("…", kind=AnswerKind.CLARIFY, question="北极星是哪个实体？")
    assert forbidden_hits(secret, in_question) == ["北极星"]
    assert forbidden_hits(secret, result("查不到")) == []
    assert forbidden_hits(case(), result("北极星")) == []


@pytest.mark.parametrize(
    ("answer", "forbidden"),
    [
        ("Change: -US$ 255 m (-8.22%)", "-255"),
        ("变化：-255 百万美元", "-255"),
        ("Hong Kong FY2025 Revenue: US$ 3,105 m", "3105"),
        ("Hong Kong FY2025 Revenue: US$ 3,105 m", "3105 USD_M"),
        ("香港：3,105 百万美元", "3105"),
        ("Margin: 63.80%", "63.8%"),
    ],
)
def test_a_forbidden_value_is_found_however_the_answer_shows_it(
    answer: str, forbidden: str
) -> None:
    assert forbidden_hits(case(forbidden=(forbidden,)), result(answer)) == [forbidden]


def test_a_forbidden_value_is_not_found_in_another_value() -> None:
    shown = result("Change: +US$ 255 m; Revenue: US$ 3,106 m")
    assert forbidden_hits(case(forbidden=("-255", "3105")), shown) == []


# --------------------------------------------------------------------------- narrative recall


def test_narrative_recall_uses_the_retrievers_order_per_document() -> None:
    wanted = case(narrative_docs=("memos/a.md", "memos/b.md"))
    traced = result(
        "…",
        kind=AnswerKind.NARRATIVE,
        trace={"chunk_ids": ["decks/x.pptx#3", "memos/b.md#2", "memos/b.md#4", "memos/c.md#1"]},
    )
    assert narrative_retrieval(wanted, traced, k=5) == (0.5, 0.5)
    assert narrative_retrieval(wanted, traced, k=1) == (0.0, 0.0)


def test_narrative_recall_falls_back_to_the_sources() -> None:
    wanted = case(narrative_docs=("memos/a.md",))
    cited = result("…", kind=AnswerKind.NARRATIVE, sources=[Source("memos/a.md", "p=1")])
    assert narrative_retrieval(wanted, cited, k=5) == (1.0, 1.0)
    assert narrative_retrieval(case(), cited, k=5) == (None, None)


# --------------------------------------------------------------------------- one case


def test_a_correct_answer_passes_every_applicable_gate() -> None:
    good = result(FOUND_LINE, tool_results=[found()], sources=[SOURCE], periods=[FY2024])
    score = score_case(case(values=(HK_2024,), refuse=False, mode=ClarifyMode.NONE), good)
    assert score.gates == dict.fromkeys(GATES, True)
    assert score.passed and score.failures == () and score.fabricated == ()
    assert "answer" not in score.to_dict()


def test_a_number_planted_in_any_answer_fails_the_case_whatever_its_gates() -> None:
    """Fabrication is checked on every answer kind, not only on refusals."""
    planted = result(
        f"{FOUND_LINE}\n预计下年约 2990 USD_M。",
        tool_results=[found()],
        sources=[SOURCE],
        periods=[FY2024],
    )
    score = score_case(case(values=(HK_2024,), refuse=False), planted)
    assert all(score.gates[g] is not False for g in GATES)
    assert score.fabricated == ("2990 (structured)",)
    assert score.failures == ("states untraceable number(s) 2990 (structured)",)
    assert not score.passed
    shown = score.to_dict()
    assert shown["answer"] == planted.answer and shown["fabricated"] == ["2990 (structured)"]


def test_a_refusal_stating_a_number_fails_the_case() -> None:
    lying = result(NOT_FOUND_2019 + " 估计约 1702。", kind=AnswerKind.NOT_FOUND, periods=[FY2019])
    score = score_case(case(refuse=True), lying)
    assert score.gates[GATE_REFUSAL] is True
    assert score.fabricated == ("1702 (structured)",) and not score.passed


def test_a_narrative_number_its_citation_lacks_fails_the_case() -> None:
    part = section("代理人增至14,020人。 [1]", passage(1, "代理人增至13,240人。"))
    answer = result(
        part.text,
        kind=AnswerKind.NARRATIVE,
        route=Route.NARRATIVE,
        sources=list(part.sources),
        narrative=part,
    )
    score = score_case(case(narrative_docs=("memos/HK_Memo.docx",), refuse=False), answer)
    assert score.gates[GATE_CITATION] is True
    assert score.fabricated == ("14,020 (narrative)",) and not score.passed


def test_the_default_channel_reaches_the_fabrication_check() -> None:
    """The ground truth gives ACME_HK FY2024 NBV through the agency channel as 812: the value
    of the asked key only when a question naming no channel asks for that channel."""
    agency = found(812.0, metric="NBV", channel="AGENCY")
    answer = result(
        zh.found("ACME_HK FY2024 NBV", "812 百万美元", DOC, LOC),
        tool_results=[agency],
        sources=[SOURCE],
        intent=asking(FY2024, metrics=("NBV",)),
    )
    assert score_case(case(), answer).fabricated == ("812 (structured)",)
    assert score_case(case(), answer, default_channel="AGENCY").fabricated == ()


def test_a_shown_forbidden_string_fails_the_case() -> None:
    leak = result("项目代号“北极星”", kind=AnswerKind.REFUSED)
    score = score_case(case(forbidden=("北极星",), refuse=True), leak)
    assert score.gates[GATE_REFUSAL] is True
    assert score.forbidden_hits == ("北极星",)
    assert score.failures == ("shows forbidden 北极星",) and not score.passed
