"""Facts listed page by page with their locators, filtered by clearance, on both backends."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from openpyxl import load_workbook

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_listing import (
    COLUMNS,
    FactQuery,
    list_fact_page,
    to_csv,
    to_json,
    to_xlsx,
)
from ragspine.storage.facts import Fact, ReviewStatus
from ragspine.storage.protocol import FactStoreProtocol
from tests.facts import fact
from tests.storage.backends import BACKENDS, open_fact_store

# Four documents' worth: two entities, two metrics, levels from PUBLIC to RESTRICTED, and one
# pending fact that must never be listed.
STORED = (
    fact("REVENUE", "ACME_CN", "FY", "2024", 1320, source_doc_id="a.xlsx"),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2480, source_doc_id="a.xlsx", sensitivity="PUBLIC"),
    fact("NET_PROFIT", "ACME_HK", "FY", "2024", 310, source_doc_id="b.pptx"),
    fact("REVENUE", "ACME_HK", "FY", "2025", 2600, source_doc_id="c.pdf", sensitivity="RESTRICTED"),
    fact(
        "REVENUE",
        "ACME_MO",
        "FY",
        "2025",
        99,
        source_doc_id="d.md",
        review_status=ReviewStatus.PENDING.value,
    ),
)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FactStoreProtocol]:
    with open_fact_store(request.param, request, tmp_path) as opened:
        opened.upsert_facts(STORED)
        yield opened


def _all(store: FactStoreProtocol, **filters: object) -> list[Fact]:
    clearance = filters.pop("clearance", Sensitivity.RESTRICTED)
    assert isinstance(clearance, Sensitivity)
    return list_fact_page(store, FactQuery(clearance, limit=1000, **filters)).facts  # type: ignore[arg-type]


def test_lists_only_approved_facts_the_clearance_covers(store: FactStoreProtocol) -> None:
    everything = _all(store)
    assert {f.value for f in everything} == {1320, 2480, 310, 2600}
    internal = _all(store, clearance=Sensitivity.INTERNAL)
    assert {f.value for f in internal} == {1320, 2480, 310}
    assert {f.value for f in _all(store, clearance=Sensitivity.PUBLIC)} == {2480}


def test_filters_by_document_entity_and_metric(store: FactStoreProtocol) -> None:
    assert [f.value for f in _all(store, document="a.xlsx")] == [1320, 2480]
    assert {f.value for f in _all(store, entity="ACME_HK")} == {2480, 310, 2600}
    assert {f.value for f in _all(store, metric="NET_PROFIT")} == {310}
    assert _all(store, entity="ACME_HK", metric="REVENUE", document="b.pptx") == []


def test_pages_cover_every_fact_once_in_a_fixed_order(store: FactStoreProtocol) -> None:
    seen: list[Fact] = []
    offset: int | None = 0
    while offset is not None:
        page = list_fact_page(store, FactQuery(Sensitivity.RESTRICTED, offset=offset, limit=3))
        assert page.total == 4
        seen += page.facts
        offset = page.next_offset
    assert seen == _all(store)
    keys = [(f.source_doc_id, f.source_locator) for f in seen]
    assert keys == sorted(keys)


def test_bad_pages_are_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        FactQuery(Sensitivity.INTERNAL, limit=0)
    with pytest.raises(ValueError, match="offset"):
        FactQuery(Sensitivity.INTERNAL, offset=-1)


def test_every_format_carries_the_locator(store: FactStoreProtocol) -> None:
    page = list_fact_page(store, FactQuery(Sensitivity.INTERNAL))
    rows = list(csv.DictReader(io.StringIO(to_csv(page.facts))))
    assert [(r["document"], r["locator"], float(r["value"])) for r in rows] == [
        (f.source_doc_id, f.source_locator, f.value) for f in page.facts
    ]
    body = json.loads(to_json(page))
    assert body["total"] == 3 and body["next_offset"] is None
    assert [r["locator"] for r in body["facts"]] == [f.source_locator for f in page.facts]
    sheet = load_workbook(io.BytesIO(to_xlsx(page.facts))).active
    assert sheet is not None
    values = list(sheet.iter_rows(values_only=True))
    assert values[0] == COLUMNS
    assert [(r[0], r[1], r[6]) for r in values[1:]] == [
        (f.source_doc_id, f.source_locator, f.value) for f in page.facts
    ]


def test_a_formula_like_name_stays_text_in_the_workbook() -> None:
    odd = fact(source_doc_id="=HYPERLINK(1)")
    sheet = load_workbook(io.BytesIO(to_xlsx([odd]))).active
    assert sheet is not None
    assert sheet["A2"].value == "'=HYPERLINK(1)"
    assert sheet["A2"].data_type == "s"
