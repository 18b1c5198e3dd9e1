"""``DELETE /v1/documents/{doc_id}``: retire one document of a PostgreSQL deployment over HTTP
(``ragspine documents remove`` for a caller with a key).

Only a caller cleared for the document's level may remove it; for any other the document does
not exist (404, as for a job of another key), so the endpoint tells nothing about what the
caller may not see. The removal is one transaction with an audit entry naming the key
(``document_audit``: ``removed``, "by API key NAME"), and the change log carries it to every
API process's index. A workspace is served by one process that owns its files: there the
endpoint answers 409 with the command to use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import BaseModel

from ragspine.service.backends import PostgresBackend
from ragspine.service.keys.store import Caller


class DocumentRemoved(BaseModel):
    doc_id: str
    removed: bool


def documents_router(
    authenticated: Callable[..., Awaitable[Caller]], errors: Callable[..., dict[int | str, Any]]
) -> APIRouter:
    router = APIRouter(tags=["documents"])

    @router.delete("/v1/documents/{doc_id:path}", responses=errors(404, 409))
    async def remove_document(
        request: Request,
        doc_id: Annotated[str, PathParam(min_length=1, max_length=1_000)],
        caller: Caller = Depends(authenticated),  # noqa: B008 (FastAPI's way)
    ) -> DocumentRemoved:
        """Retire a document: its facts, passages, chunks and review items stop answering on
        every API process of the deployment. The caller's clearance must cover the
        document's level (404 otherwise, as for a document that does not exist)."""
        service = request.app.state.service
        backend = service.backend
        if not isinstance(backend, PostgresBackend):
            raise HTTPException(
                409,
                "documents are removed over HTTP on PostgreSQL deployments; on a workspace run "
                "`ragspine documents remove DOC --workspace DIR`",
            )
        removed: bool = await service.answerer.run(
            lambda: backend.remove_document(doc_id, caller.clearance, f"by API key {caller.name}")
        )
        if not removed:
            raise HTTPException(404, "no such document")
        return DocumentRemoved(doc_id=doc_id, removed=True)

    return router
