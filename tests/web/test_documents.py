"""The Documents tab in a real browser: a deck dropped on the page is ingested while its job's
progress bar fills, and the review queue is worked from the page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.web.conftest import snap
from tests.web.driver import ask, documents_tab, drop, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web.conftest import Served

DECK = "ACME_HK_FY2026_Review.pptx"


def write_deck(path: Path) -> Path:
    """A one-slide deck: Hong Kong's FY2026 revenue in a table."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "ACME 香港 FY2026 业绩回顾"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for (row, col), text in {
        (0, 0): "指标（百万美元）",
        (0, 1): "FY2026",
        (1, 0): "收入",
        (1, 1): "3,300",
    }.items():
        table.cell(row, col).text = text
    deck.save(str(path))
    return path


def test_a_dropped_deck_is_ingested_while_its_job_progress_fills(
    page: Page, served: Served, tmp_path: Path
) -> None:
    open_page(page, served, served.keys.internal)
    documents_tab(page)
    drop(page, write_deck(tmp_path / DECK))
    job = page.locator(".job").first
    page.locator(".job[data-state=done]").wait_for(timeout=60_000)
    assert job.locator("progress").evaluate("bar => bar.value") == 1
    row = job.locator("table.results tbody tr")
    cells = row.locator("td").all_inner_texts()
    assert cells[:2] == [DECK, "ingested"]
    assert int(cells[2]) >= 1  # facts
    snap(page, "upload-done")
    page.reload()
    documents_tab(page)
    page.locator(".job[data-state=done]").wait_for()
    again = page.locator(".job table.results tbody tr td").all_inner_texts()
    assert again == cells, "a reload shows the tab's jobs again"
    page.locator("#tab-ask").click()
    card = ask(page, "香港FY2026的收入是多少")
    assert card.locator(".fact .value").inner_text().startswith("3,300")
    assert card.locator(".fact .chip").inner_text().startswith(f"uploads/analyst/{DECK} · ")


def test_a_review_item_is_approved_with_a_corrected_value_and_another_rejected(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    documents_tab(page)
    approx = page.locator(".review-item", has_text="约1,300")
    assert "low_confidence" in approx.inner_text()
    snap(page, "review")
    approx.get_by_label("更正数值").fill("1299")
    approx.get_by_role("button", name="按更正值批准").click()
    status = page.locator("#review-status")
    status.filter(has_text="已批准").wait_for()
    # The status line is set before the list is fetched again: wait for the item to leave it.
    page.locator(".review-item", has_text="约1,300").wait_for(state="detached")
    unmapped = page.locator(".review-item", has_text="其他收入")
    item = unmapped.get_attribute("data-item")
    unmapped.get_by_role("button", name="驳回").click()
    status.filter(has_text=f"复核项 {item} 已驳回").wait_for()
    page.locator("#review-state").select_option("all")
    page.locator(f'.review-item[data-item="{item}"][data-state=rejected]').wait_for()
    approved = page.locator(".review-item[data-state=approved]", has_text="约1,300")
    assert approved.locator(".corrected").inner_text() == "更正值：1,299"
    snap(page, "review-decided")
    page.locator("#tab-ask").click()
    card = ask(page, "What was ACME Group revenue in 2025Q3?")
    assert card.locator(".fact .value").inner_text() == "US$ 1,299 m"
