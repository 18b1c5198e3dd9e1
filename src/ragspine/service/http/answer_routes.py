"""Answers over HTTP: ``/v1/ask`` and its Server-Sent Events twin ``/v1/ask/stream``, the
OpenAI-compatible ``/v1/models`` and ``/v1/chat/completions``, and ``/v1/sources/preview``, the
cells or passage behind a source an answer names."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date
from typing import Annotated, Literal

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import Response
from fastapi.sse import EventSourceResponse, format_sse_event

from ragspine.agent.response import SourceRef
from ragspine.profile.display import Names
from ragspine.service.answering import paragraphs
from ragspine.service.http.chat_history import chat_turns
from ragspine.service.http.deps import (
    AUTH,
    AUTH_JSON,
    KEYED,
    KEYED_JSON,
    CallerDep,
    Service,
    caller_of,
    errors,
    json_body_docs,
    json_model,
    presented_token,
)
from ragspine.service.http.edge import request_id_of
from ragspine.service.http.previews import preview
from ragspine.service.http.schemas import (
    MODEL_ID,
    AskRequest,
    AssistantMessage,
    ChatChoice,
    ChatCompletion,
    ChatCompletionRequest,
    ModelCard,
    ModelList,
    ServiceAskResponse,
    SourcePreview,
)
from ragspine.service.keys.store import Caller


async def _answer(
    service: Service,
    request: Request,
    caller: Caller,
    question: str,
    reference_date: date | None,
    endpoint: str,
    previous: list[str],
) -> ServiceAskResponse:
    """The whole answer, every gate and guard decided, before anything is sent; ``previous``
    are the conversation's earlier user questions (``service.http.chat_history``)."""
    rid = request_id_of(request)
    started = time.perf_counter()
    answer = await service.answerer.answer_now(
        question, caller, reference_date=reference_date, request_id=rid, previous=previous
    )
    service.metrics.answered(
        endpoint, answer.route, answer.answer_kind, time.perf_counter() - started
    )
    return answer


# Served straight from the edge middleware (``direct.py``): they take ``Request`` alone.
DIRECT_PATHS = ("/v1/ask", "/v1/ask/stream")


def install_answers(app: FastAPI, service: Service) -> None:
    # Both take ``Request`` alone and read the key and the body themselves (``caller_of``,
    # ``json_model``): the hottest endpoint solves no dependency and no body field, and
    # ``/v1/ask`` sends its answer serialised once (docs/service.md, "What a question costs
    # around the engine"). OpenAPI still shows the body, the key schemes and the answer.
    async def read(request: Request) -> tuple[AskRequest, Caller]:
        caller = await caller_of(request, presented_token(request))
        return await json_model(request, AskRequest), caller

    @app.post(
        "/v1/ask",
        tags=["answers"],
        response_model=ServiceAskResponse,
        responses=errors(*KEYED_JSON),
        openapi_extra=json_body_docs(AskRequest),
    )
    async def ask(request: Request) -> Response:
        """Answer one question with its sources; ``cache.hit`` says a vetted FAQ item
        answered."""
        body, caller = await read(request)
        answer = await _answer(
            service, request, caller, body.question, body.reference_date, "ask", body.history
        )
        # The serializer's bytes as they are: ``model_dump_json`` would decode them into a
        # str that ``Response`` encodes again.
        encoded = ServiceAskResponse.__pydantic_serializer__.to_json(answer)
        return Response(encoded, media_type="application/json")

    @app.post(
        "/v1/ask/stream",
        tags=["answers"],
        responses={**errors(*KEYED_JSON), 200: {"content": {"text/event-stream": {}}}},
        openapi_extra=json_body_docs(AskRequest),
    )
    async def ask_stream(request: Request) -> Response:
        """The answer as Server-Sent Events: ``meta`` (route, kind, clarification and the
        cache block), one ``part`` per paragraph, ``sources``, then ``done``. The answer is
        complete before the first byte, so an error is still a JSON error response."""
        body, caller = await read(request)
        answer = await _answer(
            service, request, caller, body.question, body.reference_date, "ask_stream", body.history
        )
        return EventSourceResponse(_ask_events(answer))


def _event(name: str, data: object) -> bytes:
    return format_sse_event(event=name, data_str=json.dumps(data, ensure_ascii=False))


