"""What one ``POST /v1/ask`` costs the server, without a network or a load generator.

The demo workspace (built once into ``--workspace`` when that folder is empty) is served by
``create_app`` with a key required and the service's own logging set-up (its handlers
writing to ``/dev/null``), and the same request is sent ``--requests`` times after
``--warmup`` ones: as the bytes wrk sends, fed to ``ragspine serve``'s uvicorn protocol on a
transport that keeps what it is written (``--mode server``: the HTTP parsing and writing
counted too), straight to the ASGI app (``asgi``), to the app's ``Answerer`` (``answer``: no
HTTP, no key) or to the engine in its read snapshot (``engine``); the differences between
modes say what each layer costs. ``--bare`` serves the bench's bare FastAPI app
(``bare_app.py``) instead, for the reference.

Instruction counts need no quiet machine. Run the script under callgrind twice, with
``--requests 0`` and ``--requests N``, and divide the difference of the totals by ``N``
(``--separate-threads=yes`` gives each thread's: the loop's, and the trace and access-log
writers' that the GIL serialises with it); or count the timed requests alone, on the loop's
thread only (callgrind switches counting per thread), with a library built from callgrind's
client requests::

    // cgctl.c, built with: gcc -O2 -shared -fPIC -o libcgctl.so cgctl.c
    #include <valgrind/callgrind.h>
    void start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS;
                       CALLGRIND_TOGGLE_COLLECT; }
    void stop(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("measured"); }

    PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \\
        .venv/bin/python bench/profile_ask.py --workspace /tmp/ws --requests 200 \\
        --callgrind-control ./libcgctl.so

``--profile TOP`` prints cProfile's top entries instead (by own time), ``--time`` the wall
time per request.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import logging.config
import os
import pstats
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = {
    "structured": "香港FY2024的收入是多少",
    "narrative": "香港业务增长的主要驱动因素是什么",
}
KEY_FILE = "bench-key.txt"


def prepare(workspace: Path) -> str:
    """The demo workspace at ``workspace`` (built when missing) and a key of it."""
    from ragspine.demo.tour import build_demo_workspace
    from ragspine.profile.sensitivity import Sensitivity
    from ragspine.service.keys.store import KeyStore
    from ragspine.workspace import Workspace

    key_file = workspace / KEY_FILE
    if not (workspace / "service.db").exists() and not key_file.exists():
        build_demo_workspace(workspace)
    if not key_file.exists():
        with KeyStore(Workspace.open(workspace)) as keys:
            _, token = keys.create("bench", Sensitivity.INTERNAL)
        key_file.write_text(token, "utf-8")
    return key_file.read_text("utf-8").strip()


def quiet_logging() -> None:
    """``ragspine serve``'s logging, its streams sent to ``/dev/null``."""
    from ragspine.cli.serve import _log_config

    config = _log_config()
    for handler in config["handlers"].values():
        if "stream" in handler:
            handler["stream"] = open(os.devnull, "w")  # noqa: SIM115 - lives as the process
    logging.config.dictConfig(config)


def request_bytes(question: str, key: str | None) -> bytes:
    body = json.dumps({"question": question}, ensure_ascii=False).encode("utf-8")
    head = [
        "POST /v1/ask HTTP/1.1",
        "Host: 127.0.0.1:8000",
        "Content-Type: application/json",
        *([f"Authorization: Bearer {key}"] if key else []),
        f"Content-Length: {len(body)}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body


def asgi_sender(target: Any, raw: bytes, *, app: Any = None) -> Callable[[], Awaitable[int]]:
    """One request to ``target`` as uvicorn scopes it (``app`` in the scope when ``target`` is
    a layer inside it, as Starlette puts it there); returns the status."""
    head, body = raw.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    headers = [
        (name.strip().lower(), value.strip())
        for name, value in (line.split(b":", 1) for line in lines[1:])
    ]

    async def send_one() -> int:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "server": ("127.0.0.1", 8000),
            "client": ("127.0.0.1", 50000),
            "scheme": "http",
            "method": "POST",
            "root_path": "",
            "path": "/v1/ask",
            "raw_path": b"/v1/ask",
            "query_string": b"",
            "headers": list(headers),
            "state": {},
        }
        if app is not None:
            scope["app"] = app
        sent = False
        status = 0

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.Event().wait()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await target(scope, receive, send)
        return status

    return send_one


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self._closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def server_sender(app: Any, raw: bytes) -> Callable[[], Awaitable[int]]:
    """``raw`` fed to ``ragspine serve``'s protocol on one kept-alive connection."""
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from ragspine.service.http.connection import GuardedProtocol

    config = Config(app=app, http=GuardedProtocol, log_config=None, access_log=False)
    config.load()
    loop = asyncio.get_running_loop()
    protocol = GuardedProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
    transport = _Transport()
    protocol.connection_made(transport)
    done: asyncio.Future[None] | None = None
    complete = protocol.on_response_complete

    def on_response_complete() -> None:
        complete()
        assert done is not None
        done.set_result(None)

    protocol.on_response_complete = on_response_complete  # type: ignore[method-assign]

    async def send_one() -> int:
        nonlocal done
        done = loop.create_future()
        transport.written.clear()
        protocol.data_received(raw)
        await done
        return int(transport.written[0].split(b" ", 2)[1])

    return send_one


def edge_sender(app: Any, raw: bytes) -> Callable[[], Awaitable[int]]:
    """The request sent to the service's edge middleware, past FastAPI's own outer layers."""
    from ragspine.service.http.edge import Edge

    layer = app.middleware_stack
    while not isinstance(layer, Edge):
        layer = layer.app
    return asgi_sender(layer, raw, app=app)


