"""The wire shape of an answer, shared by ``ragspine ask --json`` and the HTTP ``/v1/ask``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ragspine.agent.types import AgentResult


class SourceRef(BaseModel):
    model_config = ConfigDict(extra="allow")

    doc: str
    locator: str


class ClarificationOut(BaseModel):
    mode: str
    reason: str = ""
    question: str = ""
    assumption_note: str = ""
    assumed_slots: dict[str, str] = {}
    narrowing_options: list[str] = []


class AskResponse(BaseModel):
    answer: str
    route: str
    answer_kind: str
    clarification: ClarificationOut
    sources: list[SourceRef]
    request_id: str
    tool_results: list[dict[str, object]] = []


def to_response(result: AgentResult) -> AskResponse:
    clar = result.clarification
    return AskResponse(
        answer=result.answer,
        route=result.route,
        answer_kind=result.answer_kind,
        clarification=ClarificationOut(
            mode=clar.mode,
            reason=clar.reason,
            question=clar.question,
            assumption_note=clar.assumption_note,
            assumed_slots=dict(clar.assumed_slots),
            narrowing_options=list(clar.narrowing_options),
        ),
        sources=[SourceRef(**s.to_dict()) for s in result.sources],
        request_id=result.request_id,
        tool_results=[r.to_dict() for r in result.tool_results],
    )
