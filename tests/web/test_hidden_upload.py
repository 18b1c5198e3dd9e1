"""The Documents tab's "also read hidden sheets, rows and columns" box, in a real browser.

A workspace of its own (the shared one holds other tests' uploads, whose figures would change
how many hidden ones contradict a visible one): the workbook of tests/hidden_workbook.py is
dropped twice, without and with the box ticked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import KeyStore
from ragspine.workspace import Workspace
from tests.hidden_workbook import HIDDEN_CELLS, SET_ASIDE, write_workbook
from tests.serving import serve_workspace
from tests.web.conftest import Served, WebKeys, snap
from tests.web.driver import documents_tab, drop, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An empty workspace of the shipped profile, served like ``served``."""
    root = Workspace.create(tmp_path_factory.mktemp("web-hidden") / "ws").root
    with KeyStore(Workspace.open(root)) as store:
        _, internal = store.create("analyst", Sensitivity.INTERNAL)
    with serve_workspace(root) as base:
        yield Served(base, root, WebKeys(internal, internal))


def test_hidden_content_is_read_only_when_the_box_is_ticked(
    page: Page, fresh: Served, tmp_path: Path
) -> None:
    """The same workbook dropped twice: first its hidden cells are skipped and counted, then,
    with "also read hidden sheets, rows and columns" ticked, read with the hidden figures that
    contradict a visible one set aside (tests/hidden_workbook.py holds the counts)."""
    book = tmp_path / "HK_hidden.xlsx"
    write_workbook(book)
    open_page(page, fresh, fresh.keys.internal)
    documents_tab(page)
    box = page.locator("#include-hidden")
    assert not box.is_checked()
    drop(page, book)
    page.locator(".job[data-state=done]").wait_for(timeout=60_000)
    first = page.locator(".job").first.locator("table.results tbody tr td").all_inner_texts()
    assert first[1] == "ingested"
    assert f"{HIDDEN_CELLS} hidden cells skipped" in first[5]
    box.check()
    drop(page, book)
    page.locator(".job[data-state=done] >> nth=1").wait_for(timeout=60_000)
    second = page.locator(".job").first.locator("table.results tbody tr td").all_inner_texts()
    assert second[1] == "ingested"
    assert f"{SET_ASIDE} hidden figures set aside" in second[5]
    assert "hidden cells skipped" not in second[5]
    snap(page, "upload-include-hidden")
