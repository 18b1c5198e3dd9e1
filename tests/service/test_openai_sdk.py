"""``ragspine serve --workers 2`` as a user starts it, over loopback, with a key made by
``ragspine keys create``, driven by the ``openai`` SDK as a chat client is; and ``serve``'s
refusals."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from openai import OpenAI
from typer.testing import CliRunner

from ragspine.cli import app as cli_app

QUESTION = "中国内地FY2024的收入是多少"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Served:
    base_url: str
    key: str


def _ragspine(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragspine", *args]


@pytest.fixture(scope="module")
def served(service_workspace: Path) -> Iterator[Served]:
    made = subprocess.run(
        _ragspine(
            "keys", "create", "--name", "sdk-client", "--clearance", "internal",
            "--workspace", str(service_workspace),
        ),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    key = made.stdout.strip().splitlines()[-1]
    port = _free_port()
    server = subprocess.Popen(
        _ragspine(
            "serve", "--workspace", str(service_workspace), "--port", str(port),
            "--workers", "2",
        ),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            assert time.monotonic() < deadline, "ragspine serve did not become ready"
            try:
                if httpx.get(f"{root}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        yield Served(f"{root}/v1", key)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_the_openai_sdk_gets_an_answer_that_names_its_sources(served: Served) -> None:
    client = OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
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
    # Both worker processes answer alike (each request lands on one of them).
    answers = {
        client.chat.completions.create(
            model="ragspine", messages=[{"role": "user", "content": QUESTION}]
        )
        .choices[0]
        .message.content
        for _ in range(6)
    }
    assert answers == {text}


def test_the_sdk_with_a_wrong_key_gets_401(served: Served) -> None:
    import openai

    client = OpenAI(base_url=served.base_url, api_key="wrong", max_retries=0)
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
