"""The service under uvicorn in a thread of the test process, on a free port, for tests that
need a real HTTP server (the browser tests, the MCP client)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def serve_workspace(root: Path) -> Iterator[str]:
    """``create_app`` over the workspace at ``root``, running; yields its base URL and stops
    the server on exit."""
    import uvicorn

    from ragspine.service.http.app import create_app
    from ragspine.service.settings import ServiceSettings

    app = create_app(ServiceSettings(workspace=root))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        thread.join(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
