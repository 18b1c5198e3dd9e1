"""What every route module of the app shares: the service's parts on ``app.state``, the key
check, the body-type checks and the error responses an endpoint documents."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from ragspine.service.answering import Answerer
from ragspine.service.backends import Backend
from ragspine.service.http.edge import Metrics
from ragspine.service.http.schemas import ErrorResponse
from ragspine.service.jobs.queue import JobQueue
from ragspine.service.keys.store import (
    KEY_REQUIRED,
    KEY_UNKNOWN,
    NO_AUTH_NAME,
    Authenticator,
    Caller,
)
from ragspine.service.settings import ServiceSettings


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of an endpoint that may answer these statuses: each body is
    the one error shape every endpoint uses."""
    return {status: {"model": ErrorResponse} for status in statuses}


# What any keyed endpoint may answer besides success (503: overloaded); JSON bodies add 413,
# 415 and 422.
KEYED = (400, 401, 500, 503)
KEYED_JSON = (*KEYED, 413, 415, 422)

_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key")


@dataclass
class Service:
    """The parts one app serves with, on ``app.state.service`` for the route modules."""

    settings: ServiceSettings
    authenticator: Authenticator | None
    jobs: JobQueue | None
    answerer: Answerer
    metrics: Metrics

    @property
    def backend(self) -> Backend:
        return self.answerer.backend


def service_of(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def authenticated(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key)],
) -> Caller:
    """The caller the presented key belongs to; 401 for none, an unknown or a revoked key.

    A workspace's key store answers from memory or its local file, on the event loop; a
    database's is asked from a thread, so the loop never waits on the network."""
    service = service_of(request)
    if service.settings.no_auth:
        caller = Caller(NO_AUTH_NAME, service.settings.no_auth_clearance)
    else:
        token = bearer.credentials if bearer is not None else api_key
        if not token:
            raise HTTPException(401, KEY_REQUIRED, headers={"WWW-Authenticate": "Bearer"})
        assert service.authenticator is not None  # create_app requires one with auth on
        authenticator = service.authenticator
        if service.backend.cpu_only:
            found = authenticator.authenticate(token)
        else:
            found = await run_in_threadpool(authenticator.authenticate, token)
        if found is None:
            raise HTTPException(401, KEY_UNKNOWN, headers={"WWW-Authenticate": "Bearer"})
        caller = found
    request.state.key_name = caller.name
    return caller


def _media_type(request: Request) -> str:
    message = Message()
    message["content-type"] = request.headers.get("content-type", "")
    return message.get_content_type()


async def json_body(request: Request) -> None:
    """415 unless a request that has a body declares it JSON."""
    has_body = request.headers.get("content-length", "0") != "0" or (
        "transfer-encoding" in request.headers
    )
    media = _media_type(request)
    if has_body and not (media == "application/json" or media.endswith("+json")):
        raise HTTPException(415, "send the body as JSON (Content-Type: application/json)")


async def multipart_body(request: Request) -> None:
    if _media_type(request) != "multipart/form-data":
        raise HTTPException(
            415, "send the files as multipart/form-data, one 'files' field per file"
        )


CallerDep = Annotated[Caller, Depends(authenticated)]
AUTH = [Depends(authenticated)]
AUTH_JSON = [Depends(authenticated), Depends(json_body)]
# For an endpoint whose ``CallerDep`` parameter already checks the key.
JSON = [Depends(json_body)]
