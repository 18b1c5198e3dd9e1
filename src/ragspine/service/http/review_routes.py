"""Review over HTTP: ``GET /v1/review`` lists the items a key's clearance covers,
``POST /v1/review/{id}/approve`` and ``/reject`` decide one, and ``POST /v1/review/{id}/map``
with ``GET /v1/profile/codes`` map a label.

Mapping follows the rules of ``ragspine review map`` (``ingestion.label_map``): any key that
may see the item may map it, as for approve and reject; the workspace profile is edited (a
backup kept), the label's items are closed with an audit entry naming the key, and its
documents are read again under the workspace's write lock.

A PostgreSQL deployment has no profile of its own to edit: each API process and worker reads
the profile file it was started with (``--profile``), possibly one copy per machine, and an API
process editing its own copy would leave the others answering and ingesting without the alias.
There the endpoint answers 409 naming the command that maps the label from the operator's
profile file (``ragspine review map ITEM … --database-url … --profile FILE``), and the items'
``actions`` offer no "map", so the web page offers only what can work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field

from ragspine.ingestion import review
from ragspine.ingestion.label_map import (
    MapResult,
    MapTarget,
    choose_map_target,
    label_of,
    map_label,
    review_actions,
)
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.refresh import writing
from ragspine.service.backends import Backend, WorkspaceBackend
from ragspine.service.http.deps import (
    AUTH,
    AUTH_JSON,
    KEYED,
    KEYED_JSON,
    CallerDep,
    Service,
    authenticated,
    errors,
)
from ragspine.service.http.schemas import (
    ApproveRequest,
    RejectRequest,
    ReviewDecision,
    ReviewItemOut,
    ReviewList,
)
from ragspine.service.keys.store import Caller
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.protocol import WorkspaceStoreProtocol

_Code = Annotated[str | None, Field(default=None, min_length=1, max_length=64)]


class MapRequest(BaseModel):
    """Exactly one of ``metric``, ``new_metric`` (with ``name``), ``entity``, ``channel``."""

    model_config = ConfigDict(extra="forbid")

    metric: _Code = None
    new_metric: _Code = None
    name: Annotated[str | None, Field(default=None, min_length=1, max_length=200)] = None
    unit: _Code = None
    kind: _Code = None
    entity: _Code = None
    channel: _Code = None


class MapOut(BaseModel):
    item_id: int
    label: str
    alias: str
    kind: str
    code: str
    new_metric: bool
    closed: list[int]
    documents: list[str]
    missing: list[str]
    backup: str | None


class CodeOut(BaseModel):
    code: str
    name_en: str
    name_zh: str


class ProfileCodes(BaseModel):
    metrics: list[CodeOut]
    entities: list[CodeOut]
    channels: list[CodeOut]


def _codes(profile: DomainProfile) -> ProfileCodes:
    def out(items: Any) -> list[CodeOut]:
        return [CodeOut(code=i.code, name_en=i.name_en, name_zh=i.name_zh) for i in items]

    return ProfileCodes(
        metrics=out(profile.all_metrics),
        entities=out(profile.entities),
        channels=out(profile.channels),
    )


def labels_mappable(backend: Backend) -> bool:
    """Whether this process can map labels: only over a workspace, whose profile it owns."""
    return isinstance(backend, WorkspaceBackend)


def item_out(item: ReviewItem, *, mappable: bool) -> ReviewItemOut:
    actions = review_actions(item)
    return ReviewItemOut(
        item_id=item.item_id,
        doc=item.doc_id,
        locator=item.locator,
        reason=item.reason,
        detail=item.detail,
        state=item.state.value,
        sensitivity=item.sensitivity,
        proposed=item.proposed,
        corrected_value=item.corrected_value,
        created_at=item.created_at,
        resolved_at=item.resolved_at,
        actions=[a for a in actions if mappable or a != "map"],
        label=label_of(item),
    )


def map_elsewhere(item_id: int, target: MapTarget) -> str:
    """The 409 of a deployment whose profile is a file outside the database: what to run."""
    option = (
        f"--new-metric {target.code} --name NAME"
        if target.new
        else f"--{target.kind} {target.code}"
    )
    return (
        "this deployment's profile is the file each API process and worker was started with "
        "(--profile), not one this process may change for the others: map the label with "
        f"`ragspine review map {item_id} {option} --database-url URL --schema SCHEMA "
        "--profile FILE` on that file, then restart the API processes and workers with it"
    )


def review_router() -> APIRouter:
    router = APIRouter()

    @router.get(
        "/v1/profile/codes",
        tags=["review"],
        dependencies=AUTH,
        responses=errors(*KEYED),
    )
    def profile_codes(request: Request) -> ProfileCodes:
        """The profile's metric, entity and channel codes with their names: what a label can
        be mapped to."""
        return _codes(request.app.state.service.backend.profile)

    @router.post(
        "/v1/review/{item_id}/map",
        tags=["review"],
        dependencies=AUTH_JSON,
        responses=errors(*KEYED, 404, 409, 413, 415, 422),
    )
    async def review_map(
        request: Request,
        item_id: Annotated[int, PathParam(ge=1, le=2**63 - 1)],
        body: MapRequest,
        caller: Caller = Depends(authenticated),  # noqa: B008 (FastAPI's way)
    ) -> MapOut:
        """Map an ``unmapped_label`` item's label to a metric, entity or channel (or a new
        metric): the alias joins the workspace profile, the label's open items close and its
        documents are read again."""
        target = choose_map_target(
            body.metric, body.new_metric, body.name, body.unit, body.kind, body.entity, body.channel
        )
        service = request.app.state.service

        def run() -> MapResult:
            store = service.answerer.engine_for(caller.clearance).store
            item = store.get_review(item_id)
            if item is None or not caller.clearance.allows(Sensitivity.parse(item.sensitivity)):
                raise HTTPException(404, f"no review item {item_id}")
            backend = service.backend
            if not isinstance(backend, WorkspaceBackend):
                raise HTTPException(409, map_elsewhere(item_id, target))
            ws = backend.workspace
            with writing(ws) as writable:
                result = map_label(
                    writable, ws.profile_path, item_id, target, reviewer=f"key {caller.name}"
                )
            backend.profile = ws.profile()
            service.answerer.profile_changed()
            return result

        result: MapResult = await service.answerer.run(run)
        return MapOut(
            item_id=result.item_id,
            label=result.label,
            alias=result.alias,
            kind=result.target.kind,
            code=result.target.code,
            new_metric=result.target.new,
            closed=result.closed,
            documents=result.documents,
            missing=result.missing,
            backup=result.backup.name if result.backup is not None else None,
        )

    return router


ReviewFilter = Literal["open", "approved", "rejected", "all"]
# Review item ids are SQLite integers.
ItemId = Annotated[int, PathParam(ge=1, le=2**63 - 1)]


def install_review(app: FastAPI, service: Service) -> None:
    @app.get("/v1/review", tags=["review"], dependencies=AUTH, responses=errors(*KEYED, 422))
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
        dependencies=AUTH_JSON,
        responses=errors(*KEYED_JSON, 404, 409),
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
        dependencies=AUTH_JSON,
        responses=errors(*KEYED_JSON, 404, 409),
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
    service: Service,
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
