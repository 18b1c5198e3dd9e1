"""The MCP server's tools, resources and prompt, over the service's answerer.

Every tool reads through :class:`~ragspine.service.answering.Answerer` at the caller's
clearance, on its thread pool, exactly as the ``/v1`` endpoints do: ``ask`` is
``Answerer.answer`` (the FAQ, the competitor gate, the agent and its fabrication guard),
``list_facts`` is ``GET /v1/facts``'s query and ``get_source`` is ``/v1/sources/preview``'s.
The tools that take free text (``query_metric``, ``search_passages``) screen it with the
agent's competitor gate first. A failure is an MCP tool error carrying the API's message.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import UserMessage

from ragspine import __version__
from ragspine.agent.messages import for_language
from ragspine.agent.query_tools import execute_query_metric
from ragspine.agent.security_gate import SecurityDecision, SecurityGate
from ragspine.errors import UsageError
from ragspine.profile.matching import detect_language
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.skew import in_one_version
from ragspine.service.answering import Answerer, Overloaded
from ragspine.service.http.fact_routes import FactList, FactOut
from ragspine.service.http.previews import preview
from ragspine.service.http.schemas import ServiceAskResponse, SourcePreview
from ragspine.service.keys.store import Caller
from ragspine.service.mcp_server.outputs import (
    DocumentList,
    DocumentOut,
    MetricResult,
    Passage,
    PassageList,
)
from ragspine.storage.fact_listing import DEFAULT_PAGE, MAX_PAGE, FactQuery, list_fact_page

T = TypeVar("T")

# Who is calling, from the request's context: the command line's clearance over stdio, the
# API key's over HTTP. Raises ``ToolFailure`` for a caller that may not call at all.
CallerOf = Callable[[Context[Any, Any]], Caller]

# The same message as ``/v1/sources/preview``'s 404.
NO_SUCH_SOURCE = "no such source"
MAX_PASSAGES = 20

INSTRUCTIONS = (
    "Exact reported figures with their source, or an honest 'not found'. Cite every figure "
    "with the document and locator a tool returned; a not_found result is final: never "
    "estimate, recall or compute a figure no tool returned."
)


class ToolFailure(ToolError):
    """A tool's refusal, sent to the client as an MCP tool error with this message."""


