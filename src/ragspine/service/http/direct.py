"""The hottest endpoints served straight from :class:`~ragspine.service.http.edge.Edge`.

Between the edge and an endpoint FastAPI stacks its exception middleware, an exit stack for
dependencies, the router and two wrappers per route; for a structured question that took
about a fifth of the time the app spends on it. An endpoint that takes ``Request`` alone
and returns a ``Response`` needs none of them (it reads its key and body itself, see
``deps.caller_of`` and ``deps.json_model``), so the edge calls the route's own endpoint
function and answers an exception it raises with the app's own handler for it, as FastAPI's
exception middleware would. The route stays in the app: OpenAPI describes it, and a request
the direct path does not take (another method, a trailing slash) goes through the router.
``tests/service/test_direct_routes.py`` holds both paths to the same responses.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Match
from starlette.types import Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Exception], Awaitable[Response]]


class DirectRoutes:
    """The app's routes at ``paths``, each checked to take ``Request`` alone and to declare
    no dependency, found on first use (routes are added after the middleware)."""

    def __init__(self, app: FastAPI, paths: Iterable[str]) -> None:
        self._app = app
        self._paths = tuple(paths)
        self._routes: tuple[APIRoute, ...] | None = None

    def routes(self) -> tuple[APIRoute, ...]:
        if self._routes is None:
            found = tuple(
                r for r in self._app.routes if isinstance(r, APIRoute) and r.path in self._paths
            )
            missing = set(self._paths) - {r.path for r in found}
            if missing:
                raise RuntimeError(f"no route for direct path(s) {sorted(missing)}")
            for route in found:
                _check_direct(route)
            self._routes = found
        return self._routes

    def match(self, scope: Scope) -> APIRoute | None:
        """The route a request goes to directly, its scope filled in as the router would."""
        for route in self.routes():
            match, child = route.matches(scope)
            if match is Match.FULL:
                scope.update(child)
                return route
        return None

    async def serve(self, route: APIRoute, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        endpoint: Endpoint = route.endpoint
        try:
            response = await endpoint(request)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:
                raise  # the edge answers the unexpected, as for any route
            response = await handler(request, exc)
            exc.__traceback__ = None  # as Starlette does: a reused exception keeps no frames
        await response(scope, receive, send)

    def _handler(self, exc: Exception) -> Handler | None:
        """The app's handler for ``exc``, chosen as FastAPI's exception middleware chooses:
        a status handler for an HTTP error first, then the nearest class."""
        handlers: dict[Any, Handler] = self._app.exception_handlers  # type: ignore[assignment]
        if isinstance(exc, HTTPException) and exc.status_code in handlers:
            return handlers[exc.status_code]
        for cls in type(exc).__mro__:
            if cls in handlers:
                return handlers[cls]
        return None


def _check_direct(route: APIRoute) -> None:
    """A route served directly must need nothing FastAPI would have solved for it."""
    parameters = list(inspect.signature(route.endpoint).parameters.values())
    takes_request = len(parameters) == 1 and parameters[0].annotation in (Request, "Request")
    if not takes_request or route.dependencies or not inspect.iscoroutinefunction(route.endpoint):
        raise RuntimeError(
            f"{route.path} cannot be served directly: its endpoint must be an async function "
            "taking `request: Request` alone, with no dependencies"
        )
