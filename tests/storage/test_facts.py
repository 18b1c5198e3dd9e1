from __future__ import annotations

import dataclasses
import math

import pytest

from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_store import Fact, ReviewStatus
from tests.storage.conformance import make_fact


@pytest.mark.parametrize(
    ("period_type", "period", "label"),
    [("FY", "2024", "FY2024"), ("H1", "2025", "2025H1"), ("Q3", "2025", "2025Q3")],
)
def test_period_label(period_type: str, period: str, label: str) -> None:
    assert make_fact(period_type=period_type, period=period).period_label == label


def test_natural_key_leaves_out_the_document() -> None:
    fact = make_fact(channel="ONLINE")
    assert fact.natural_key == ("REVENUE", "ACME_HK", "FY", "2024", "ONLINE")
    assert make_fact(channel="ONLINE", source_doc_id="other.pdf").natural_key == fact.natural_key


def test_defaults() -> None:
    fact = make_fact(ingested_at=None)
    assert (fact.sensitivity, fact.review_status) == ("INTERNAL", "approved")
    assert fact.source_file_hash is fact.extractor_version is fact.mapping_version is None
    assert fact.ingested_at is None


def test_enum_and_loose_spellings_are_normalised() -> None:
    fact = make_fact(sensitivity=Sensitivity.RESTRICTED, review_status=" Pending ", value=7)
    assert fact.sensitivity == "RESTRICTED" and type(fact.sensitivity) is str
    assert fact.review_status == "pending" and type(fact.review_status) is str
    assert fact.value == 7.0 and type(fact.value) is float
    assert fact == make_fact(sensitivity="restricted", review_status=ReviewStatus.PENDING, value=7)


@pytest.mark.parametrize(
    "raw",
    [
        "2025-01-10T16:00:00+08:00",
        "2025-01-10T08:00:00Z",
        "2025-01-10T08:00:00",
        "2025-01-10T08:00:00.000000+00:00",
    ],
)
def test_ingested_at_is_stored_in_one_canonical_utc_form(raw: str) -> None:
    assert make_fact(ingested_at=raw).ingested_at == "2025-01-10T08:00:00.000000+00:00"


@pytest.mark.parametrize(
    ("field", "bad", "message"),
    [
        ("metric_code", "", "metric_code"),
        ("entity", None, "entity"),
        ("unit", " ", "unit"),
        ("period_type", "FY2024", "valid options: FY, H1, H2, Q1, Q2, Q3, Q4"),
        ("period", "24", "four-digit year"),
        ("period", "２０２４", "four-digit year"),
        ("sensitivity", "SECRET", "valid options: PUBLIC"),
        ("review_status", "maybe", "valid options: approved, pending, rejected"),
        ("value", math.nan, "finite"),
        ("value", math.inf, "finite"),
        ("value", "12", "number"),
        ("value", True, "number"),
        ("ingested_at", "yesterday", "ISO-8601"),
    ],
)
def test_invalid_fields_are_refused_by_name(field: str, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_fact(**{field: bad})


def test_facts_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        make_fact().value = 1.0  # type: ignore[misc]


def test_review_status_parse_names_the_options() -> None:
    assert ReviewStatus.parse("APPROVED") is ReviewStatus.APPROVED
    with pytest.raises(ValueError, match="valid options: approved, pending, rejected"):
        ReviewStatus.parse("done")


def test_the_ten_positional_fields_come_in_the_documented_order() -> None:
    fact = Fact(
        "REVENUE",
        "ACME_HK",
        "HK",
        "TOTAL",
        "FY",
        "2024",
        1234.5,
        "USD_M",
        "ACME_FY2024_Review.pptx",
        "slide=2,table=1,row=REVENUE,col=FY2024",
    )
    assert fact == make_fact(ingested_at=None)
