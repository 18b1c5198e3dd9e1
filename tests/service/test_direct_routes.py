"""``/v1/ask`` and ``/v1/ask/stream`` are served from the edge middleware, past FastAPI's
router (``service/http/direct.py``). Two apps over one workspace, one with the direct path
and one without (``direct_routes=False``), must answer every request alike: answers, errors
and their headers, what the router decides (another method, a trailing slash), the body
limit, and the route the metrics and the access log name."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from ragspine.service.http.app import create_app
from ragspine.service.http.direct import DirectRoutes
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import INTERNAL, RESTRICTED, ServiceKeys

_ID = re.compile(r"[0-9a-f]{32}")


@pytest.fixture(scope="module")
def clients(
    service_workspace: Path, service_keys: ServiceKeys
) -> Iterator[tuple[TestClient, TestClient]]:
    del service_keys  # fills INTERNAL and RESTRICTED
    direct = create_app(ServiceSettings(workspace=service_workspace, max_body_bytes=4_000))
    routed = create_app(
        ServiceSettings(workspace=service_workspace, max_body_bytes=4_000, direct_routes=False)
    )
    with TestClient(direct) as a, TestClient(routed) as b:
        yield a, b


def _same(text: str) -> str:
    """A response with its request ids (fresh per request) made alike."""
    return _ID.sub("<id>", text)


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/ask", {"json": {"question": "香港FY2024的收入是多少"}, "key": "internal"}),
    (
        "POST",
        "/v1/ask",
        {"json": {"question": "What was group NBV in FY2025?"}, "key": "restricted"},
    ),
    ("POST", "/v1/ask", {"json": {"question": "What was group NBV in FY2025?"}, "key": "internal"}),
    (
        "POST",
        "/v1/ask",
        {"json": {"question": "Why did Hong Kong revenue grow in FY2025?"}, "key": "internal"},
    ),
    (
        "POST",
        "/v1/ask",
        {"json": {"question": "收入", "history": ["香港FY2024的收入是多少"]}, "key": "internal"},
    ),
    ("POST", "/v1/ask/stream", {"json": {"question": "香港FY2024的收入是多少"}, "key": "internal"}),
    ("POST", "/v1/ask", {"json": {"question": "香港FY2024的收入是多少"}, "key": None}),
    ("POST", "/v1/ask", {"json": {"question": "x"}, "key": "bogus"}),
    (
        "POST",
        "/v1/ask",
        {
            "content": b"question=x",
            "key": "internal",
            "headers": {"Content-Type": "application/x-www-form-urlencoded"},
        },
    ),
    (
        "POST",
        "/v1/ask",
        {
            "content": b'{"question": ',
            "key": "internal",
            "headers": {"Content-Type": "application/json"},
        },
    ),
    ("POST", "/v1/ask", {"json": {"question": ""}, "key": "internal"}),
    (
        "POST",
        "/v1/ask",
        {"json": {"question": "x", "reference_date": "yesterday"}, "key": "internal"},
    ),
    (
        "POST",
        "/v1/ask",
        {"json": {"question": "x", "reference_date": "1850-01-01"}, "key": "internal"},
    ),
    ("POST", "/v1/ask/stream", {"json": {"question": "x", "extra": True}, "key": "internal"}),
    ("POST", "/v1/ask", {"json": {"question": "x" * 5_000}, "key": "internal"}),
    ("GET", "/v1/ask", {"key": "internal"}),
    ("PUT", "/v1/ask/stream", {"json": {"question": "x"}, "key": "internal"}),
    ("POST", "/v1/ask/", {"json": {"question": "香港FY2024的收入是多少"}, "key": "internal"}),
]


def _send(client: TestClient, method: str, path: str, spec: dict[str, Any]) -> Any:
    keys = {"internal": INTERNAL, "restricted": RESTRICTED, "bogus": {"X-API-Key": "rsk_nope"}}
    headers = {**keys.get(spec.get("key") or "", {}), **spec.get("headers", {})}
    return client.request(
        method,
        path,
        json=spec.get("json"),
        content=spec.get("content"),
        headers=headers,
        follow_redirects=False,
    )


@pytest.mark.parametrize(("method", "path", "spec"), CASES)
def test_the_direct_path_answers_as_the_router_does(
    clients: tuple[TestClient, TestClient], method: str, path: str, spec: dict[str, Any]
) -> None:
    direct, routed = clients
    a, b = _send(direct, method, path, spec), _send(routed, method, path, spec)
    assert a.status_code == b.status_code
    for header in ("content-type", "www-authenticate", "retry-after", "location", "allow"):
        assert a.headers.get(header) == b.headers.get(header), header
    assert _ID.fullmatch(a.headers["x-request-id"])
    assert _same(a.text) == _same(b.text)
    if a.status_code == 200 and path == "/v1/ask":
        assert json.loads(a.text)["request_id"] == a.headers["x-request-id"]


def test_the_metrics_name_the_route_a_direct_request_took(
    clients: tuple[TestClient, TestClient],
) -> None:
    direct, _ = clients
    pattern = r'ragspine_http_requests_total\{method="POST",route="/v1/ask",status="200"\} (\S+)'

    def count() -> float:
        found = re.search(pattern, direct.get("/metrics").text)
        return float(found.group(1)) if found else 0.0

    before = count()
    assert _send(direct, "POST", "/v1/ask", CASES[0][2]).status_code == 200
    assert count() == before + 1


def test_a_route_needing_more_than_its_request_is_never_served_directly() -> None:
    app = FastAPI()

    @app.post("/hot")
    async def hot(request: Request, n: int = 1) -> dict[str, int]:
        del request
        return {"n": n}

    with pytest.raises(RuntimeError, match="cannot be served directly"):
        DirectRoutes(app, ["/hot"]).routes()
    with pytest.raises(RuntimeError, match="no route"):
        DirectRoutes(app, ["/cold"]).routes()
