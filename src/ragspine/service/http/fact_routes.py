"""``GET /v1/facts``: the approved facts the caller's key may see, with their locators, one page
at a time, as JSON, CSV or an xlsx workbook (``ragspine facts list`` over HTTP)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, Protocol, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import Caller
from ragspine.storage.fact_listing import (
    DEFAULT_PAGE,
    MAX_PAGE,
    MEDIA_TYPES,
    FactPage,
    FactQuery,
    list_fact_page,
    to_csv,
    to_json,
    to_xlsx,
)

T = TypeVar("T")


class _Answerer(Protocol):
    async def run(self, func: Callable[[], T]) -> T: ...

    def engine_for(self, clearance: Sensitivity) -> Any: ...


class FactOut(BaseModel):
    document: str
    locator: str
    metric: str
    entity: str
    channel: str
    period: str
    value: float
    unit: str
    sensitivity: str
    row_label: str | None = Field(
        default=None,
        description="The label of the row the value was read from, as the document writes it",
    )


class FactList(BaseModel):
    facts: list[FactOut]
    total: int
    offset: int
    limit: int
    next_offset: int | None


def answerer_of(request: Request) -> _Answerer:
    answerer: _Answerer = request.app.state.service.answerer
    return answerer


def facts_router(
    authenticated: Callable[..., Awaitable[Caller]], errors: dict[int | str, Any]
) -> APIRouter:
    """The router, its endpoint keyed by ``authenticated`` (the app's key dependency)."""
    router = APIRouter(tags=["facts"])

    @router.get(
        "/v1/facts",
        responses={
            **errors,
            200: {
                "model": FactList,
                "content": {MEDIA_TYPES["csv"]: {}, MEDIA_TYPES["xlsx"]: {}},
            },
        },
    )
    async def list_facts(
        request: Request,
        caller: Caller = Depends(authenticated),  # noqa: B008 (FastAPI's way)
        document: Annotated[str | None, Query(min_length=1, max_length=1_000)] = None,
        entity: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
        metric: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
        format: Annotated[Literal["json", "csv", "xlsx"], Query()] = "json",
        offset: Annotated[int, Query(ge=0, le=2**31)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    ) -> Response:
        """Approved facts within the key's clearance (filtered by document, entity and
        metric), each with its document and locator: one page of ``limit`` from ``offset``;
        ``next_offset`` (JSON) or the ``X-Next-Offset`` header (CSV, xlsx) names the next."""
        answerer = answerer_of(request)
        query = FactQuery(caller.clearance, document, entity, metric, offset, limit)

        def read() -> FactPage:
            return list_fact_page(answerer.engine_for(caller.clearance).store, query)

        page = await answerer.run(read)
        headers = {"X-Total-Count": str(page.total)}
        if page.next_offset is not None:
            headers["X-Next-Offset"] = str(page.next_offset)
        if format == "json":
            return Response(to_json(page), media_type=MEDIA_TYPES["json"], headers=headers)
        headers["Content-Disposition"] = f'attachment; filename="facts.{format}"'
        body: str | bytes = to_csv(page.facts) if format == "csv" else to_xlsx(page.facts)
        return Response(body, media_type=MEDIA_TYPES[format], headers=headers)

    return router
