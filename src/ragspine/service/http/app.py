"""The HTTP app: ``create_app(settings)`` serves one workspace or one PostgreSQL deployment (see
docs/service.md and docs/scale-out.md).

Every endpoint but ``/healthz``, ``/readyz``, ``/metrics``, the OpenAPI pages and the web page
(``/`` and its ``/static`` files, whose own calls send the key) needs an API
key (``Authorization: Bearer <key>`` or ``X-API-Key``); the key's clearance decides what exists
for its caller, on every endpoint that returns stored text. Blocking work (the agent, store
reads, review decisions, writing uploads) runs on the answerer's thread pool, never on the
event loop.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from email.message import Message
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, File, Form, HTTPException, Query, Request, UploadFile
from fastapi import Path as PathParam
from fastapi.responses import PlainTextResponse, Response
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse, format_sse_event
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from ragspine import __version__
from ragspine.agent.response import SourceRef
from ragspine.errors import UsageError
from ragspine.ingestion import review
from ragspine.llm.factory import build_provider
from ragspine.llm.protocol import LLMProvider
from ragspine.profile.display import Names
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.embedding import check_backend
from ragspine.service.answering import Answerer, Overloaded, paragraphs
from ragspine.service.backends import Backend, PostgresBackend, WorkspaceBackend
from ragspine.service.faq.faq_cache import FaqCache, FaqLookup
from ragspine.service.http.chat_history import chat_turns
from ragspine.service.http.display_routes import install_display
from ragspine.service.http.document_routes import documents_router
from ragspine.service.http.edge import (
    UNAVAILABLE_RETRY_SECONDS,
    Edge,
    Metrics,
    error_response,
    install_error_handlers,
    request_id_of,
)
from ragspine.service.http.fact_routes import facts_router
from ragspine.service.http.previews import preview
from ragspine.service.http.review_routes import item_out, labels_mappable, review_router
from ragspine.service.http.schemas import (
    MODEL_ID,
    ApproveRequest,
    AskRequest,
    AssistantMessage,
    ChatChoice,
    ChatCompletion,
    ChatCompletionRequest,
    ErrorResponse,
    Health,
    JobAccepted,
    JobFileOut,
    JobOut,
    ModelCard,
    ModelList,
    NotReady,
    Readiness,
    RejectRequest,
    ReviewDecision,
    ReviewList,
    ServiceAskResponse,
    SourcePreview,
)
from ragspine.service.http.uploads import new_batch_name, store_upload
from ragspine.service.http.web import install_web
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobFile, JobQueue, JobStatus
from ragspine.service.keys.store import (
    KEY_REQUIRED,
    KEY_UNKNOWN,
    NO_AUTH_NAME,
    Authenticator,
    Caller,
    KeyStore,
)
from ragspine.service.settings import ServiceSettings
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.workspace import Workspace

UPLOAD_PATH = "/v1/ingest/jobs"


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorResponse} for status in statuses}


# What any keyed endpoint may answer besides success (503: overloaded); JSON bodies add 413,
# 415 and 422.
_KEYED = (400, 401, 500, 503)
_JSON = (*_KEYED, 413, 415, 422)

_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key")


@dataclass
class _Service:
    settings: ServiceSettings
    authenticator: Authenticator | None
    jobs: JobQueue | None
    answerer: Answerer
    metrics: Metrics

    @property
    def backend(self) -> Backend:
        return self.answerer.backend


def create_app(
    settings: ServiceSettings,
    *,
    authenticator: Authenticator | None = None,
    jobs: JobQueue | None = None,
    faq: FaqLookup | None = None,
    provider: LLMProvider | None = None,
) -> FastAPI:
    """The app serving ``settings.workspace`` or the deployment at ``settings.database_url``.

    By default the app builds and owns the backend's parts, closing them on shutdown. For a
    workspace: the API keys of ``DIR/service.db`` (unless ``settings.no_auth``), an in-process
    job queue, and the FAQ file the workspace's profile names. For a deployment: its
    ``api_keys`` table, an RQ job queue on ``settings.redis_url`` (uploads go into PostgreSQL
    for ``ragspine worker``), the FAQ published into it (``ragspine faq publish``; until one
    is, the FAQ of ``settings.profile``, the bundled example by default), and this process's
    own followed index. Passing ``authenticator``, ``jobs`` or ``faq``
    replaces that part (the caller keeps closing what it passed); ``provider`` defaults to the
    one the settings name.
    """
    if settings.dense is not None:
        check_backend(settings.dense)
    llm = provider or build_provider(
        settings.provider, model=settings.model, base_url=settings.base_url
    )
    owned: list[Callable[[], None]] = []
    try:
        backend = _backend(settings, owned)
        if faq is None:
            faq = _faq(settings, backend, owned)
        if authenticator is None and not settings.no_auth:
            authenticator = _authenticator(settings, backend, owned)
        if jobs is None:
            jobs = _job_queue(settings, backend, owned)
    except BaseException:
        _close_all(owned)
        raise
    answerer = Answerer(settings, llm, faq, backend)
    service = _Service(settings, authenticator, jobs, answerer, Metrics())

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_transport():
            yield
        service.answerer.close()
        _close_all(owned)

    app = FastAPI(
        title="RAGSpine",
        version=__version__,
        summary="Exact numbers with their source, or an honest 'not found'.",
        lifespan=lifespan,
    )
    app.state.service = service
    install_error_handlers(app)
    app.add_exception_handler(Overloaded, _overloaded)
    app.add_middleware(
        Edge,
        metrics=service.metrics,
        max_body_bytes=settings.max_body_bytes,
        upload_path=UPLOAD_PATH,
        max_upload_bytes=settings.max_upload_request_bytes,
    )
    _operations(app, service)
    _answers(app, service)
    _chat(app, service)
    _jobs(app, service)
    _review(app, service)
    _previews(app, service)
    app.include_router(facts_router(authenticated, _errors(*_KEYED, 422)))
    app.include_router(documents_router(authenticated, lambda *more: _errors(*_KEYED, *more)))
    app.include_router(review_router(authenticated, json_body, _errors))
    install_display(app, lambda: service.backend.profile, _AUTH, _errors(*_KEYED))
    install_web(app)
    # /mcp: the MCP server's streamable HTTP transport, when the `mcp` extra is installed.
    from ragspine.service.mcp_server.http import mount_mcp

    mcp_transport = mount_mcp(app, answerer, settings, authenticator)
    return app


# Seconds a refused client is asked to wait: one question takes milliseconds, so a second
# drains any burst a process accepts.
RETRY_AFTER_SECONDS = 1


async def _overloaded(request: Request, exc: Exception) -> Response:
    return error_response(
        503,
        str(exc),
        request_id_of(request),
        type_="overloaded",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def _close_all(closers: list[Callable[[], None]]) -> None:
    for close in reversed(closers):
        close()


def _backend(settings: ServiceSettings, owned: list[Callable[[], None]]) -> Backend:
    backend: Backend
    if settings.workspace is not None:
        backend = WorkspaceBackend(settings, Workspace.open(settings.workspace))
    else:
        backend = PostgresBackend(settings)
    owned.append(backend.close)
    return backend


def _authenticator(
    settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]
) -> Authenticator:
    if isinstance(backend, WorkspaceBackend):
        keys = KeyStore(backend.workspace)
        owned.append(keys.close)
        return keys
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    assert settings.database_url is not None
    assert isinstance(backend, PostgresBackend)
    table = PostgresKeyStore(
        settings.database_url, schema=settings.database_schema, database=backend.database
    )
    owned.append(table.close)
    return table


def _faq(settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]) -> FaqLookup:
    if isinstance(backend, WorkspaceBackend):
        return FaqCache.from_profile(backend.profile)
    from ragspine.service.faq.pg_faq import PostgresFaqStore, PublishedFaq

    assert settings.database_url is not None
    assert isinstance(backend, PostgresBackend)
    store = PostgresFaqStore(
        settings.database_url, schema=settings.database_schema, database=backend.database
    )
    owned.append(store.close)
    return PublishedFaq(store, backend.profile)


def _job_queue(
    settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]
) -> JobQueue:
    if isinstance(backend, WorkspaceBackend):
        local = InProcessJobQueue(backend.workspace, dense=settings.dense)
        owned.append(local.close)
        local.remove_unqueued_uploads()  # left by a server killed in the middle of a request
        return local
    from ragspine.service.jobs.rq_jobs import RQJobQueue

    assert settings.database_url is not None and settings.redis_url is not None
    assert isinstance(backend, PostgresBackend)
    queue = RQJobQueue(
        settings.database_url,
        settings.redis_url,
        schema=settings.database_schema,
        database=backend.database,
    )
    owned.append(queue.close)
    return queue


# --- dependencies ----------------------------------------------------------------------------


def _service(request: Request) -> _Service:
    service: _Service = request.app.state.service
    return service


def authenticated(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key)],
) -> Caller:
    """The caller the presented key belongs to; 401 for none, an unknown or a revoked key."""
    service = _service(request)
    if service.settings.no_auth:
        caller = Caller(NO_AUTH_NAME, service.settings.no_auth_clearance)
    else:
        token = bearer.credentials if bearer is not None else api_key
        if not token:
            raise HTTPException(401, KEY_REQUIRED, headers={"WWW-Authenticate": "Bearer"})
        assert service.authenticator is not None  # create_app requires one with auth on
        found = service.authenticator.authenticate(token)
        if found is None:
            raise HTTPException(401, KEY_UNKNOWN, headers={"WWW-Authenticate": "Bearer"})
        caller = found
    request.state.key_name = caller.name
    return caller


def _media_type(request: Request) -> str:
    message = Message()
    message["content-type"] = request.headers.get("content-type", "")
    return message.get_content_type()


def json_body(request: Request) -> None:
    """415 unless a request that has a body declares it JSON."""
    has_body = request.headers.get("content-length", "0") != "0" or (
        "transfer-encoding" in request.headers
    )
    media = _media_type(request)
    if has_body and not (media == "application/json" or media.endswith("+json")):
        raise HTTPException(415, "send the body as JSON (Content-Type: application/json)")


def multipart_body(request: Request) -> None:
    if _media_type(request) != "multipart/form-data":
        raise HTTPException(
            415, "send the files as multipart/form-data, one 'files' field per file"
        )


CallerDep = Annotated[Caller, Depends(authenticated)]
_AUTH = [Depends(authenticated)]
_AUTH_JSON = [Depends(authenticated), Depends(json_body)]


# --- operations: health, readiness, metrics ---------------------------------------------------


def _operations(app: FastAPI, service: _Service) -> None:
    @app.get("/healthz", tags=["operations"])
    def healthz() -> Health:
        """Always 200 while the process serves (no key needed)."""
        return Health()

    @app.get(
        "/readyz",
        tags=["operations"],
        responses={503: {"model": NotReady}},
    )
    async def readyz(request: Request) -> Response:
        """200 when the store opens, the search index is present and the job queue runs; 503
        naming the failing checks otherwise (no key needed)."""
        checks = await service.answerer.run(lambda: _readiness(service))
        failing = [name for name, state in checks.items() if state != "ok"]
        if failing:
            return error_response(
                503,
                f"not ready: {', '.join(failing)}",
                request_id_of(request),
                type_="not_ready",
                headers={"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)},
                extra={"checks": checks},
            )
        return Response(Readiness(checks=checks).model_dump_json(), media_type="application/json")

    @app.get(
        "/metrics",
        tags=["operations"],
        response_class=PlainTextResponse,
        responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}},
    )
    def metrics() -> Response:
        """Prometheus text: request counts and latencies by route, answers by route and kind
        (no key needed; no question or answer text)."""
        return Response(generate_latest(service.metrics.registry), media_type=CONTENT_TYPE_LATEST)


def _readiness(service: _Service) -> dict[str, str]:
    checks = service.backend.readiness()
    if service.jobs is None:
        checks["jobs"] = "not configured"
    else:
        checks["jobs"] = service.jobs.readiness()
    return checks


# --- answers ---------------------------------------------------------------------------------


async def _answer(
    service: _Service,
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
    answer = await service.answerer.run(
        lambda: service.answerer.answer(
            question, caller, reference_date=reference_date, request_id=rid, previous=previous
        )
    )
    service.metrics.answers.labels(endpoint, answer.route, answer.answer_kind).inc()
    service.metrics.answer_latency.labels(answer.route, answer.answer_kind).observe(
        time.perf_counter() - started
    )
    return answer


def _answers(app: FastAPI, service: _Service) -> None:
    @app.post(
        "/v1/ask",
        tags=["answers"],
        dependencies=_AUTH_JSON,
        responses=_errors(*_JSON),
    )
    async def ask(request: Request, body: AskRequest, caller: CallerDep) -> ServiceAskResponse:
        """Answer one question with its sources; ``cache.hit`` says a vetted FAQ item
        answered."""
        return await _answer(
            service, request, caller, body.question, body.reference_date, "ask", body.history
        )

    @app.post(
        "/v1/ask/stream",
        tags=["answers"],
        dependencies=_AUTH_JSON,
        responses={**_errors(*_JSON), 200: {"content": {"text/event-stream": {}}}},
    )
    async def ask_stream(request: Request, body: AskRequest, caller: CallerDep) -> Response:
        """The answer as Server-Sent Events: ``meta`` (route, kind, clarification and the
        cache block), one ``part`` per paragraph, ``sources``, then ``done``. The answer is
        complete before the first byte, so an error is still a JSON error response."""
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


# --- OpenAI-compatible chat ------------------------------------------------------------------


def sources_text(sources: list[SourceRef]) -> str:
    """The sources as the chat answer names them (the CLI's list, one per line)."""
    if not sources:
        return "Sources: none"
    return "\n".join(["Sources:", *(f"- {s.doc} · {s.locator}" for s in sources)])


def _chat(app: FastAPI, service: _Service) -> None:
    @app.get("/v1/models", tags=["chat"], dependencies=_AUTH, responses=_errors(*_KEYED))
    def models() -> ModelList:
        """The one model this service answers as."""
        return ModelList(data=[ModelCard()])

    @app.post(
        "/v1/chat/completions",
        tags=["chat"],
        dependencies=_AUTH_JSON,
        responses={
            **_errors(*_JSON),
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


# --- ingestion jobs --------------------------------------------------------------------------


def _jobs(app: FastAPI, service: _Service) -> None:
    settings = service.settings

    @app.post(
        UPLOAD_PATH,
        tags=["ingestion"],
        status_code=202,
        dependencies=[Depends(authenticated), Depends(multipart_body)],
        responses=_errors(*_KEYED, 413, 415, 422, 503),
    )
    async def submit_job(
        caller: CallerDep,
        files: Annotated[list[UploadFile], File(description="One or more documents.")],
        include_hidden: Annotated[
            bool,
            Form(
                description="Also read hidden sheets, rows, columns, slides and Word text, "
                "which are otherwise skipped and counted; a figure read from them never "
                "outranks a visible one (`ragspine ingest --include-hidden`)."
            ),
        ] = False,
    ) -> JobAccepted:
        """Store the uploaded files (in the workspace, or with the job in PostgreSQL) and queue
        them for ingestion; each is ingested as the document ``uploads/<key name>/<file
        name>``. Hidden content is skipped, and counted in each file's result ("3 hidden
        cells skipped"), unless ``include_hidden`` is true."""
        jobs = service.jobs
        if jobs is None:
            raise HTTPException(503, "ingestion jobs are not enabled on this service")
        if len(files) > settings.max_upload_files:
            raise UsageError(
                f"{len(files)} files in one request; the limit is {settings.max_upload_files}"
            )
        batch = new_batch_name()
        stored = await service.answerer.run(lambda: _store_uploads(service, caller, batch, files))
        try:
            job_id = await service.answerer.run(
                lambda: jobs.submit(
                    stored,
                    submitter=caller.name,
                    clearance=caller.clearance,
                    include_hidden=include_hidden,
                )
            )
        except BaseException:
            # Not queued (the queue unavailable, the store failing): nothing of it stays.
            shutil.rmtree(service.backend.uploads_folder / batch, ignore_errors=True)
            raise
        service.backend.submitted(service.backend.uploads_folder / batch)
        waiting = await service.answerer.run(jobs.readiness)
        return JobAccepted(job_id=job_id, note=_waiting_note(waiting))

    @app.get(
        "/v1/jobs/{job_id}",
        tags=["ingestion"],
        dependencies=_AUTH,
        responses=_errors(*_KEYED, 404, 503),
    )
    def job_status(job_id: str, caller: CallerDep) -> JobOut:
        """A job's state (queued, running, done, failed), progress and per-file results; only
        the key that submitted the job can read it (404 for any other)."""
        if service.jobs is None:
            raise HTTPException(503, "ingestion jobs are not enabled on this service")
        status = service.jobs.status(job_id)
        if status is None or status.submitter != caller.name:
            raise HTTPException(404, "no such job")
        return _job_out(status)


def _waiting_note(readiness: str) -> str:
    """What an accepted upload is told when no worker would take it now."""
    if readiness == "ok":
        return ""
    return f"queued, {readiness}: the job runs once a worker is serving the queue"


def _store_uploads(
    service: _Service, caller: Caller, batch: str, files: list[UploadFile]
) -> list[JobFile]:
    limits = service.settings.upload_limits()
    stored: list[JobFile] = []
    try:
        for upload in files:
            stored.append(
                store_upload(
                    service.backend.uploads_folder,
                    batch,
                    upload.filename or "",
                    upload.file,
                    sender=caller.name,
                    limits=limits,
                )
            )
    except BaseException:
        # One bad file refuses the request: nothing of it stays behind.
        shutil.rmtree(service.backend.uploads_folder / batch, ignore_errors=True)
        raise
    return stored


def _job_out(status: JobStatus) -> JobOut:
    return JobOut(
        job_id=status.job_id,
        state=status.state.value,
        progress=status.progress,
        files_total=status.files_total,
        files_done=status.files_done,
        results=[
            JobFileOut(
                name=r.name,
                outcome=r.outcome,
                facts=r.facts,
                chunks=r.chunks,
                review=r.review,
                warnings=list(r.warnings),
                error=r.error,
            )
            for r in status.results
        ],
        error=status.error,
        created_at=status.created_at,
        updated_at=status.updated_at,
    )


# --- review ----------------------------------------------------------------------------------

ReviewFilter = Literal["open", "approved", "rejected", "all"]
# Review item ids are SQLite integers.
ItemId = Annotated[int, PathParam(ge=1, le=2**63 - 1)]


def _review(app: FastAPI, service: _Service) -> None:
    @app.get("/v1/review", tags=["review"], dependencies=_AUTH, responses=_errors(*_KEYED, 422))
    async def review_list(
        caller: CallerDep, state: Annotated[ReviewFilter, Query()] = "open"
    ) -> ReviewList:
        """The review items the caller's clearance covers (open ones by default)."""

        def read() -> list[ReviewItem]:
            store = service.answerer.engine_for(caller.clearance).store
            items = store.list_review(None if state == "all" else ReviewState(state))
            return review.visible_to(items, caller.clearance)

        mappable = labels_mappable(service.backend)
        items = await service.answerer.run(read)
        return ReviewList(items=[item_out(i, mappable=mappable) for i in items])

    @app.post(
        "/v1/review/{item_id}/approve",
        tags=["review"],
        dependencies=_AUTH_JSON,
        responses=_errors(*_JSON, 404, 409),
    )
    async def review_approve(
        item_id: ItemId, caller: CallerDep, body: ApproveRequest | None = None
    ) -> ReviewDecision:
        """Approve an item (optionally with a corrected value); the search index follows."""
        correct = body.correct if body is not None else None
        return await service.answerer.run(
            lambda: _decide(
                service, caller, item_id, lambda s: review.approve(s, item_id, correct=correct)
            )
        )

    @app.post(
        "/v1/review/{item_id}/reject",
        tags=["review"],
        dependencies=_AUTH_JSON,
        responses=_errors(*_JSON, 404, 409),
    )
    async def review_reject(
        item_id: ItemId, caller: CallerDep, body: RejectRequest | None = None
    ) -> ReviewDecision:
        """Reject an item: nothing is written to the facts."""
        note = body.note if body is not None else ""
        return await service.answerer.run(
            lambda: _decide(
                service, caller, item_id, lambda s: review.reject(s, item_id, note=note)
            )
        )


def _decide(
    service: _Service,
    caller: Caller,
    item_id: int,
    decision: Callable[[WorkspaceStoreProtocol], tuple[ReviewItem, bool]],
) -> ReviewDecision:
    store = service.answerer.engine_for(caller.clearance).store
    item = store.get_review(item_id)
    # An item above the caller's clearance does not exist for them.
    if item is None or not caller.clearance.allows(Sensitivity.parse(item.sensitivity)):
        raise HTTPException(404, f"no review item {item_id}")
    decided, changed = service.backend.decide(decision)
    return ReviewDecision(
        item=item_out(decided, mappable=labels_mappable(service.backend)), changed=changed
    )


# --- source previews -------------------------------------------------------------------------


def _previews(app: FastAPI, service: _Service) -> None:
    @app.get(
        "/v1/sources/preview",
        tags=["answers"],
        dependencies=_AUTH,
        responses=_errors(*_KEYED, 404, 422),
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


def app_from_env() -> FastAPI:
    """The app the ``RAGSPINE_*`` environment describes (uvicorn's factory for ``--workers``)."""
    return create_app(ServiceSettings())
