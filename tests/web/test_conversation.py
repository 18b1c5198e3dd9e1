"""Follow-ups in the page: the session's conversation goes with each question, "New
conversation" starts over, and a key change never carries an earlier answer's RESTRICTED
figure over. Expected figures come from the demo corpus's ground truth, not the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragspine.demo.corpus import load_ground_truth
from ragspine.demo.tour import CORPUS_DIR
from tests.web.driver import ask, enter_key, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web.conftest import Served


def shown(served: Served, metric: str, entity: str, year: str) -> set[str]:
    """The figure as the page shows it ("1,320"), for each document stating the fact."""
    truth = load_ground_truth(served.workspace / CORPUS_DIR)
    return {
        f"{f.value:,.0f}" for f in truth.facts if f.key == (metric, entity, "FY", year, "TOTAL")
    }


def test_a_follow_up_takes_the_previous_questions_slots(page: Page, served: Served) -> None:
    open_page(page, served, served.keys.internal)
    first = ask(page, "香港FY2024的营运利润是多少")
    assert first.locator(".fact .value").inner_text().split()[0] in shown(
        served, "OPERATING_PROFIT", "ACME_HK", "2024"
    )
    follow = ask(page, "那FY2023呢？")
    assert follow.get_attribute("data-kind") == "found"
    assert follow.locator(".fact .what").inner_text() == "营运利润 · 香港 · FY2023"
    assert follow.locator(".fact .value").inner_text().split()[0] in shown(
        served, "OPERATING_PROFIT", "ACME_HK", "2023"
    )
    assert "【假设】营运利润，香港，沿用上一个问题" in follow.inner_text()
    other = ask(page, "那澳门呢？")
    assert other.locator(".fact .what").inner_text() == "营运利润 · 澳门 · FY2023"
    page.locator("#new-conversation").click()
    fresh = ask(page, "那FY2023呢？")
    assert fresh.get_attribute("data-kind") != "found"
    assert "沿用上一个问题" not in fresh.inner_text()


def test_after_a_key_change_the_follow_up_is_answered_for_the_new_key(
    page: Page, served: Served
) -> None:
    open_page(page, served, served.keys.restricted)
    board = ask(page, "集团FY2025新业务价值是多少")
    assert board.locator(".fact .value").inner_text().split()[0] in shown(
        served, "NBV", "ACME_GROUP", "2025"
    )
    page.locator("#key-button").click()
    enter_key(page, served.keys.internal)
    follow = ask(page, "那FY2024呢？")
    assert follow.get_attribute("data-kind") == "not_found"
    text = follow.inner_text()
    assert "沿用上一个问题" in text
    for figure in shown(served, "NBV", "ACME_GROUP", "2024") | shown(
        served, "NBV", "ACME_GROUP", "2025"
    ):
        assert figure not in text and figure.replace(",", "") not in text


def test_a_follow_up_to_a_ranking_ranks_the_units_again(page: Page, served: Served) -> None:
    """ "那FY2023呢？" after a ranking ranks the same regions for FY2023: the page shows each
    region's FY2023 figure (the corpus's truth) and names the ranking kept."""
    open_page(page, served, served.keys.internal)
    ask(page, "FY2024哪个地区收入最高？")
    follow = ask(page, "那FY2023呢？")
    assert follow.get_attribute("data-kind") == "found"
    text = follow.inner_text()
    assert "排名（从高到低），沿用上一个问题" in text
    for entity in ("ACME_HK", "ACME_CN", "ACME_MO"):
        assert any(figure in text for figure in shown(served, "REVENUE", entity, "2023"))
    assert not any(figure in text for figure in shown(served, "REVENUE", "ACME_HK", "2024"))


def test_a_follow_up_asking_for_a_share_is_said_not_computed(page: Page, served: Served) -> None:
    """ "占比呢？" after a figure is answered "not computed" (the page's session carries the
    question's slots), not with the figure; "为什么？" after it stays a prose question."""
    open_page(page, served, served.keys.internal)
    ask(page, "香港FY2024的收入是多少")
    share = ask(page, "占比呢？")
    assert share.get_attribute("data-kind") == "clarify"
    text = share.inner_text()
    assert "未回答：问题要求「占比」" in text
    for figure in shown(served, "REVENUE", "ACME_HK", "2024"):
        assert figure not in text and figure.replace(",", "") not in text
    why = ask(page, "为什么？")
    assert why.get_attribute("data-kind") != "clarify"
    assert "未回答" not in why.inner_text()
