"""Every unit marker, currency, footnote, calendar and header form real reports write (issue
26), in every format and in Chinese and English: each table is written by the format's own
library and ingested, and the facts and review reasons it yields are the ones written here by
hand — a value with its currency and scale, or a review item with its reason, never a wrong
number.

The forms that only one format can hold (Excel display formats, hidden sheets, rows, columns
and slides) are in the Harbour Line corpus (``tests/demo/test_harbour_corpus.py``) and
``tests/ingestion/readers/test_hidden_content.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from ragspine.demo import harbour
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.form_documents import WRITERS, Grid
from tests.profiles import acme

Fact = tuple[str, str, str, float, str]  # metric, entity, period label, value, unit


@dataclass(frozen=True)
class Form:
    name: str
    lines: tuple[str, ...]  # title first, then the lines between it and the table
    grid: Grid
    facts: frozenset[Fact]
    review: tuple[str, ...] = ()  # reasons, sorted
    company: str = "acme"  # or "harbour": HK$ reporting, fiscal year ending 31 March
    proposed: tuple[float, ...] = field(default=())  # values the review items propose


def one(metric: str, entity: str, period: str, value: float, unit: str) -> frozenset[Fact]:
    return frozenset({(metric, entity, period, value, unit)})


HK, MO, GROUP = "ACME_HK", "ACME_MO", "ACME_GROUP"
FERRY = "HLH_FERRY"

FORMS: tuple[Form, ...] = (
    # ---------------------------------------------------------------- unit markers
    Form(
        "单位：百万元",
        ("ACME香港", "单位：百万元"),
        (("", "2024年"), ("收入", "8,800")),
        one("REVENUE", HK, "FY2024", 8800, "CNY_M"),
    ),
    Form(
        "单位：万元",
        ("ACME香港", "单位：万元"),
        (("", "2024年"), ("收入", "88,000")),
        one("REVENUE", HK, "FY2024", 880, "CNY_M"),
    ),
    Form(
        "单位：人民币千元",
        ("ACME香港", "单位：人民币千元"),
        (("", "2024年"), ("收入", "8,800,000")),
        one("REVENUE", HK, "FY2024", 8800, "CNY_M"),
    ),
    Form(
        "(RMB billion)",
        ("ACME Hong Kong", "(RMB billion)"),
        (("", "FY2024"), ("Revenue", "8.8")),
        one("REVENUE", HK, "FY2024", 8800, "CNY_M"),
    ),
    Form(
        "(in thousands)",
        ("ACME Hong Kong", "(in thousands)"),
        (("", "FY2024"), ("Revenue", "8,800")),
        # A scale without a currency: the company's reporting currency (US$ for ACME).
        one("REVENUE", HK, "FY2024", 8.8, "USD_M"),
    ),
    Form(
        "(HK$ million)",
        ("ACME Hong Kong", "(HK$ million)"),
        (("", "FY2024"), ("Revenue", "8,800")),
        one("REVENUE", HK, "FY2024", 8800, "HKD_M"),
    ),
    Form(
        "(HK$'000)",
        ("ACME Hong Kong", "(HK$'000)"),
        (("", "FY2024"), ("Revenue", "8,800,000")),
        one("REVENUE", HK, "FY2024", 8800, "HKD_M"),
    ),
    Form(
        "EUR m",
        ("ACME Hong Kong", "Unit: EUR m"),
        (("", "FY2024"), ("Revenue", "8,800")),
        one("REVENUE", HK, "FY2024", 8800, "EUR_M"),
    ),
    Form(
        "单位：港币百万元",
        ("ACME香港", "单位：港币百万元"),
        (("", "2024年"), ("收入", "8,800")),
        one("REVENUE", HK, "FY2024", 8800, "HKD_M"),
    ),
    Form(
        "an unknown marker",
        ("ACME Hong Kong", "(Rs crore)"),
        (("", "FY2024"), ("Revenue", "8,800")),
        frozenset(),
        ("unit_unknown",),
    ),
    Form(
        "an unknown marker (Chinese)",
        ("ACME香港", "单位：千桶"),
        (("", "2024年"), ("收入", "8,800")),
        frozenset(),
        ("unit_unknown",),
    ),
    # ---------------------------------------------------------------- kinds and cells
    Form(
        "a money scale over a head count",
        ("ACME Hong Kong", "(US$ thousands)"),
        (("", "FY2024"), ("Revenue", "8,800"), ("Agent count", "12,000")),
        one("REVENUE", HK, "FY2024", 8.8, "USD_M"),
        ("unit_mismatch",),
    ),
    Form(
        "a money scale over a head count (Chinese)",
        ("ACME香港", "单位：千美元"),
        (("", "2024年"), ("收入", "8,800"), ("代理人数量", "12,000")),
        one("REVENUE", HK, "FY2024", 8.8, "USD_M"),
        ("unit_mismatch",),
    ),
    Form(
        "a currency in a cell",
        ("ACME Hong Kong", "(in millions)"),
        (("", "FY2024"), ("Revenue", "HK$ 950")),
        one("REVENUE", HK, "FY2024", 950, "HKD_M"),
    ),
    Form(
        "a currency in a cell with no scale anywhere",
        ("ACME Hong Kong",),
        (("", "FY2024"), ("Revenue", "HK$ 950")),
        frozenset(),
        ("unit_unknown",),
    ),
    Form(
        "whole yuan in a statement (Chinese)",
        ("ACME香港", "单位：人民币元"),
        (("", "2024年"), ("收入", "950,000,000")),
        one("REVENUE", HK, "FY2024", 950, "CNY_M"),
    ),
    Form(
        "a currency in a cell (Chinese)",
        ("ACME香港",),
        (("", "2024年"), ("收入", "9.5亿元")),
        one("REVENUE", HK, "FY2024", 950, "CNY_M"),
    ),
    Form(
        "a cell currency contradicting the table's",
        ("ACME Hong Kong", "(US$ m)"),
        (("", "FY2024"), ("Revenue", "HK$ 950")),
        frozenset(),
        ("unit_mismatch",),
    ),
    Form(
        "a ratio written as a bare fraction",
        ("ACME Hong Kong",),
        (("", "FY2024"), ("Return on equity", "0.131")),
        frozenset(),
        ("unit_mismatch",),
    ),
    Form(
        "a superscript footnote mark",
        ("ACME Hong Kong", "(US$ m)"),
        (("", "FY2024"), ("Revenue", "1,300¹")),
        frozenset(),
        ("low_confidence",),
        proposed=(1300,),
    ),
    Form(
        "a superscript footnote mark (Chinese)",
        ("ACME香港", "单位：百万美元"),
        (("", "2024年"), ("收入", "1,300⁽²⁾")),
        frozenset(),
        ("low_confidence",),
        proposed=(1300,),
    ),
    # ---------------------------------------------------------------- split fiscal years
    *(
        Form(
            f"split year {header}",
            (title, unit),
            (("", header), (label, "3,480")),
            one("REVENUE", FERRY, "FY2025", 3480, "HKD_M"),
            company="harbour",
        )
        for header, title, unit, label in (
            ("FY2024/25", "Ferries segment", "(HK$ million)", "Revenue"),
            ("2024/25", "Ferries segment", "(HK$ million)", "Revenue"),
            ("2024-25", "Ferries segment", "(HK$ million)", "Revenue"),
            ("24/25财年", "渡轮业务", "单位：港币百万元", "收入"),
            ("Year ended 31 March 2025", "Ferries segment", "(HK$ million)", "Revenue"),
            ("截至2025年3月31日止年度", "渡轮业务", "单位：港币百万元", "收入"),
            ("31 Mar 2025", "Ferries segment", "(HK$ million)", "Revenue"),
        )
    ),
    # ---------------------------------------------------------------- real column headers
    *(
        Form(
            f"header {header}",
            (title, unit) if unit else (title,),
            (("", header), (label, "1,234")),
            one("REVENUE", HK, "FY2019", value, currency),
        )
        for header, title, unit, label, value, currency in (
            ("Fiscal 2019", "ACME Hong Kong", "(US$ m)", "Revenue", 1234, "USD_M"),
            ("FY 2019", "ACME Hong Kong", "(US$ m)", "Revenue", 1234, "USD_M"),
            ("Year ended December 31, 2019", "ACME Hong Kong", "(US$ m)", "Revenue", 1234, "USD_M"),
            ("December 31, 2019", "ACME Hong Kong", "(US$ m)", "Revenue", 1234, "USD_M"),
            ("31 Dec 2019", "ACME Hong Kong", "(US$ m)", "Revenue", 1234, "USD_M"),
            ("2019 $'000", "ACME Hong Kong", "", "Revenue", 1.234, "USD_M"),
            ("2019 £m", "ACME Hong Kong", "", "Revenue", 1234, "GBP_M"),
            ("2019 (in millions)", "ACME Hong Kong", "", "Revenue", 1234, "USD_M"),
            ("2019年度", "ACME香港", "单位：百万美元", "收入", 1234, "USD_M"),
            ("2019年12月31日", "ACME香港", "单位：百万美元", "收入", 1234, "USD_M"),
        )
    ),
    # ---------------------------------------------------------------- layouts
    Form(
        "an unlabeled total row",
        ("ACME Hong Kong", "(US$ m)"),
        (("", "FY2024"), ("Revenue", "100"), ("Net profit", "20"), ("", "120")),
        frozenset(
            {("REVENUE", HK, "FY2024", 100, "USD_M"), ("NET_PROFIT", HK, "FY2024", 20, "USD_M")}
        ),
        ("missing_metric",),
    ),
    Form(
        "a total row naming no metric (Chinese)",
        ("ACME香港", "单位：百万美元"),
        (("", "2024年"), ("收入", "100"), ("净利润", "20"), ("合计", "120")),
        frozenset(
            {("REVENUE", HK, "FY2024", 100, "USD_M"), ("NET_PROFIT", HK, "FY2024", 20, "USD_M")}
        ),
        ("missing_metric",),
    ),
    Form(
        "a label repeated under two section headings",
        ("ACME Group", "(US$ m)"),
        (("", "FY2024"), ("Hong Kong", ""), ("Revenue", "100"), ("Macau", ""), ("Revenue", "50")),
        frozenset(
            {("REVENUE", HK, "FY2024", 100, "USD_M"), ("REVENUE", MO, "FY2024", 50, "USD_M")}
        ),
    ),
    Form(
        "a metric row without figures inside a section",
        ("ACME Group", "(US$ m)"),
        (
            ("", "FY2024"),
            ("Hong Kong", ""),
            ("Revenue", "100"),
            ("Macau", ""),
            ("Revenue", "—"),  # no figure: not a heading, Macau's section goes on
            ("Net profit", "5"),
        ),
        frozenset(
            {("REVENUE", HK, "FY2024", 100, "USD_M"), ("NET_PROFIT", MO, "FY2024", 5, "USD_M")}
        ),
    ),
    Form(
        "a label repeated under two section headings (Chinese)",
        ("ACME集团", "单位：百万美元"),
        (("", "2024年"), ("香港", ""), ("收入", "100"), ("澳门", ""), ("收入", "50")),
        frozenset(
            {("REVENUE", HK, "FY2024", 100, "USD_M"), ("REVENUE", MO, "FY2024", 50, "USD_M")}
        ),
    ),
)


@cache
def _profile(company: str) -> DomainProfile:
    """One object per company, so its compiled matchers are built once."""
    return acme() if company == "acme" else load_profile(harbour.profile_path())


def _ingest(tmp_path: Path, form: Form, fmt: str) -> SQLiteWorkspaceStore:
    root = tmp_path / "docs"
    root.mkdir()
    WRITERS[fmt](root / f"table.{fmt}", form.lines, form.grid)
    store = SQLiteWorkspaceStore(tmp_path / "ws.db")
    store.init_schema()
    report = ingest([root], store, _profile(form.company))
    assert report.failures == []
    return store


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize("form", FORMS, ids=[f.name for f in FORMS])
def test_a_form_yields_its_true_value_or_a_review_item(
    tmp_path: Path, form: Form, fmt: str
) -> None:
    store = _ingest(tmp_path, form, fmt)
    facts = {
        (f.metric_code, f.entity, f"{f.period_type}{f.period}", round(f.value, 9), f.unit)
        for f in store.list_facts()
    }
    assert facts == form.facts
    items = store.list_review()
    assert sorted(i.reason for i in items) == sorted(form.review)
    proposed = sorted(float(str(i.proposed["value"])) for i in items if i.proposed)
    assert proposed == sorted(form.proposed)


def test_every_form_is_written_in_chinese_and_english() -> None:
    """Each group of forms has a Chinese table and an English one."""
    chinese = [f for f in FORMS if any("\u4e00" <= ch <= "\u9fff" for ch in "".join(f.lines))]
    assert len(chinese) >= 10
    assert len(FORMS) - len(chinese) >= 10
