"""The service on real uvicorn over loopback, driven by the ``openai`` SDK as a chat client is,
and ``ragspine serve``'s refusals."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from openai import OpenAI
from typer.testing import CliRunner

from ragspine.cli import app as cli_app
from ragspine.service.api import create_app
from ragspine.service.settings import ServiceSettings
from tests.service.conftest import INTERNAL_KEY, DictKeys

QUESTION = "中国内地FY2024的收入是多少"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def base_url(service_workspace: Path) -> Iterator[str]:
    port = _free_port()
    app = create_app(ServiceSettings(workspace=service_workspace), authenticator=DictKeys())
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(timeout=10)


def test_the_openai_sdk_gets_an_answer_that_names_its_sources(base_url: str) -> None:
    client = OpenAI(base_url=base_url, api_key=INTERNAL_KEY, max_retries=0)
    assert [m.id for m in client.models.list()] == ["ragspine"]
    completion = client.chat.completions.create(
        model="ragspine", messages=[{"role": "user", "content": QUESTION}]
    )
    text = completion.choices[0].message.content or ""
    sources = (completion.model_extra or {})["sources"]
    assert sources and "Sources:" in text
    for source in sources:
        assert f"{source['doc']} · {source['locator']}" in text
    stream = client.chat.completions.create(
        model="ragspine", messages=[{"role": "user", "content": QUESTION}], stream=True
    )
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert streamed == text


def test_the_sdk_with_a_wrong_key_gets_401(base_url: str) -> None:
    import openai

    client = OpenAI(base_url=base_url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as err:
        client.chat.completions.create(
            model="ragspine", messages=[{"role": "user", "content": QUESTION}]
        )
    assert err.value.status_code == 401


def test_serve_refuses_no_auth_off_loopback(service_workspace: Path) -> None:
    result = CliRunner().invoke(
        cli_app,
        ["serve", "--workspace", str(service_workspace), "--no-auth", "--host", "0.0.0.0"],
    )
    assert result.exit_code == 2
    assert "loopback" in result.output


def test_serve_refuses_a_clearance_without_no_auth(service_workspace: Path) -> None:
    result = CliRunner().invoke(
        cli_app, ["serve", "--workspace", str(service_workspace), "--clearance", "restricted"]
    )
    assert result.exit_code == 2
    assert "--clearance applies only with --no-auth" in result.output
