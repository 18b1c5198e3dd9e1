"""The web page: ``/`` serves the single page and ``/static/`` its assets (docs/service.md).

The page and its assets need no key; every ``/v1`` call the page makes carries the key the
user typed. Everything the page uses is served from the package: no CDN, no other host, which
the Content-Security-Policy below also tells the browser to enforce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

# The page's files stay at service/static/, next to this package.
STATIC_DIR = Path(__file__).parent.parent / "static"

# Only this origin's scripts, styles and API; no inline script, no framing. Server text is set
# with textContent, and this policy is the second line should markup ever slip through.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidate (ETag) on each load, so an upgraded service never runs a stale script.
    "Cache-Control": "no-cache",
}


class _Assets(StaticFiles):
    """The page's static files, sent with the page's security headers."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers.update(SECURITY_HEADERS)
        return response


def install_web(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets under ``/static/`` (left out of the OpenAPI)."""
    app.mount("/static", _Assets(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "index.html", media_type="text/html", headers=SECURITY_HEADERS
        )
