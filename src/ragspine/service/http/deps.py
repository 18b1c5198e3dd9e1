"""What every route module of the app shares: the service's parts on ``app.state``, the key
check, the body-type checks and the error responses an endpoint documents."""

from __future__ import annotations

import json
from dataclasses import dataclass
from email.message import Message
from typing import Annotated, Any, TypeVar

from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from pydantic import BaseModel, ValidationError

from ragspine.service.answering import Answerer
from ragspine.service.backends import Backend
from ragspine.service.http.edge import Metrics, request_header, request_headers
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


JSON_MEDIA_TYPE = "application/json"
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
    """The caller the presented key belongs to; 401 for none, an unknown or a revoked key
    (the dependency form of :func:`caller_of`, which also documents the two schemes)."""
    return await caller_of(request, bearer.credentials if bearer is not None else api_key)


def presented_token(request: Request) -> str | None:
    """The key a request presents, read as :func:`authenticated`'s two security schemes read
    it: ``Authorization: Bearer <key>`` first, else ``X-API-Key``."""
    scope = request.scope
    scheme, credentials = get_authorization_scheme_param(request_header(scope, b"authorization"))
    if scheme and credentials and scheme.lower() == "bearer":
        return credentials
    return request_header(scope, b"x-api-key") or None


async def caller_of(request: Request, token: str | None) -> Caller:
    """The caller ``token`` belongs to; 401 for none, an unknown or a revoked key.

    A workspace's key store answers from memory or its local file, on the event loop; a
    database's is asked from a thread, so the loop never waits on the network."""
    service = service_of(request)
    if service.settings.no_auth:
        caller = Caller(NO_AUTH_NAME, service.settings.no_auth_clearance)
    else:
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
    raw = request_header(request.scope, b"content-type", "")
    if raw == JSON_MEDIA_TYPE:  # what JSON clients send: nothing to parse
        return raw
    message = Message()
    message["content-type"] = raw
    return message.get_content_type()


async def json_body(request: Request) -> None:
    """415 unless a request that has a body declares it JSON."""
    headers = request_headers(request.scope)
    has_body = headers.get(b"content-length", b"0") != b"0" or b"transfer-encoding" in headers
    media = _media_type(request)
    if has_body and not (media == JSON_MEDIA_TYPE or media.endswith("+json")):
        raise HTTPException(415, "send the body as JSON (Content-Type: application/json)")


M = TypeVar("M", bound=BaseModel)


async def json_model(request: Request, model: type[M]) -> M:
    """The request's JSON body as ``model``, refused as FastAPI refuses a body parameter: 415
    unless it is declared JSON (:func:`json_body`), 422 with ``body.…`` locations for a
    missing, malformed or invalid body, 400 for bytes that are not text or a body cut off. For a
    hot endpoint that takes ``Request`` alone, so FastAPI solves no body field or dependency
    for it."""
    await json_body(request)
    try:
        raw = await request.body()
    except HTTPException:
        raise  # 413: the body outgrew its limit
    except Exception as exc:  # the client went away mid-body (ClientDisconnect): as FastAPI
        raise HTTPException(400, "There was an error parsing the body") from exc
    if raw:
        try:
            return model.model_validate_json(raw)
        except ValidationError:
            pass  # decided again below exactly as FastAPI decides it: JSON first, then the model
    return _as_fastapi_reads(raw, model)


def _as_fastapi_reads(raw: bytes, model: type[M]) -> M:
    if not raw:
        missing = {"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}
        raise RequestValidationError([missing], body=raw)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        problem = {
            "type": "json_invalid",
            "loc": ("body", exc.pos),
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": exc.msg},
        }
        raise RequestValidationError([problem], body=exc.doc) from exc
    except UnicodeDecodeError as exc:
        raise HTTPException(400, "There was an error parsing the body") from exc
    try:
        return model.model_validate(value, from_attributes=True)  # as FastAPI validates
    except ValidationError as exc:
        problems = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(problems, body=value) from exc


def json_body_docs(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` and ``security`` of an endpoint that reads ``model`` with
    :func:`json_model` and its key with :func:`caller_of` (what FastAPI writes for a body
    parameter and :func:`authenticated`), for ``openapi_extra``."""
    schema = model.model_json_schema()
    if "$defs" in schema:  # inlined here, so it must stand alone
        raise ValueError(f"{model.__name__} nests models; declare it as a body parameter")
    return {
        "requestBody": {"content": {"application/json": {"schema": schema}}, "required": True},
        "security": [{"HTTPBearer": []}, {"APIKeyHeader": []}],
    }


async def multipart_body(request: Request) -> None:
    if _media_type(request) != "multipart/form-data":
        raise HTTPException(
            415, "send the files as multipart/form-data, one 'files' field per file"
        )


CallerDep = Annotated[Caller, Depends(authenticated)]
AUTH = [Depends(authenticated)]
AUTH_JSON = [Depends(authenticated), Depends(json_body)]