def _ask_events(answer: ServiceAskResponse) -> Iterator[bytes]:
    yield _event(
        "meta",
        {
            "request_id": answer.request_id,
            "route": answer.route,
            "answer_kind": answer.answer_kind,
            "clarification": answer.clarification.model_dump(),
            "cache": answer.cache.model_dump(),
            "tool_results": answer.tool_results,
            "language": answer.language,
        },
    )
    for index, text in enumerate(paragraphs(answer.answer)):
        yield _event("part", {"index": index, "text": text})
    yield _event("sources", {"sources": [s.model_dump() for s in answer.sources]})
    yield _event("done", {"request_id": answer.request_id})


def sources_text(sources: list[SourceRef]) -> str:
    """The sources as the chat answer names them (the CLI's list, one per line)."""
    if not sources:
        return "Sources: none"
    return "\n".join(["Sources:", *(f"- {s.doc} · {s.locator}" for s in sources)])


def install_chat(app: FastAPI, service: Service) -> None:
    @app.get("/v1/models", tags=["chat"], dependencies=AUTH, responses=errors(*KEYED))
    def models() -> ModelList:
        """The one model this service answers as."""
        return ModelList(data=[ModelCard()])

    @app.post(
        "/v1/chat/completions",
        tags=["chat"],
        dependencies=AUTH_JSON,
        responses={
            **errors(*KEYED_JSON),
            200: {"content": {"text/event-stream": {}}, "model": ChatCompletion},
        },
    )
    async def chat_completions(
        request: Request, body: ChatCompletionRequest, caller: CallerDep
    ) -> Response:
        """OpenAI-compatible chat: the last user message is the question, and the earlier user
        messages the conversation a follow-up takes its missing slots from; the reply names its
        sources and carries them in ``sources``. ``stream`` sends ``chat.completion.chunk``
        events ending with ``data: [DONE]``."""
        question, previous = chat_turns(body.messages)
        answer = await _answer(service, request, caller, question, None, "chat", previous)
        created = int(time.time())
        completion_id = f"chatcmpl-{answer.request_id}"
        if body.stream:
            return EventSourceResponse(_chat_chunks(answer, completion_id, created))
        text = f"{answer.answer}\n\n{sources_text(answer.sources)}"
        completion = ChatCompletion(
            id=completion_id,
            created=created,
            choices=[ChatChoice(message=AssistantMessage(content=text))],
            sources=answer.sources,
            request_id=answer.request_id,
            route=answer.route,
            answer_kind=answer.answer_kind,
        )
        return Response(completion.model_dump_json(), media_type="application/json")


def _chat_chunks(answer: ServiceAskResponse, completion_id: str, created: int) -> Iterator[bytes]:
    def chunk(delta: dict[str, str], finish: str | None = None, **extra: object) -> bytes:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": MODEL_ID,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return format_sse_event(data_str=json.dumps(data, ensure_ascii=False))

    yield chunk({"role": "assistant", "content": ""})
    for index, text in enumerate(paragraphs(answer.answer)):
        yield chunk({"content": text if index == 0 else f"\n\n{text}"})
    yield chunk({"content": f"\n\n{sources_text(answer.sources)}"})
    yield chunk(
        {},
        "stop",
        sources=[s.model_dump() for s in answer.sources],
        request_id=answer.request_id,
        route=answer.route,
        answer_kind=answer.answer_kind,
    )
    yield format_sse_event(data_str="[DONE]")


def install_previews(app: FastAPI, service: Service) -> None:
    @app.get(
        "/v1/sources/preview",
        tags=["answers"],
        dependencies=AUTH,
        responses=errors(*KEYED, 404, 422),
    )
    async def source_preview(
        caller: CallerDep,
        doc: Annotated[str, Query(min_length=1, max_length=1_000)],
        locator: Annotated[str, Query(min_length=1, max_length=1_000)],
        lang: Annotated[Literal["zh", "en"], Query()] = "en",
    ) -> SourcePreview:
        """The cells or passage behind a source; 404 when none exists within the caller's
        clearance (the same answer as for a source that was never ingested)."""
        found = await service.answerer.run(
            lambda: preview(
                service.answerer.engine_for(caller.clearance).store,
                doc,
                locator,
                caller.clearance,
                Names(service.backend.profile, lang),
            )
        )
        if found is None:
            raise HTTPException(404, "no such source")
        return found
