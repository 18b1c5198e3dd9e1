"""``/v1/ask`` reads its key and body itself (``presented_token``, ``caller_of``,
``json_model``) instead of through FastAPI's dependencies and body parameter. These tests hold
the two ways to the same outcome: for every header pair the same key, and for every body the
same status and the same error message as a route declaring ``body: AskRequest`` with the
JSON check, under the app's own error handlers."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import Headers
from starlette.types import Message, Scope

from ragspine.service.http.deps import (
    _api_key,
    _bearer,
    json_body,
    json_body_docs,
    json_model,
    presented_token,
)
from ragspine.service.http.edge import (
    Edge,
    Metrics,
    install_error_handlers,
    request_header,
    request_headers,
)
from ragspine.service.http.schemas import AskRequest


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/declared")
    async def declared(
        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        api_key: Annotated[str | None, Depends(_api_key)],
    ) -> dict[str, str | None]:
        return {"token": bearer.credentials if bearer is not None else api_key}

    @app.get("/read")
    async def read(request: Request) -> dict[str, str | None]:
        return {"token": presented_token(request)}

    @app.post("/declared", dependencies=[Depends(json_body)])
    async def declared_body(body: AskRequest) -> dict[str, str]:
        return {"question": body.question, "date": str(body.reference_date)}

    @app.post("/read")
    async def read_body(request: Request) -> dict[str, str]:
        body = await json_model(request, AskRequest)
        return {"question": body.question, "date": str(body.reference_date)}

    return app


CLIENT = TestClient(_app())

_header_text = st.sampled_from(
    ["", " ", "Bearer", "bearer", "BEARER", "Basic", "Bearer ", "Token", "rsk_x", "a b"]
) | st.text(alphabet="Bearbsic rsk_-x ", max_size=14)


@settings(max_examples=150, deadline=None)
@given(
    authorization=st.none() | _header_text,
    suffix=st.none() | st.sampled_from(["rsk_abc", " rsk_abc ", "a b", ""]),
    api_key=st.none() | st.sampled_from(["", "rsk_key", " spaced "]),
)
def test_the_key_read_by_hand_is_the_key_the_security_schemes_read(
    authorization: str | None, suffix: str | None, api_key: str | None
) -> None:
    headers: dict[str, str] = {}
    if authorization is not None:
        headers["Authorization"] = authorization + (f" {suffix}" if suffix is not None else "")
    if api_key is not None:
        headers["X-API-Key"] = api_key
    declared = CLIENT.get("/declared", headers=headers).json()["token"]
    assert CLIENT.get("/read", headers=headers).json()["token"] == (declared or None)


BODIES: list[tuple[bytes, str]] = [
    (b'{"question": "Revenue FY2024?"}', "application/json"),
    (b'{"question": "Revenue?", "reference_date": "2026-11-26"}', "application/json"),
    (b'{"question": "Revenue?", "history": ["a", "b"]}', "application/json; charset=utf-8"),
    (b'{"question": "Revenue?"}', "application/vnd.api+json"),
    (b"", "application/json"),
    (b"{}", "application/json"),
    (b"[]", "application/json"),
    (b"null", "application/json"),
    (b'"question"', "application/json"),
    (b'{"question": ""}', "application/json"),
    (b'{"question": 3}', "application/json"),
    (b'{"question": "x", "extra": 1}', "application/json"),
    (b'{"question": "x", "reference_date": "26/11/2026"}', "application/json"),
    (b'{"question": "x", "history": "not a list"}', "application/json"),
    (b'{"question": "x", "history": [1, 2]}', "application/json"),
    (
        b'{"question": "x", "history": ' + b'["q"]' * 0 + b'["q","q","q","q","q","q","q","q",'
        b'"q","q","q","q","q","q","q","q","q","q","q","q","q"]}',
        "application/json",
    ),
    (b'{"question": "' + b"x" * 5000 + b'"}', "application/json"),
    (b'{"question": "x"', "application/json"),
    (b"{'question': 'x'}", "application/json"),
    (b'{"question": "x"} trailing', "application/json"),
    (b'{"question": "\xff\xfe"}', "application/json"),
    (b"\xef\xbb\xbf{}", "application/json"),
    (b'{"question": "x"}', "text/plain"),
    (b'{"question": "x"}', "application/x-www-form-urlencoded"),
]


def test_a_body_read_by_hand_is_refused_or_taken_as_fastapi_does() -> None:
    for raw, media in BODIES:
        headers = {"Content-Type": media}
        declared = CLIENT.post("/declared", content=raw, headers=headers)
        read = CLIENT.post("/read", content=raw, headers=headers)
        assert read.status_code == declared.status_code, (raw[:60], media)
        if declared.status_code == 200:
            assert read.json() == declared.json()
        else:
            assert read.json()["error"]["message"] == declared.json()["error"]["message"], raw[:60]
            assert read.json()["error"]["type"] == declared.json()["error"]["type"]


def _status_when_cut_off(path: str) -> tuple[int, dict[str, str]]:
    """The status and body the app sends when its client goes away mid-body (what uvicorn
    reports when ``ragspine serve``'s body deadline closes a dripping connection)."""
    events: list[Message] = [
        {"type": "http.request", "body": b'{"question": "', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return events.pop(0) if events else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "server": ("testserver", 80), "client": ("testclient", 1),
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
    }  # fmt: skip
    asyncio.run(_app()(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    error = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))["error"]
    return start["status"], {k: v for k, v in error.items() if k != "request_id"}


def test_a_body_cut_off_by_a_vanished_client_is_refused_as_fastapi_refuses_it() -> None:
    # Not an unexpected error (a 500 and an ERROR line in the log): the client's doing.
    status, error = _status_when_cut_off("/read")
    assert (status, error) == _status_when_cut_off("/declared")
    assert (status, error["type"]) == (400, "bad_request")


def _without_null_defaults(schema: object) -> object:
    """FastAPI leaves out a ``"default": null`` that pydantic writes; nothing else differs."""
    if isinstance(schema, dict):
        return {
            k: _without_null_defaults(v)
            for k, v in schema.items()
            if not (k == "default" and v is None)
        }
    return schema


def test_the_documented_body_is_the_one_fastapi_documents_for_a_body_parameter() -> None:
    openapi = CLIENT.app.openapi()  # type: ignore[attr-defined]
    declared = openapi["paths"]["/declared"]["post"]["requestBody"]
    reference = declared["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    documented = json_body_docs(AskRequest)["requestBody"]
    assert documented["required"] is declared["required"] is True
    assert (
        _without_null_defaults(documented["content"]["application/json"]["schema"])
        == (openapi["components"]["schemas"][reference])
    )


def test_headers_are_read_once_as_starlette_reads_them_and_again_when_the_list_changes() -> None:
    scope: dict[str, object] = {
        "type": "http",
        "headers": (
            (b"content-type", b"application/json"),
            (b"x-api-key", b"first"),
            (b"x-api-key", b"second"),
            (b"x-note", "caf\xe9".encode("latin-1")),
        ),
    }
    starlette = Headers(scope={"headers": list(scope["headers"])})  # type: ignore[call-overload]
    found = request_headers(scope)
    assert request_headers(scope) is found  # kept in the scope
    for name in ("content-type", "x-api-key", "x-note", "authorization"):
        assert request_header(scope, name.encode()) == starlette.get(name)
    assert request_header(scope, b"authorization", "") == ""
    scope["headers"] = [(b"x-api-key", b"other")]  # a new list: read again
    assert request_header(scope, b"x-api-key") == "other"
    assert request_header(scope, b"content-type") is None


def test_the_edge_adds_the_request_id_once_replacing_one_the_response_set() -> None:
    app = FastAPI()

    @app.get("/plain")
    async def plain() -> PlainTextResponse:
        return PlainTextResponse("ok")

    @app.get("/own")
    async def own() -> PlainTextResponse:
        return PlainTextResponse("ok", headers={"X-Request-ID": "mine", "X-Other": "kept"})

    edge = Edge(
        app, metrics=Metrics(), max_body_bytes=1_000, upload_path="/up", max_upload_bytes=1_000
    )
    with TestClient(edge) as client:  # type: ignore[arg-type]
        for path in ("/plain", "/own"):
            response = client.get(path, headers={"X-Request-ID": "portal-7"})
            assert response.headers.get_list("x-request-id") == ["portal-7"]
        assert response.headers["x-other"] == "kept"
