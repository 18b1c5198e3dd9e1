"""Steps the web tests take on the page, as a user would: enter a key, ask, open a tab, drop
files on the upload zone."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from tests.web.conftest import Served


def enter_key(page: Page, key: str) -> None:
    dialog = page.locator("#key-dialog")
    dialog.wait_for(state="visible")
    page.locator("#key-input").fill(key)
    page.locator("#key-input").press("Enter")


def open_page(page: Page, served: Served, key: str) -> None:
    """Load the page, answer its key dialog and wait until the key is accepted."""
    page.goto(served.base_url + "/")
    enter_key(page, key)
    page.locator("body[data-ready=true]").wait_for(state="attached")


def ask(page: Page, question: str) -> Locator:
    """Ask through the question box; the finished answer card."""
    count = page.locator("article.answer").count()
    page.locator("#question").fill(question)
    page.locator("#question").press("Enter")
    return answer(page, count + 1)


def answer(page: Page, number: int) -> Locator:
    """The page's ``number``-th answer card (1 = the first asked), once finished."""
    card = page.locator(f'article.answer[data-seq="{number}"]')
    page.locator(f'article.answer[data-seq="{number}"][aria-busy=false]').wait_for()
    return card


def documents_tab(page: Page) -> None:
    page.locator("#tab-docs").click()
    page.locator("#review-list[data-loaded=true]").wait_for(state="attached")


# Drops files on the zone as a user's drag does: a DataTransfer holding File objects.
DROP = """([zone, files]) => {
  const transfer = new DataTransfer();
  for (const [name, data] of files) {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], name));
  }
  const target = document.getElementById(zone);
  for (const type of ["dragenter", "dragover", "drop"]) {
    const init = {dataTransfer: transfer, bubbles: true, cancelable: true};
    target.dispatchEvent(new DragEvent(type, init));
  }
}"""


def drop(page: Page, *files: Path) -> None:
    """Drop ``files`` on the Documents tab's zone, as a user's drag does."""
    payload = [[f.name, base64.b64encode(f.read_bytes()).decode()] for f in files]
    page.evaluate(DROP, ["drop-zone", payload])
