"""The HTTP app: ``create_app(settings)`` serves one workspace or one PostgreSQL deployment (see
docs/service.md and docs/scale-out.md).

Every endpoint but ``/healthz``, ``/readyz``, ``/metrics``, the OpenAPI pages and the web page
(``/`` and its ``/static`` files, whose own calls send the key) needs an API
key (``Authorization: Bearer <key>`` or ``X-API-Key``); the key's clearance decides what exists
for its caller, on every endpoint that returns stored text. Blocking work (the agent, store
reads, review decisions, writing uploads) runs on the answerer's thread pool, never on the
event loop.

The routes live in one module per concern (``answer_routes``, ``job_routes``,
``review_routes``, ``operation_routes``, ...); this module builds the parts and wires them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import Response

from ragspine import __version__
from ragspine.llm.factory import build_provider
from ragspine.llm.protocol import LLMProvider
from ragspine.retrieval.embedding import check_backend
from ragspine.service.answering import Answerer, Overloaded, settle_heap
from ragspine.service.faq.faq_cache import FaqLookup
from ragspine.service.http.access_log import access_log_off_the_loop
from ragspine.service.http.answer_routes import (
    DIRECT_PATHS,
    install_answers,
    install_chat,
    install_previews,
)
from ragspine.service.http.deps import AUTH, KEYED, Service, authenticated, errors
from ragspine.service.http.direct import DirectRoutes
from ragspine.service.http.display_routes import install_display
from ragspine.service.http.document_routes import documents_router
from ragspine.service.http.edge import (
    Edge,
    Metrics,
    error_response,
    install_error_handlers,
    request_id_of,
)
from ragspine.service.http.fact_routes import facts_router
from ragspine.service.http.job_routes import UPLOAD_PATH, install_jobs
from ragspine.service.http.operation_routes import install_operations
from ragspine.service.http.review_routes import install_review, review_router
from ragspine.service.http.web import install_web
from ragspine.service.jobs.queue import JobQueue
from ragspine.service.keys.store import Authenticator
from ragspine.service.parts import (
    close_all,
    open_authenticator,
    open_backend,
    open_faq,
    open_job_queue,
)
from ragspine.service.settings import ServiceSettings


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
        backend = open_backend(settings, owned)
        if faq is None:
            faq = open_faq(settings, backend, owned)
        if authenticator is None and not settings.no_auth:
            authenticator = open_authenticator(settings, backend, owned)
        if jobs is None:
            jobs = open_job_queue(settings, backend, owned)
    except BaseException:
        close_all(owned)
        raise
    answerer = Answerer(settings, llm, faq, backend)
    service = Service(settings, authenticator, jobs, answerer, Metrics())

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        settle_heap(collect=True)
        with access_log_off_the_loop():
            async with mcp_transport():
                yield
        service.answerer.close()
        close_all(owned)

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
        direct=DirectRoutes(app, DIRECT_PATHS) if settings.direct_routes else None,
    )
    install_operations(app, service)
    install_answers(app, service)
    install_chat(app, service)
    install_jobs(app, service)
    install_review(app, service)
    install_previews(app, service)
    app.include_router(facts_router(authenticated, errors(*KEYED, 422)))
    app.include_router(documents_router(authenticated, lambda *more: errors(*KEYED, *more)))
    app.include_router(review_router())
    install_display(app, lambda: service.backend.profile, AUTH, errors(*KEYED))
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


def app_from_env() -> FastAPI:
    """The app the ``RAGSPINE_*`` environment describes (uvicorn's factory for ``--workers``)."""
    return create_app(ServiceSettings())