def endpoint_sender(app: Any, raw: bytes) -> Callable[[], Awaitable[int]]:
    """The request handed to ``/v1/ask``'s endpoint function: no middleware at all."""
    from starlette.requests import Request

    from ragspine.service.http.direct import DirectRoutes

    route = DirectRoutes(app, ["/v1/ask"]).routes()[0]

    async def endpoint(scope: Any, receive: Any, send: Any) -> None:
        response = await route.endpoint(Request(scope, receive))
        await response(scope, receive, send)

    return asgi_sender(endpoint, raw, app=app)


def answer_sender(app: Any, raw: bytes) -> Callable[[], Awaitable[int]]:
    """The question answered by the app's ``Answerer`` alone: no HTTP, no key check."""
    from ragspine.profile.sensitivity import Sensitivity
    from ragspine.service.keys.store import Caller

    question = json.loads(raw.split(b"\r\n\r\n", 1)[1])["question"]
    answerer = app.state.service.answerer
    caller = Caller("bench", Sensitivity.INTERNAL)

    async def send_one() -> int:
        answerer.answer(question, caller, reference_date=None, request_id="bench")
        return 200

    return send_one


def engine_sender(app: Any, raw: bytes) -> Callable[[], Awaitable[int]]:
    """The question answered by the engine alone (``RAGSpine.ask``), in its read snapshot."""
    from ragspine.profile.sensitivity import Sensitivity

    question = json.loads(raw.split(b"\r\n\r\n", 1)[1])["question"]
    rag = app.state.service.answerer.engine_for(Sensitivity.INTERNAL)

    async def send_one() -> int:
        with rag.store.snapshot():
            rag.ask(question, request_id="bench")
        return 200

    return send_one


Sender = Callable[[Any, bytes], Callable[[], Awaitable[int]]]
SENDERS: dict[str, Sender] = {
    "asgi": asgi_sender,
    "edge": edge_sender,
    "endpoint": endpoint_sender,
    "answer": answer_sender,
    "engine": engine_sender,
}


def build_app(workspace: Path, *, bare: bool) -> tuple[Any, str | None]:
    if bare:
        from bench.bare_app import create_app as bare_app

        answer = json.loads((workspace / "bench-answer.json").read_text("utf-8"))
        return bare_app(answer), None
    from ragspine.service.http.app import create_app
    from ragspine.service.settings import ServiceSettings

    key = prepare(workspace)
    return create_app(ServiceSettings(workspace=workspace)), key


async def main_async(args: argparse.Namespace) -> None:
    app, key = build_app(args.workspace, bare=args.bare)
    raw = request_bytes(QUESTIONS[args.question], key)
    async with app.router.lifespan_context(app):
        # Warmed up through the server in every mode, so runs of different modes share the
        # instructions of everything before the timed requests.
        warm = server_sender(app, raw)
        for _ in range(args.warmup):
            status = await warm()
            if status != 200:
                raise SystemExit(f"the request was answered {status}")
        if not args.bare:
            await _keep_answer(app, raw, args.workspace)
        send_one = SENDERS[args.mode](app, raw) if args.mode != "server" else warm
        if args.no_gc:
            import gc

            gc.disable()
        profiler = cProfile.Profile() if args.profile else None
        counted = _callgrind_control(args.callgrind_control)
        started = time.perf_counter()
        cpu = time.process_time()
        if profiler is not None:
            profiler.enable()
        counted.start()
        for _ in range(args.requests):
            await send_one()
        counted.stop()
        if profiler is not None:
            profiler.disable()
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
    if args.time and args.requests:
        print(
            f"{seconds / args.requests * 1e6:.1f} µs per request ({args.mode}), "
            f"{cpu / args.requests * 1e6:.1f} µs of the process's CPU"
        )
    if profiler is not None:
        out = io.StringIO()
        if args.dump:
            profiler.dump_stats(args.dump)
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())


class _NoControl:
    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def _callgrind_control(library: Path | None) -> Any:
    """The ``start``/``stop`` functions of a library built from callgrind's client requests
    (see the module docstring), or ones that do nothing."""
    if library is None:
        return _NoControl()
    import ctypes

    return ctypes.CDLL(str(library))


async def _keep_answer(app: Any, raw: bytes, workspace: Path) -> None:
    """The structured answer's JSON, for ``--bare`` runs to return."""
    path = workspace / "bench-answer.json"
    if path.exists():
        return
    import httpx

    head, body = raw.split(b"\r\n\r\n", 1)
    headers = dict(
        (n.strip().decode(), v.strip().decode())
        for n, v in (line.split(b":", 1) for line in head.split(b"\r\n")[1:])
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post("/v1/ask", content=body, headers=headers)
    path.write_text(response.text, "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--mode", choices=("server", *SENDERS), default="server")
    parser.add_argument("--question", choices=tuple(QUESTIONS), default="structured")
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--profile", type=int, default=0, metavar="TOP")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--dump", help="write the cProfile stats to this file")
    parser.add_argument("--no-access-log", action="store_true", help="(to compare) no access log")
    parser.add_argument("--no-gc", action="store_true", help="(to compare) no garbage collector")
    parser.add_argument(
        "--callgrind-control",
        type=Path,
        metavar="LIB",
        help="a library whose start() and stop() switch callgrind's counting on and off",
    )
    args = parser.parse_args()
    quiet_logging()
    if args.no_access_log:
        logging.getLogger("ragspine.access").setLevel(logging.WARNING)
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
