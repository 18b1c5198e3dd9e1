"""The web page's browser tests: the demo workspace served by uvicorn on 127.0.0.1, driven by
Playwright through Debian's Chromium (Playwright's own browser download is not available).

Under ``CI=true`` a missing Chromium or Playwright fails the run instead of skipping it. Each
test gets a fresh browser context (its own sessionStorage) and may save screenshots of its
states, at desktop width and at 375 px, under ``test-artifacts/web/``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ragspine.demo.tour import build_demo_workspace
from ragspine.facade import RAGSpine
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import KeyStore
from ragspine.workspace import Workspace
from tests.service_workspace import BOARD_NOTE, BOARD_NOTE_TEXT
from tests.serving import serve_workspace
from tests.skip_guard import ci_enabled

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "web"
CHROMIUM = Path(os.environ.get("RAGSPINE_CHROMIUM", "/usr/bin/chromium"))
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}


def _unavailable(reason: str) -> None:
    message = f"{reason}; `make test` installs it (Debian's chromium, the dev extra's playwright)"
    if ci_enabled():
        pytest.fail(f"the web tests cannot run in CI: {message}", pytrace=False)
    pytest.skip(message)


@dataclass(frozen=True)
class WebKeys:
    internal: str
    restricted: str


@dataclass(frozen=True)
class Served:
    base_url: str
    workspace: Path
    keys: WebKeys


@pytest.fixture(scope="session")
def web_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, WebKeys]:
    """The demo workspace (its RESTRICTED board minutes included) plus the service tests'
    RESTRICTED board note, and real keys: an INTERNAL and a RESTRICTED one."""
    root = tmp_path_factory.mktemp("web") / "ws"
    build_demo_workspace(root)
    extra = root.parent / "extra"
    extra.mkdir()
    (extra / BOARD_NOTE).write_text(BOARD_NOTE_TEXT, encoding="utf-8")
    with RAGSpine.open(root) as rag:
        rag.ingest(extra)
    with KeyStore(Workspace.open(root)) as store:
        _, internal = store.create("analyst", Sensitivity.INTERNAL)
        _, restricted = store.create("board-office", Sensitivity.RESTRICTED)
    return root, WebKeys(internal, restricted)


@pytest.fixture(scope="session")
def served(web_workspace: tuple[Path, WebKeys]) -> Iterator[Served]:
    """``create_app`` under uvicorn on a free loopback port, in a thread of this process."""
    root, keys = web_workspace
    yield from _serve(root, keys)


LONG_NAMES = Path(__file__).resolve().parents[1] / "data" / "web_long_names"


@pytest.fixture(scope="session")
def long_names_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A workspace of another invented company (tests/data/web_long_names), one of whose units
    has a very long name, served like ``served``."""
    root = tmp_path_factory.mktemp("web-long") / "ws"
    Workspace.create(root)
    shutil.copy(LONG_NAMES / "profile.toml", root / "profile.toml")
    with RAGSpine.open(root) as rag:
        rag.ingest(LONG_NAMES / "docs")
    with KeyStore(Workspace.open(root)) as store:
        _, internal = store.create("analyst", Sensitivity.INTERNAL)
    yield from _serve(root, WebKeys(internal, internal))


def _serve(root: Path, keys: WebKeys) -> Iterator[Served]:
    with serve_workspace(root) as base:
        yield Served(base, root, keys)


# Package scope, not session: Playwright's sync API holds an event loop in this thread while it
# runs, and a test process (a pytest-xdist worker) may go on to tests that start their own.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        _unavailable(f"Chromium is not installed at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh tab (its own sessionStorage) with a Chinese browser locale, at desktop width."""
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN")
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    # A refused 401 or 404 is part of a test; a blocked load (CSP) never is.
    tab.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield tab
    context.close()
    assert not errors, f"the page raised: {errors}"


def snap(page: Page, name: str) -> None:
    """Screenshots of the page's current state at desktop width and at 375 px; at 375 px
    nothing may stick out sideways."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=ARTIFACTS / f"{name}-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=ARTIFACTS / f"{name}-375.png", full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth")
    page.set_viewport_size(DESKTOP)
    assert overflow <= PHONE["width"], f"{name}: {overflow}px wide at 375 px"
