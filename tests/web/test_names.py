"""Names a person reads on the page (issue 27, "Names everywhere"): cards and charts name the
profile's entities and metrics in the question's language, never codes; a long label is never
clipped, at desktop width or at 375 px; the placeholder example comes from the workspace's own
profile."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.web.conftest import DESKTOP, PHONE, snap
from tests.web.driver import ask, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from tests.web.conftest import Served

LONG_EN = "Northern Waterways Logistics, Cross-Border Freight Forwarding and Warehousing Division"
LONG_ZH = "北方水道物流及跨境货运代理与仓储综合服务事业部"
CODES = ("ACME_HK", "ACME_CN", "OPERATING_PROFIT", "USD_M", "TW_LOGISTICS", "TW_PORTS", "HKD_M")


def _shown(card: Locator) -> str:
    """The text of the card's figures and chart (its source chips name files, not slots)."""
    return "\n".join(card.locator(".fact .value, .fact .what, figure.chart").all_inner_texts())


def test_cards_and_the_chart_name_entities_and_metrics_not_codes(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.internal)
    card = ask(page, "香港和中国内地FY2025营运利润对比")
    assert card.locator(".fact .what").all_inner_texts() == [
        "营运利润 · 香港 · FY2025",
        "营运利润 · 中国内地 · FY2025",
    ]
    assert card.locator("figure.chart .bar-label").all_inner_texts() == ["香港", "中国内地"]
    assert card.locator("figure.chart figcaption").inner_text() == "营运利润 对比（百万美元）"
    values = card.locator("figure.chart .bar-value").all_inner_texts()
    assert all(v.endswith(" 百万美元") for v in values)
    shown = _shown(card)
    assert not [code for code in CODES if code in shown]
    # At 375 px the card shows the same names (snap also fails on a page wider than 375 px).
    page.set_viewport_size(PHONE)
    assert card.locator("figure.chart .bar-label").all_inner_texts() == ["香港", "中国内地"]
    snap(page, "names-zh")
    english = ask(page, "Hong Kong vs Mainland China operating profit FY2025")
    assert english.locator("figure.chart .bar-label").all_inner_texts() == [
        "Hong Kong",
        "Mainland China",
    ]
    assert english.locator(".fact .value").first.inner_text().startswith("US$ ")
    assert not [code for code in CODES if code in _shown(english)]


def _inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def _assert_not_clipped(page: Page, label: Locator, width: int) -> None:
    box = label.bounding_box()
    chart = label.locator("xpath=ancestor::figure[1]").bounding_box()
    assert box is not None and chart is not None
    assert _inside(box, chart), f"label sticks out of its chart at {width}px"
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    # The label's whole text is laid out: nothing hidden by overflow or an ellipsis.
    assert label.evaluate("n => n.scrollWidth <= n.clientWidth && n.scrollHeight <= n.clientHeight")
    assert label.evaluate("n => getComputedStyle(n).textOverflow") != "ellipsis"


@pytest.mark.parametrize(
    ("question", "long_name"),
    [
        ("Logistics and Ports turnover FY2024", LONG_EN),
        ("物流和港口分部FY2024营业额对比", LONG_ZH),
    ],
)
def test_a_long_label_is_never_clipped_at_desktop_width_or_375_px(
    page: Page, long_names_served: Served, question: str, long_name: str
) -> None:
    served = long_names_served
    open_page(page, served, served.keys.internal)
    card = ask(page, question)
    labels = card.locator("figure.chart .bar-label")
    assert labels.all_inner_texts()[0] == long_name
    assert labels.first.get_attribute("class") == "bar-label"
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        _assert_not_clipped(page, labels.first, viewport["width"])
        # The full name is also the row's accessible name (and tooltip).
        assert long_name in (
            card.locator("figure.chart .bar-link").first.get_attribute("title") or ""
        )
    page.set_viewport_size(DESKTOP)
    assert long_name in card.locator(".fact .what").first.inner_text()
    snap(page, f"long-label-{'zh' if long_name == LONG_ZH else 'en'}")


def test_the_placeholder_example_comes_from_the_workspaces_profile(
    page: Page, served: Served, long_names_served: Served
) -> None:
    open_page(page, long_names_served, long_names_served.keys.internal)
    question = page.locator("#question")
    # The browser's locale is Chinese: the Chinese example, made of this profile's names.
    placeholder = question.get_attribute("placeholder") or ""
    assert placeholder.startswith("例如：") and LONG_ZH in placeholder and "营业额" in placeholder
    assert "ACME" not in placeholder and "香港" not in placeholder
    page.locator("#lang").select_option("en")
    english = question.get_attribute("placeholder") or ""
    assert english.startswith("e.g. ") and LONG_EN in english and "Turnover" in english
    open_page(page, served, served.keys.internal)
    assert "Turnover" not in (question.get_attribute("placeholder") or "")
