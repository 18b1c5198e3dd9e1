"""The typed results of the MCP tools that have no ``/v1`` wire shape of their own."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ragspine.agent.response import SourceRef


class MetricResult(BaseModel):
    """``query_metric``'s tri-state, field for field the tool message the agent's model reads:
    ``found`` (value, unit, the slots and the source), ``not_found`` (the ``normalized``
    slots) or ``unrecognized_param`` (the ``param`` and the ``raw`` text sent for it)."""

    status: Literal["found", "not_found", "unrecognized_param"]
    value: float | None = None
    unit: str | None = None
    metric_code: str | None = None
    entity: str | None = None
    period_type: str | None = None
    period: str | None = None
    period_label: str | None = None
    channel: str | None = None
    source: SourceRef | None = None
    row_label: str | None = Field(
        default=None, description="The label of the row the value was read from, as written"
    )
    normalized: dict[str, str] | None = None
    param: str | None = Field(default=None, description="The parameter that could not be read")
    raw: str | None = Field(default=None, description="What was sent for it")


class Passage(BaseModel):
    doc: str
    locator: str
    title: str
    text: str
    score: float


class PassageList(BaseModel):
    passages: list[Passage]


class DocumentOut(BaseModel):
    doc: str
    kind: str
    sensitivity: str
    size_bytes: int


class DocumentList(BaseModel):
    documents: list[DocumentOut]
