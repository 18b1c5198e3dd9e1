"""The bare-framework reference of the service benchmark: FastAPI doing no work of ours.

``POST /v1/ask`` takes the same JSON body into a pydantic model shaped like the service's
request and returns a fixed answer (the service's own structured answer, read once from a file,
so size and shape match), serialised by FastAPI as a route's dict is. It is served the way
``ragspine serve`` serves one worker: ``uvicorn.run`` with the same logging set-up, uvicorn's
access log off, the default event loop (uvloop when installed) and the httptools protocol.
The one difference: ``ragspine serve`` runs its subclass of the httptools protocol that adds
request deadlines (``service.http.connection``); that is ours, so it is not in the reference.

    python bench/bare_app.py --port 8123 --answer answer.json
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000)
    reference_date: date | None = None
    history: list[str] = Field(default_factory=list, max_length=20)


def create_app(answer: dict[str, Any]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/ask")
    async def ask(request: AskRequest) -> dict[str, Any]:
        del request
        return answer

    @app.get("/readyz")
    async def ready() -> dict[str, str]:
        return {"status": "ok"}

    return app


def main() -> None:
    import uvicorn

    from ragspine.cli.serve import _log_config

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answer", type=Path, required=True, help="JSON answer to return")
    args = parser.parse_args()
    answer = json.loads(args.answer.read_text(encoding="utf-8"))
    uvicorn.run(
        create_app(answer),
        host=args.host,
        port=args.port,
        log_config=_log_config(),
        access_log=False,
        http="httptools",
    )


if __name__ == "__main__":
    main()
