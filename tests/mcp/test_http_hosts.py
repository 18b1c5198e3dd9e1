"""``/mcp`` answers under any Host name: the API key, not DNS-rebinding protection (which
would refuse all but loopback names), guards it, as it guards ``/v1``."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import ServiceKeys

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def test_mcp_answers_under_any_host_name(
    service_workspace: Path, service_keys: ServiceKeys
) -> None:
    app = create_app(ServiceSettings(workspace=service_workspace))
    headers = {**ACCEPT, "Authorization": f"Bearer {service_keys.internal}"}
    with TestClient(app) as client:
        for host in ("127.0.0.1:8000", "reports.example.com"):
            response = client.post("/mcp", json=INITIALIZE, headers={**headers, "Host": host})
            assert response.status_code == 200, response.text
            assert response.json()["result"]["serverInfo"]["name"] == "ragspine"
