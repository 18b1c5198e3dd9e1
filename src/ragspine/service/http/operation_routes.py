"""``/healthz``, ``/readyz`` and ``/metrics``: what an orchestrator and a scraper ask, with no
key."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from ragspine.service.http.deps import Service
from ragspine.service.http.edge import UNAVAILABLE_RETRY_SECONDS, error_response, request_id_of
from ragspine.service.http.schemas import Health, NotReady, Readiness


def install_operations(app: FastAPI, service: Service) -> None:
    @app.get("/healthz", tags=["operations"])
    def healthz() -> Health:
        """Always 200 while the process serves (no key needed)."""
        return Health()

    @app.get(
        "/readyz",
        tags=["operations"],
        responses={503: {"model": NotReady}},
    )
    async def readyz(request: Request) -> Response:
        """200 when the store opens, the search index is present and the job queue runs; 503
        naming the failing checks otherwise (no key needed)."""
        checks = await service.answerer.run(lambda: _readiness(service))
        failing = [name for name, state in checks.items() if state != "ok"]
        if failing:
            return error_response(
                503,
                f"not ready: {', '.join(failing)}",
                request_id_of(request),
                type_="not_ready",
                headers={"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)},
                extra={"checks": checks},
            )
        return Response(Readiness(checks=checks).model_dump_json(), media_type="application/json")

    @app.get(
        "/metrics",
        tags=["operations"],
        response_class=PlainTextResponse,
        responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}},
    )
    def metrics() -> Response:
        """Prometheus text: request counts and latencies by route, answers by route and kind
        (no key needed; no question or answer text)."""
        return Response(generate_latest(service.metrics.registry), media_type=CONTENT_TYPE_LATEST)


def _readiness(service: Service) -> dict[str, str]:
    checks = service.backend.readiness()
    if service.jobs is None:
        checks["jobs"] = "not configured"
    else:
        checks["jobs"] = service.jobs.readiness()
    return checks
