"""Hand-made typed answers for the eval tests: the shapes the engine returns, no engine run.

Answer lines are written with the engine's own wording (``agent.messages.zh``), so a test that
plants a number plants it in text shaped exactly like a real answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragspine.agent.messages import zh
from ragspine.agent.types import (
    AgentResult,
    AnswerKind,
    Citation,
    ClarificationResult,
    ClarifyMode,
    FactNotFound,
    FoundFact,
    NarrativeSection,
    ParsedIntent,
    Route,
    Slots,
    Source,
    SourceKind,
    ToolResult,
)
from ragspine.eval.cases import Expectation, ExpectedValue, GoldenCase
from ragspine.profile.periods import Period

FY2019 = Period(2019, "FY")
FY2023 = Period(2023, "FY")
FY2024 = Period(2024, "FY")
FY2025 = Period(2025, "FY")

DOC = "decks/ACME_FY2024_Review.pptx"
LOC = "slide=3,table=1,row=REVENUE,col=FY2024"
SOURCE = Source(DOC, LOC)
DOC_2025 = "decks/ACME_FY2025_Review.pptx"
LOC_2025 = "slide=2,table=1,row=REVENUE,col=FY2025"
HK_2024 = ExpectedValue("REVENUE", "ACME_HK", "FY2024", "TOTAL", 2850.0, "USD_M", DOC, LOC)

FOUND_LINE = zh.found("ACME_HK FY2024 REVENUE", "2,850 百万美元", DOC, LOC)
FOUND_2025_LINE = zh.found("ACME_HK FY2025 REVENUE", "3,105 百万美元", DOC_2025, LOC_2025)
NOT_FOUND_2019 = zh.not_found("REVENUE", "ACME_HK", "FY2019", "TOTAL")


def slots(
    period: Period = FY2024,
    *,
    metric: str = "REVENUE",
    entity: str = "ACME_HK",
    channel: str = "TOTAL",
) -> Slots:
    return Slots(metric, entity, period, channel)


def found(
    value: float = 2850.0,
    *,
    unit: str = "USD_M",
    period: Period = FY2024,
    metric: str = "REVENUE",
    entity: str = "ACME_HK",
    channel: str = "TOTAL",
    doc: str = DOC,
    locator: str = LOC,
) -> FoundFact:
    return FoundFact(
        slots(period, metric=metric, entity=entity, channel=channel),
        value,
        unit,
        Source(doc, locator),
    )


def not_found(period: Period, *, entity: str = "ACME_HK") -> FactNotFound:
    return FactNotFound(slots(period, entity=entity))


def asking(
    *periods: Period,
    entities: Sequence[str] = ("ACME_HK",),
    metrics: Sequence[str] = ("REVENUE",),
    route: Route = Route.STRUCTURED,
    **fields: Any,
) -> ParsedIntent:
    """The parsed intent of a question asking for ``metrics`` × ``entities`` × ``periods``."""
    return ParsedIntent(
        raw_question="q",
        route=route,
        metrics=tuple(metrics),
        entities=tuple(entities),
        periods=periods,
        **fields,
    )


def result(
    answer: str,
    *,
    kind: AnswerKind = AnswerKind.FOUND,
    mode: ClarifyMode = ClarifyMode.NONE,
    route: Route = Route.STRUCTURED,
    tool_results: Sequence[ToolResult] = (),
    sources: Sequence[Source] = (),
    periods: Sequence[Period] = (),
    intent: ParsedIntent | None = None,
    narrative: NarrativeSection | None = None,
    trace: dict[str, object] | None = None,
    **clarification: Any,
) -> AgentResult:
    """An answer as the engine returns it; the intent asks for ACME_HK REVENUE in ``periods``
    unless one is given."""
    return AgentResult(
        answer=answer,
        route=route,
        clarification=ClarificationResult(mode=mode, **clarification),
        tool_results=list(tool_results),
        sources=list(sources),
        answer_kind=kind,
        intent=intent if intent is not None else asking(*periods, route=route),
        trace=trace or {},
        narrative=narrative,
    )


def passage(number: int, text: str, doc: str = "memos/HK_Memo.docx") -> Citation:
    """Cited passage ``[number]`` of ``doc`` (its locator names the number)."""
    return Citation(number, Source(doc, f"section=1,para={number}", kind=SourceKind.PASSAGE), text)


def section(body: str, *citations: Citation) -> NarrativeSection:
    """A narrative section as the engine builds it: the body, then the sources footer."""
    footer = "\n".join(f"[{c.number}] {c.source.doc} · {c.source.locator}" for c in citations)
    return NarrativeSection(f"{body}\n来源：\n{footer}", citations, body=body)


def composite(structured: str, narrative: NarrativeSection) -> str:
    """The text of a composite answer: the structured lines, the heading, the narrative."""
    return f"{structured}\n\n{zh.NARRATIVE_HEADING}\n{narrative.text}"


def case(cid: str = "c1", *, known_issue: str = "", **expect: Any) -> GoldenCase:
    return GoldenCase(
        id=cid,
        question="q",
        tags=("found", "zh"),
        expect=Expectation(**expect),
        known_issue=known_issue,
    )
