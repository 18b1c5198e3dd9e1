"""The "map to …" flow on an unmapped_label review card, in a real browser: the card offers no
Approve, the label is mapped to a new metric and its value is then answered with its source."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from ragspine.ingestion.pipeline import ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.keys.store import KeyStore
from ragspine.workspace import Workspace
from tests.profiles import INITECH_PATH, initech
from tests.serving import serve_workspace
from tests.web.conftest import DESKTOP, PHONE, Served, WebKeys, snap
from tests.web.driver import ask, documents_tab, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

LABEL = "营业收入（港币百万元）"
REPORT = (
    "# 全球 年报\n\n| 项目 | FY2025 | FY2024 |\n| --- | --- | --- |\n"
    f"| 订单额 | 100 | 90 |\n| {LABEL} | 300 | 250 |\n"
)


@pytest.fixture
def initech_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An Initech workspace whose report holds one unmapped label, served by uvicorn (one per
    test: mapping the label changes the workspace)."""
    base = tmp_path_factory.mktemp("map")
    (base / "docs").mkdir()
    (base / "docs" / "report.md").write_text(REPORT, encoding="utf-8")
    ws = Workspace.create(base / "ws")
    ws.install_profile(INITECH_PATH)
    with ws.fact_store() as store:
        ingest([base / "docs"], store, initech())
    with KeyStore(ws) as keys:
        _, internal = keys.create("analyst", Sensitivity.INTERNAL)
    with serve_workspace(ws.root) as base:
        yield Served(base, ws.root, WebKeys(internal, internal))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "375px"])
def test_an_unmapped_label_is_mapped_from_its_card(
    page: Page, initech_served: Served, viewport: dict[str, int]
) -> None:
    """The whole flow is done at each width: the choice, the fields and the button must be
    reachable and usable on a phone too."""
    page.set_viewport_size(viewport)
    open_page(page, initech_served, initech_served.keys.internal)
    documents_tab(page)
    card = page.locator(".review-item", has_text=LABEL)
    assert "unmapped_label" in card.inner_text()
    # Approving could only fail here: the card offers mapping and rejecting instead.
    assert card.get_by_role("button", name="批准").count() == 0
    assert card.get_by_role("button", name="驳回").count() == 1
    # The searchable choice lists the profile's metric codes.
    codes = card.locator("datalist option")
    codes.first.wait_for(state="attached")
    assert [codes.nth(i).get_attribute("value") for i in range(codes.count())] == ["BOOKINGS"]
    card.locator(".map-kind").select_option("new_metric")
    card.locator(".map-code").fill("SALES")
    card.locator(".map-name").fill("营业收入")
    width = viewport["width"]
    for control in (".map-kind", ".map-code", ".map-name"):
        box = card.locator(control).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, control
    if viewport == DESKTOP:
        snap(page, "review-map")
    card.get_by_role("button", name="映射到…").click()
    status = page.locator("#review-status")
    status.filter(has_text="已映射到 SALES").wait_for()
    assert "别名“营业收入”" in status.inner_text()
    page.locator(".review-item", has_text=LABEL).wait_for(state="detached")
    if viewport == DESKTOP:
        snap(page, "review-mapped")
    page.locator("#tab-ask").click()
    answer = ask(page, "全球FY2025的营业收入是多少")
    assert answer.locator(".fact .value").inner_text().startswith("300")
    assert "report.md · section=1,table=1,row=3,col=2" in answer.inner_text()
