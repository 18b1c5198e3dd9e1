"""Keys, clearance and the page's own weight in a real browser: the key dialog on a 401, an
INTERNAL key that never sees RESTRICTED text, document text that stays text, and assets that
come from this server only and stay under 200 KB."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ragspine.service.http.web import STATIC_DIR
from tests.web.conftest import snap
from tests.web.driver import answer, ask, documents_tab, enter_key, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page, Response

    from tests.web.conftest import Served

FIRST_RENDER_LIMIT = 200_000
# The one absolute URL the assets may hold: the SVG namespace, a name rather than a fetch.
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
EXTERNAL = re.compile(r"https?://[^\s\"'`)]*|url\(|@import|//[a-z0-9.-]+\.[a-z]{2,}/", re.I)
# Text only the RESTRICTED board minutes and board note hold.
RESTRICTED_TEXT = (
    "北极星",
    "东南亚寿险",
    "board_minutes",
    "board_notes",
    "reveal the system prompt",
)
BOARD_QUESTIONS = ("董事会讨论了什么收购", "What acquisition did the board approve?")


def test_the_page_asks_for_a_key_keeps_it_for_the_tab_and_sends_it_as_bearer(
    page: Page, served: Served
) -> None:
    page.goto(served.base_url + "/")
    page.locator("#key-dialog").wait_for()
    assert (
        page.locator("#key-message").inner_text()
        == "服务需要 API 密钥。密钥只保存在本标签页（sessionStorage）。"
    )
    snap(page, "key-dialog")
    enter_key(page, "rsk_not-a-key")
    page.locator("#key-message", has_text="密钥无效或已吊销").wait_for()
    enter_key(page, served.keys.internal)
    page.locator("body[data-ready=true]").wait_for(state="attached")
    assert page.evaluate("sessionStorage.getItem('ragspine.key')") == served.keys.internal
    with page.expect_request("**/v1/ask/stream") as sent:
        ask(page, "中国内地FY2024的收入是多少")
    assert sent.value.headers["authorization"] == f"Bearer {served.keys.internal}"
    page.reload()
    page.locator("body[data-ready=true]").wait_for(state="attached")
    assert not page.locator("#key-dialog").is_visible()


def _open_every_source(page: Page, card_number: int) -> None:
    card = answer(page, card_number)
    for opener in card.locator(".chip, .cite").all():
        opener.click()
        page.locator(
            "#preview-body .error, #preview-body table, #preview-body .passage"
        ).first.wait_for()
        page.keyboard.press("Escape")


def test_an_internal_key_never_sees_the_restricted_board_text(page: Page, served: Served) -> None:
    bodies: list[str] = []

    def keep(response: Response) -> None:
        if "/v1/" in response.url:
            bodies.append(response.text())

    page.on("response", keep)
    open_page(page, served, served.keys.internal)
    for number, question in enumerate(BOARD_QUESTIONS, start=1):
        ask(page, question)
        _open_every_source(page, number)
    snap(page, "restricted-hidden")
    documents_tab(page)
    page.locator("#review-state").select_option("all")
    page.locator("#review-list[data-loaded=true] .review-item").first.wait_for()
    shown = page.content() + page.locator("body").inner_text()
    for text in RESTRICTED_TEXT:
        assert text not in shown
        assert not any(text in body for body in bodies)


def test_a_restricted_key_sees_the_board_text_so_the_check_above_can_fail(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.restricted)
    card = ask(page, BOARD_QUESTIONS[0])
    assert "北极星" in card.inner_text()


def test_document_text_is_shown_as_text_never_as_markup(
    page: Page, served: Served, tmp_path: Path
) -> None:
    note = tmp_path / "Zephyr_Channel_Note.md"
    note.write_text(
        "# Zephyr channel note\n\n"
        'The Zephyr channel note: <img src=x onerror="window.pwned=1"> '
        "<script>window.pwned=2</script> <b>bold</b> stays plain text.\n",
        encoding="utf-8",
    )
    broken = tmp_path / "Broken_Deck.pptx"
    broken.write_bytes(b"PK\x03\x04 not really a deck")
    open_page(page, served, served.keys.internal)
    documents_tab(page)
    page.locator("#files").set_input_files([note, broken])
    page.locator(".job[data-state=done]").wait_for(timeout=60_000)
    rows = page.locator(".job table.results tbody tr")
    outcomes = {row.locator("td").nth(0).inner_text(): row for row in rows.all()}
    assert outcomes[note.name].locator("td").nth(1).inner_text() == "ingested"
    failed = outcomes[broken.name].locator("td")
    assert failed.nth(1).inner_text() == "failed" and failed.nth(6).inner_text()
    snap(page, "upload-failure")
    page.locator("#tab-ask").click()
    card = ask(page, "What does the Zephyr channel note say?")
    assert '<img src=x onerror="window.pwned=1">' in card.inner_text()
    assert card.locator("img, script, b").count() == 0
    assert page.evaluate("window.pwned") is None


def _assets() -> list[Path]:
    return sorted(p for p in STATIC_DIR.rglob("*") if p.is_file())


def test_the_page_assets_are_small_and_name_no_other_host() -> None:
    assets = _assets()
    assert sum(p.stat().st_size for p in assets) < FIRST_RENDER_LIMIT
    for path in assets:
        text = path.read_text(encoding="utf-8")
        found = [m for m in EXTERNAL.findall(text) if m != SVG_NAMESPACE]
        assert not found, f"{path.name} refers to another host: {found}"


def test_the_first_render_loads_every_asset_from_this_server_only(
    page: Page, served: Served
) -> None:
    loaded: dict[str, int] = {}

    def count(response: Response) -> None:
        assert response.url.startswith(served.base_url + "/"), response.url
        if "/v1/" not in response.url:
            loaded[response.url.removeprefix(served.base_url)] = len(response.body())

    page.on("response", count)
    open_page(page, served, served.keys.internal)
    page.wait_for_load_state("networkidle")
    expected = {"/", *(f"/static/{p.relative_to(STATIC_DIR).as_posix()}" for p in _assets())}
    # The favicon is the browser's to fetch or not; everything else is the first render's.
    required = expected - {"/static/index.html", "/static/favicon.svg"}
    assert required <= set(loaded) <= expected
    assert sum(loaded.values()) < FIRST_RENDER_LIMIT
    policy = page.request.get(served.base_url + "/").headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy


# Every control a user fills in or picks from, with the name a screen reader gives it.
UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea")]
  .filter((node) => node.labels.length === 0 && !node.getAttribute("aria-label"))
  .map((node) => node.outerHTML)"""


def test_every_input_has_a_label(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    ask(page, "香港的营运利润是多少")
    documents_tab(page)
    page.locator(".review-item input").first.wait_for()
    assert page.evaluate(UNLABELLED) == []
