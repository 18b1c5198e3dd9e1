"""The HTTP wire shapes. ``/v1/ask`` answers with the CLI's ``AskResponse`` plus the FAQ cache
block; the chat shapes follow OpenAI's chat completions closely enough for its SDK."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ragspine.agent.agent import MAX_QUESTION_CHARS
from ragspine.agent.conversation import MAX_PREVIOUS_QUESTIONS
from ragspine.agent.response import AskResponse, SourceRef

MODEL_ID = "ragspine"


class ErrorBody(BaseModel):
    type: str
    message: str
    request_id: str


class ErrorResponse(BaseModel):
    """Every error the service returns, whatever the status."""

    error: ErrorBody


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    reference_date: date | None = Field(
        default=None, description="Today's date for 'latest year' questions (YYYY-MM-DD)."
    )
    history: list[str] = Field(
        default_factory=list,
        max_length=MAX_PREVIOUS_QUESTIONS,
        description=(
            "The conversation's earlier questions, oldest first: a follow-up ('and in "
            "FY2023?') takes the slots it leaves out from them. Omit for a stand-alone question."
        ),
    )


class CacheInfo(BaseModel):
    """Whether a vetted FAQ answer served the question, and which item at which version."""

    # Frozen: every answer the agent gives shares one ``NO_CACHE`` (building one was 1% of a
    # structured answer).
    model_config = ConfigDict(frozen=True)

    hit: bool = False
    faq_id: str | None = None
    version: str | None = None


NO_CACHE = CacheInfo()


class ServiceAskResponse(AskResponse):
    cache: CacheInfo


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    status: Literal["ready"] = "ready"
    checks: dict[str, str]


class NotReady(ErrorResponse):
    checks: dict[str, str]


# --- OpenAI-compatible chat -------------------------------------------------------------------


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    # A string, or OpenAI's list of content parts ({"type": "text", "text": ...}).
    content: str | list[dict[str, object]] | None = None


class ChatCompletionRequest(BaseModel):
    # Sampling options (temperature, top_p...) are accepted and ignored: answers are grounded.
    model_config = ConfigDict(extra="allow")

    model: str = MODEL_ID
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str = MODEL_ID
    choices: list[ChatChoice]
    usage: Usage = Usage()
    sources: list[SourceRef]
    request_id: str
    route: str
    answer_kind: str


class ModelCard(BaseModel):
    id: str = MODEL_ID
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "ragspine"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


# --- jobs, review, previews -------------------------------------------------------------------


class JobAccepted(BaseModel):
    job_id: str
    # Empty when a worker serves the queue; otherwise why the job waits ("queued, no live
    # worker: ..."): it is kept and runs once a worker starts.
    note: str = ""


class JobFileOut(BaseModel):
    name: str
    outcome: str
    facts: int = 0
    chunks: int = 0
    review: int = 0
    warnings: list[str] = []
    error: str = ""


class JobOut(BaseModel):
    job_id: str
    state: Literal["queued", "running", "done", "failed", "superseded", "canceled"]
    progress: float
    files_total: int
    files_done: int
    results: list[JobFileOut]
    error: str = ""
    created_at: str = ""
    updated_at: str = ""


class ReviewItemOut(BaseModel):
    item_id: int
    doc: str
    locator: str
    reason: str
    detail: str
    state: str
    sensitivity: str
    proposed: dict[str, object] | None = None
    corrected_value: float | None = None
    created_at: str = ""
    resolved_at: str = ""
    # What a reviewer can do with it now: "approve" only where approving can work, "map" for
    # an unmapped label (``label``), "reject"; empty once decided.
    actions: list[str] = []
    label: str | None = None


class ReviewList(BaseModel):
    items: list[ReviewItemOut]


class ApproveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    correct: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description="Approve with this value instead of the proposed one.",
    )


class RejectRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(default="", max_length=2_000)


class ReviewDecision(BaseModel):
    item: ReviewItemOut
    changed: bool


class FactPreview(BaseModel):
    kind: Literal["fact"] = "fact"
    doc: str
    locator: str
    value: float
    unit: str
    metric: str
    entity: str
    period: str
    period_type: str
    channel: str
    # What a person reads, in the preview's language, beside the codes above; the exact unit
    # is ``unit_kind``, ``currency`` (None for a percent or a count) and ``scale`` (6: millions).
    entity_display: str = ""
    metric_display: str = ""
    channel_display: str = ""
    value_display: str = ""
    unit_display: str = ""
    unit_kind: str = ""
    currency: str | None = None
    scale: int | None = None


class PassagePreview(BaseModel):
    kind: Literal["passage"] = "passage"
    doc: str
    locator: str
    title: str
    text: str


class SourcePreview(BaseModel):
    """The cells (facts) and passages stored at one source, within the caller's clearance."""

    doc: str
    locator: str
    facts: list[FactPreview]
    passages: list[PassagePreview]