def build_server(answerer: Answerer, caller_of: CallerOf, *, max_question_chars: int) -> MCPServer:
    """The MCP server whose tools answer through ``answerer`` for ``caller_of``'s caller."""
    server: MCPServer = MCPServer(
        "ragspine", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    async def on_pool(ctx: Context[Any, Any], work: Callable[[Caller], T]) -> T:
        def run() -> T:
            # On the pool: an HTTP caller's key is looked up in the key store.
            return work(caller_of(ctx))

        try:
            return await answerer.run(run)
        except (UsageError, Overloaded) as err:
            raise ToolFailure(str(err)) from err

    @server.tool(structured_output=True)
    async def ask(
        question: str, ctx: Context[Any, Any], reference_date: date | None = None
    ) -> ServiceAskResponse:
        """Answer a question about the reports: the answer with its kind and route, a
        clarification when the question is ambiguous or refused, the sources (document and
        locator) and the structured tool results behind every figure."""
        return await on_pool(
            ctx,
            lambda caller: answerer.answer(
                question, caller, reference_date=reference_date, request_id=request_id_of(ctx)
            ),
        )

    @server.tool(structured_output=True)
    async def query_metric(
        metric: str,
        entity: str,
        period: str,
        ctx: Context[Any, Any],
        channel: str | None = None,
        reference_date: date | None = None,
    ) -> MetricResult:
        """Look up one reported figure: found (value, unit, source document and locator),
        not_found (final: the figure is not in the reports), or unrecognized_param naming
        the parameter the vocabulary could not read. Never estimate a figure it did not
        return."""

        def work(caller: Caller) -> MetricResult:
            rag = answerer.engine_for(caller.clearance)
            refuse_competitor(rag.profile, " ".join((entity, metric)))
            result = execute_query_metric(
                rag.store,
                metric,
                entity,
                period,
                channel or rag.profile.defaults.channel,
                profile=rag.profile,
                reference_date=reference_date,
                clearance=caller.clearance,
            )
            return MetricResult.model_validate(result.to_dict())

        return await on_pool(ctx, work)

    @server.tool(structured_output=True)
    async def search_passages(
        query: str,
        ctx: Context[Any, Any],
        entities: list[str] | None = None,
        periods: list[str] | None = None,
        top_k: int = 5,
    ) -> PassageList:
        """The report passages that best match ``query`` (optionally only those about the
        given entity codes and period labels), each with its document and locator."""
        if not 1 <= top_k <= MAX_PASSAGES:
            raise ToolFailure(f"top_k must be from 1 to {MAX_PASSAGES}, got {top_k}")
        if not query.strip() or len(query) > max_question_chars:
            raise ToolFailure(f"the query must be 1 to {max_question_chars} characters")
        filters = RetrievalFilters(entities=tuple(entities or ()), periods=tuple(periods or ()))

        def work(caller: Caller) -> PassageList:
            rag = answerer.engine_for(caller.clearance)
            refuse_competitor(rag.profile, query)
            found = in_one_version(
                rag.store.snapshot,
                lambda: rag.retriever.retrieve(
                    query, top_k=top_k, filters=filters, clearance=caller.clearance
                ),
            )
            return PassageList(
                passages=[
                    Passage(doc=s.doc, locator=s.locator, title=s.title, text=s.text, score=s.score)
                    for s in found
                    if not s.held and caller.clearance.allows(Sensitivity.parse(s.sensitivity))
                ]
            )

        return await on_pool(ctx, work)

    @server.tool(structured_output=True)
    async def list_documents(ctx: Context[Any, Any]) -> DocumentList:
        """The ingested documents the caller's clearance covers."""

        def work(caller: Caller) -> DocumentList:
            rag = answerer.engine_for(caller.clearance)
            return DocumentList(
                documents=[
                    DocumentOut(
                        doc=d.doc_id,
                        kind=d.kind,
                        sensitivity=d.sensitivity,
                        size_bytes=d.size_bytes,
                    )
                    for d in rag.store.list_documents()
                    if caller.clearance.allows(Sensitivity.parse(d.sensitivity))
                ]
            )

        return await on_pool(ctx, work)

    @server.tool(structured_output=True)
    async def list_facts(
        ctx: Context[Any, Any],
        document: str | None = None,
        entity: str | None = None,
        metric: str | None = None,
        offset: int = 0,
        limit: int = DEFAULT_PAGE,
    ) -> FactList:
        """Approved facts within the caller's clearance, each with its document and locator,
        filtered by document, entity code and metric code: one page of ``limit`` (at most
        1000) from ``offset``; ``next_offset`` names the next page."""
        if offset < 0 or not 1 <= limit <= MAX_PAGE:
            raise ToolFailure(f"offset must be 0 or more and limit from 1 to {MAX_PAGE}")

        def work(caller: Caller) -> FactList:
            rag = answerer.engine_for(caller.clearance)
            query = FactQuery(caller.clearance, document, entity, metric, offset, limit)
            page = list_fact_page(rag.store, query)
            return FactList(
                facts=[
                    FactOut(
                        document=f.source_doc_id,
                        locator=f.source_locator,
                        row_label=f.row_label,
                        metric=f.metric_code,
                        entity=f.entity,
                        channel=f.channel,
                        period=f.period,
                        value=f.value,
                        unit=f.unit,
                        sensitivity=f.sensitivity,
                    )
                    for f in page.facts
                ],
                total=page.total,
                offset=page.offset,
                limit=page.limit,
                next_offset=page.next_offset,
            )

        return await on_pool(ctx, work)

    @server.tool(structured_output=True)
    async def get_source(doc: str, locator: str, ctx: Context[Any, Any]) -> SourcePreview:
        """The cells (facts) and passage stored at a document and locator a tool cited."""

        def work(caller: Caller) -> SourcePreview | None:
            rag = answerer.engine_for(caller.clearance)
            return preview(rag.store, doc, locator, caller.clearance)

        found = await on_pool(ctx, work)
        if found is None:
            raise ToolFailure(NO_SUCH_SOURCE)
        return found

    _vocabulary(server, answerer)
    return server


def request_id_of(ctx: Context[Any, Any]) -> str:
    """The id naming this answer in the trace: the HTTP request's (its ``X-Request-ID``, in the
    access log too) when there is one, else a fresh one (JSON-RPC ids repeat per client)."""
    state = getattr(ctx.request_context.request, "state", None)
    return str(getattr(state, "request_id", "") or "") or uuid.uuid4().hex


def refuse_competitor(profile: DomainProfile, text: str) -> None:
    """Raise ``ToolFailure`` with the agent's own refusal when ``text`` names a competitor."""
    verdict = SecurityGate.of(profile).screen(raw_question=text)
    if verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE:
        messages = for_language(detect_language(text))
        raise ToolFailure(messages.refusal(verdict.entity or "", profile.home_company_name))


def _vocabulary(server: MCPServer, answerer: Answerer) -> None:
    """The profile's vocabulary as resources, and the prompt for an agent using the tools."""

    @server.resource("ragspine://profile/entities", mime_type="application/json")
    def entities() -> list[dict[str, object]]:
        """The entity codes the tools accept, with their names and aliases."""
        return [e.model_dump(mode="json") for e in answerer.backend.profile.entities]

    @server.resource("ragspine://profile/metrics", mime_type="application/json")
    def metrics() -> list[dict[str, object]]:
        """The metric codes the tools accept, with their names, units and aliases."""
        return [m.model_dump(mode="json") for m in answerer.backend.profile.metrics]

    @server.resource("ragspine://profile/periods", mime_type="application/json")
    def periods() -> dict[str, object]:
        """How the tools write periods, and the fiscal calendar they are read in; the periods
        that hold figures are the ``period`` column of ``list_facts``."""
        profile = answerer.backend.profile
        return {
            "fiscal_year_end_month": profile.fiscal.year_end_month,
            "forms": {
                "FY2024": "a fiscal year",
                "2025H1": "a half year",
                "2025Q3": "a quarter",
                "2025M11": "a month",
            },
        }

    @server.prompt()
    def cite_reported_figures(question: str) -> list[UserMessage]:
        """Ask with the tools, cite every figure's locator, and treat not_found as final."""
        return [
            UserMessage(
                f"{INSTRUCTIONS} Use the ask or query_metric tool; when a tool returns "
                "not_found or a clarification, say so instead of answering with another "
                f"figure.\n\nQuestion: {question}"
            )
        ]
