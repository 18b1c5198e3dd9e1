"""The Ask tab in a real browser: every kind of answer, as issue 14 accepts it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.web.conftest import snap
from tests.web.driver import answer, ask, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web.conftest import Served


def test_a_found_number_shows_large_with_its_source_chip_and_preview(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "中国内地FY2024的收入是多少")
    assert card.get_attribute("data-kind") == "found"
    fact = card.locator(".fact")
    assert fact.locator(".value").inner_text().replace("\n", " ") == "1,320 百万美元"
    assert fact.locator(".what").inner_text() == "收入 · 中国内地 · FY2024"
    chip = fact.locator(".chip")
    assert chip.inner_text() == "workbooks/ACME_5Y_Financials.xlsx · sheet=CN,cell=E2"
    snap(page, "found")
    chip.click()
    dialog = page.locator("#preview-dialog")
    dialog.locator(".preview-value").wait_for()
    assert dialog.locator("#preview-where").inner_text() == (
        "workbooks/ACME_5Y_Financials.xlsx · sheet=CN,cell=E2"
    )
    assert dialog.locator(".preview-value").inner_text() == "1,320 百万美元"
    assert "中国内地" in dialog.locator("table").inner_text()
    snap(page, "preview")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()


def test_a_narrowing_button_asks_the_narrowed_question(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "香港的营运利润是多少")
    banner = card.locator(".assumption")
    assert "未指定期间" in banner.inner_text()
    assert card.locator(".fact .value").inner_text().startswith("1,052")
    snap(page, "assumption")
    banner.get_by_role("button", name="FY2024").click()
    narrowed = answer(page, 2)
    assert narrowed.locator(".q").inner_text() == "香港的营运利润是多少 FY2024"
    assert narrowed.locator(".fact .what").inner_text() == "营运利润 · 香港 · FY2024"
    assert narrowed.locator(".fact .value").inner_text().startswith("968")
    assert narrowed.locator(".assumption").count() == 0
    history = page.locator("#history-list li")
    assert history.all_inner_texts() == ["香港的营运利润是多少 FY2024", "香港的营运利润是多少"]
    snap(page, "narrowed")


def test_a_clarifying_question_is_answered_by_clicking_a_metric(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "香港FY2025的数据是多少")
    box = card.locator(".clarify-box")
    assert "请问您想查询哪个指标" in box.inner_text()
    assert card.locator(".fact").count() == 0
    snap(page, "clarify")
    box.get_by_role("button", name="收入（REVENUE）").click()
    answered = answer(page, 2)
    assert answered.locator(".fact .what").inner_text() == "收入 · 香港 · FY2025"
    assert answered.locator(".fact .value").inner_text().startswith("3,105")


def test_a_competitor_is_refused_and_a_missing_fact_is_not_found_each_in_its_style(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    refused = ask(page, "竞安保险FY2025的收入是多少")
    assert refused.get_attribute("data-kind") == "refused"
    assert "竞安保险" in refused.locator(".refusal").inner_text()
    assert refused.locator(".fact, .chip").count() == 0
    snap(page, "refused")
    missing = ask(page, "中国内地FY2019的收入是多少")
    assert missing.get_attribute("data-kind") == "not_found"
    box = missing.locator(".not-found")
    assert box.locator(".missing li").inner_text() == "收入 · 中国内地 · FY2019 · 合计"
    assert "查不到" in box.inner_text()
    colours = [
        locator.evaluate("node => getComputedStyle(node).backgroundColor")
        for locator in (refused.locator(".refusal"), box)
    ]
    assert colours[0] != colours[1]
    snap(page, "not-found")


def test_a_narrative_answer_streams_with_numbered_citations_linked_to_passages(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    with page.expect_response("**/v1/ask/stream") as streamed:
        card = ask(page, "香港监管动态")
    assert streamed.value.headers["content-type"].startswith("text/event-stream")
    assert card.get_attribute("data-kind") == "narrative"
    assert "风险为本资本制度" in card.locator(".part p").inner_text()
    marker = card.locator(".part p .cite")
    assert marker.inner_text() == "[1]"
    assert card.locator(".citations li").inner_text().replace("\n", "") == (
        "[1] decks/ACME_FY2024_Review.pptx · slide=4,notes"
    )
    snap(page, "narrative")
    marker.click()
    passage = page.locator("#preview-dialog .passage")
    passage.wait_for()
    assert "风险为本资本制度（RBC）于2024年正式实施" in passage.inner_text()
    snap(page, "narrative-passage")


def test_a_composite_answer_shows_its_facts_then_the_attribution(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "为什么香港FY2025收入增长")
    assert card.get_attribute("data-kind") == "found"
    assert card.locator(".fact").count() == 2
    assert card.locator(".part h3").inner_text() == "归因分析："
    assert card.locator(".part .cite").count() >= 1
    assert card.locator(".citations li").count() >= 1
    snap(page, "composite")


def test_a_comparison_draws_a_bar_chart_each_bar_opening_its_source(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "香港和中国内地FY2025营运利润对比")
    bars = card.locator("figure.chart .bar-link")
    assert bars.count() == 2
    assert card.locator("figure.chart .bar-label").all_inner_texts() == ["香港", "中国内地"]
    widths = [bar.locator(".bar").bounding_box()["width"] for bar in bars.all()]  # type: ignore[index]
    assert widths[0] > widths[1] > 0
    snap(page, "chart")
    bars.nth(1).focus()
    page.keyboard.press("Enter")
    where = page.locator("#preview-where")
    where.wait_for()
    assert where.inner_text() == "workbooks/ACME_5Y_Financials.xlsx · sheet=CN,cell=F3"
    assert page.locator("#preview-dialog .preview-value").inner_text() == "334 百万美元"


def test_periods_compared_are_charted_in_time_order(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "集团FY2025收入同比增长多少")
    labels = card.locator("figure.chart .bar-label").all_inner_texts()
    assert labels == ["FY2024", "FY2025"]


def test_the_page_speaks_the_language_of_the_question_or_the_toggle(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "What was ACME HK revenue in FY2025?")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("#ask-button").inner_text() == "Ask"
    assert card.locator(".fact .value").inner_text() == "US$ 3,105 m"
    snap(page, "english")
    page.locator("#lang").select_option("zh")
    assert page.locator("#ask-button").inner_text() == "提问"
    ask(page, "What was ACME HK revenue in FY2024?")
    assert page.locator("html").get_attribute("lang") == "zh-CN"


def test_the_page_works_from_the_keyboard_alone(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    page.locator("#question").focus()
    page.keyboard.type("中国内地FY2024的收入是多少")
    page.keyboard.press("Enter")
    card = answer(page, 1)
    chip = card.locator(".fact .chip")
    for _ in range(30):
        if chip.evaluate("node => node === document.activeElement"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.locator("#preview-dialog .preview-value").wait_for()
    page.keyboard.press("Escape")
    assert chip.evaluate("node => node === document.activeElement")
    page.locator("#tab-ask").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("#panel-docs").is_visible()
    assert page.locator("#tab-docs").evaluate("node => node === document.activeElement")


def test_a_partial_answer_shows_the_found_figure_and_lists_what_is_missing(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "香港FY2021和FY2025的收入")
    assert card.get_attribute("data-kind") == "partial"
    assert card.locator(".fact .what").inner_text() == "收入 · 香港 · FY2025"
    assert card.locator(".not-found .missing li").inner_text() == ("收入 · 香港 · FY2021 · 合计")


def test_a_vetted_faq_answer_is_marked_with_its_item_and_source(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "Which dividend policy do we follow?")
    assert card.locator(".badge.faq").inner_text() == (
        "Vetted FAQ answer (dividend-policy, version 1)"
    )
    assert "progressive dividend policy" in card.locator(".text").inner_text()
    assert card.locator(".sources .chip").inner_text() == (
        "reports/ACME_annual_report_2025.pdf · page=1,para=5"
    )
    snap(page, "faq")
