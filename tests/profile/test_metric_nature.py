"""A metric's nature: a flow is summed over periods, a balance never, an unknown never either.

The expected natures are written from what each name means in a balance sheet or an income
statement, not read back from the word lists.
"""

from __future__ import annotations

import pytest

from ragspine.profile.metric_nature import MetricNature, nature_from_names, nature_of
from ragspine.profile.model import MetricDef, MetricKind
from tests.profiles import acme, initech, lakeside, solo

BALANCE, FLOW = MetricNature.BALANCE, MetricNature.FLOW


@pytest.mark.parametrize(
    ("names", "nature"),
    [
        (("TOTAL_ASSETS", "Total assets", "总资产"), BALANCE),
        (("Total liabilities",), BALANCE),
        (("负债总额",), BALANCE),
        (("Shareholders' equity", "股东权益"), BALANCE),
        (("Customer deposits", "客户存款"), BALANCE),
        (("Loans outstanding",), BALANCE),
        (("贷款余额",), BALANCE),
        (("Cash balance",), BALANCE),
        (("现金及现金等价物",), BALANCE),
        (("Assets under management", "AUM"), BALANCE),
        (("管理资产规模",), BALANCE),
        (("Inventories", "存货"), BALANCE),
        (("Embedded value",), BALANCE),
        (("Order backlog",), BALANCE),
        (("Net sales", "销售净额"), FLOW),
        (("Gross written premiums", "GWP"), FLOW),
        (("Claims incurred", "已发生赔款"), FLOW),
        (("Operating cash flow",), FLOW),
        (("经营活动现金流",), FLOW),
        (("Capital expenditure",), FLOW),
        (("Net interest income",), FLOW),
        (("营业利润",), FLOW),
        (("Bookings",), FLOW),
        # both kinds of word: an income on a balance, a loss on an asset
        (("Interest income on loans",), None),
        (("存款利息支出",), None),
        (("资产减值损失",), None),
        # neither: may be a balance, so never taken for a flow
        (("Policy float", "浮存金"), None),
        (("GMV",), None),
    ],
)
def test_names_tell_a_balance_from_a_flow(names: tuple[str, ...], nature: MetricNature) -> None:
    assert nature_from_names(names) is nature


def test_english_words_match_whole() -> None:
    assert nature_from_names(["Debtors"]) is None  # "debt" inside a word
    assert nature_from_names(["Loanable"]) is None


def _metric(kind: MetricKind = MetricKind.AMOUNT, **fields: object) -> MetricDef:
    return MetricDef.model_validate(
        {"code": "TOTAL_ASSETS", "name_zh": "总资产", "name_en": "Total assets", "unit": "USD_M"}
        | {"kind": kind.value, "unit": "PCT" if kind is MetricKind.RATIO else "USD_M"}
        | fields
    )


def test_a_declared_nature_wins_over_the_names() -> None:
    assert nature_of(_metric()) is BALANCE
    assert nature_of(_metric(nature="flow")) is FLOW
    sales = MetricDef(code="NET_SALES", name_zh="销售净额", name_en="Net sales", unit="USD_M")
    assert nature_of(sales) is FLOW
    assert nature_of(sales.model_copy(update={"nature": BALANCE})) is BALANCE


def test_only_an_amount_or_a_count_has_a_nature() -> None:
    assert nature_of(_metric(MetricKind.RATIO)) is None
    with pytest.raises(ValueError, match="nature applies to an amount or a count only"):
        _metric(MetricKind.RATIO, nature="balance")
    agents = _metric(MetricKind.COUNT, unit="COUNT", nature="balance")
    assert nature_of(agents) is BALANCE


def test_the_shipped_and_test_profiles_read_as_their_documents_mean() -> None:
    """Every amount and count the example profile has is declared, each amount as its names
    say; the test companies' amounts are all flows, read from their names."""
    example = acme()
    summable = [m for m in example.metrics if m.kind in (MetricKind.AMOUNT, MetricKind.COUNT)]
    assert {m.code: m.nature for m in summable} == {
        "REVENUE": FLOW,
        "OPERATING_PROFIT": FLOW,
        "NET_PROFIT": FLOW,
        "NBV": FLOW,
        "EMBEDDED_VALUE": BALANCE,
        "AGENT_COUNT": BALANCE,  # the agents at a period's end; its names do not say so
    }
    for m in summable:
        if m.kind is MetricKind.AMOUNT:
            assert nature_from_names((m.code, m.name_en, m.name_zh, *m.aliases)) is m.nature
    for profile in (initech(), lakeside(), solo()):
        assert {nature_of(m) for m in profile.metrics} == {FLOW}
