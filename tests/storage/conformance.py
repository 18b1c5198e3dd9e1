"""The behaviour every fact store must share, whatever the database behind it.

Subclass :class:`FactStoreConformance` in a ``Test…`` class and give it a ``store`` fixture that
yields an initialised, empty store; every test here then runs against that backend.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_store import PERIOD_TYPES, Fact, FactStoreProtocol, ReviewStatus

DECK = "ACME_FY2024_Review.pptx"
WORKBOOK = "ACME_Budget_2025.xlsx"
EARLY = "2025-01-10T08:00:00.000000+00:00"
LATE = "2025-03-01T08:00:00.000000+00:00"


def make_fact(**overrides: Any) -> Fact:
    """A valid HK revenue fact from the deck, ingested at ``EARLY``; ``overrides`` change fields."""
    fields: dict[str, Any] = {
        "metric_code": "REVENUE",
        "entity": "ACME_HK",
        "geography": "HK",
        "channel": "TOTAL",
        "period_type": "FY",
        "period": "2024",
        "value": 1234.5,
        "unit": "USD_M",
        "source_doc_id": DECK,
        "source_locator": "slide=2,table=1,row=REVENUE,col=FY2024",
        "ingested_at": EARLY,
    }
    fields.update(overrides)
    return Fact(**fields)


def corrupt(fact: Fact, **fields: Any) -> Fact:
    """``fact`` with fields set past validation, as a buggy caller or a bad migration could."""
    for name, value in fields.items():
        object.__setattr__(fact, name, value)
    return fact


_text = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=20
).filter(str.strip)

_facts = st.builds(
    Fact,
    metric_code=_text,
    entity=_text,
    geography=_text,
    channel=_text,
    period_type=st.sampled_from(PERIOD_TYPES),
    period=st.integers(1900, 2199).map(str),
    value=st.floats(allow_nan=False, allow_infinity=False),
    unit=_text,
    source_doc_id=_text,
    source_locator=_text,
    sensitivity=st.sampled_from(list(Sensitivity)),
    source_file_hash=st.none() | _text,
    extractor_version=st.none() | _text,
    mapping_version=st.none() | _text,
    ingested_at=st.none() | st.datetimes(timezones=st.just(UTC)).map(datetime.isoformat),
)


class FactStoreConformance:
    """Contract tests for :class:`~ragspine.storage.fact_store.FactStoreProtocol`."""

    def test_implements_the_protocol(self, store: FactStoreProtocol) -> None:
        assert isinstance(store, FactStoreProtocol)

    # --- writing and reading back -------------------------------------------------------------

    def test_round_trip_keeps_every_field(self, store: FactStoreProtocol) -> None:
        fact = make_fact(
            sensitivity="CONFIDENTIAL",
            source_file_hash="sha256:ab12",
            extractor_version="pptx-2",
            mapping_version="glossary-7",
        )
        assert store.upsert_facts([fact]) == 1
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == fact
        assert store.list_facts() == [fact]

    def test_store_stamps_ingested_at_when_missing(self, store: FactStoreProtocol) -> None:
        unstamped = make_fact(ingested_at=None)
        before = datetime.now(UTC)
        store.upsert_facts([unstamped])
        after = datetime.now(UTC)
        stored = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
        assert stored is not None and stored.ingested_at is not None
        assert before <= datetime.fromisoformat(stored.ingested_at) <= after
        assert stored == dataclasses.replace(unstamped, ingested_at=stored.ingested_at)

    @settings(
        max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(fact=_facts)
    def test_any_valid_fact_round_trips(self, store: FactStoreProtocol, fact: Fact) -> None:
        store.upsert_facts([fact])
        try:
            stored = store.get_fact(
                fact.metric_code,
                fact.entity,
                fact.period_type,
                fact.period,
                fact.channel,
                clearance=Sensitivity.RESTRICTED,
            )
            assert stored is not None
            assert stored == dataclasses.replace(fact, ingested_at=stored.ingested_at)
        finally:
            store.delete_document(fact.source_doc_id)

    def test_upsert_accepts_any_iterable(self, store: FactStoreProtocol) -> None:
        written = store.upsert_facts(make_fact(period=str(year)) for year in (2023, 2024))
        assert written == 2
        assert store.count_facts() == 2

    def test_upsert_replaces_the_same_key_and_document(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact(value=1.0)])
        store.upsert_facts([make_fact(value=2.0, source_locator="slide=3,table=1")])
        assert store.count_facts() == 1
        stored = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
        assert stored is not None
        assert (stored.value, stored.source_locator) == (2.0, "slide=3,table=1")

    def test_same_key_from_two_documents_keeps_both(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact(), make_fact(source_doc_id=WORKBOOK)])
        assert store.count_facts() == 2

    # --- lineage ------------------------------------------------------------------------------

    @pytest.mark.parametrize("field", ["source_doc_id", "source_locator"])
    @pytest.mark.parametrize("missing", [None, "", "  "])
    def test_a_fact_cannot_exist_without_lineage(self, field: str, missing: str | None) -> None:
        with pytest.raises(ValueError, match=field):
            make_fact(**{field: missing})

    @pytest.mark.parametrize("field", ["source_doc_id", "source_locator"])
    def test_store_refuses_a_row_without_lineage(
        self, store: FactStoreProtocol, field: str
    ) -> None:
        with pytest.raises(StoreError):
            store.upsert_facts([make_fact(period="2023"), corrupt(make_fact(), **{field: None})])
        assert store.count_facts() == 0

    # --- what queries may see -----------------------------------------------------------------

    @pytest.mark.parametrize("status", [ReviewStatus.PENDING, ReviewStatus.REJECTED])
    def test_unapproved_facts_are_invisible_to_queries(
        self, store: FactStoreProtocol, status: ReviewStatus
    ) -> None:
        store.upsert_facts([make_fact(review_status=status)])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") is None
        assert store.available_periods("REVENUE", "ACME_HK") == []
        assert [fact.review_status for fact in store.list_facts(review_status=status)] == [status]

    def test_a_newer_pending_fact_does_not_hide_the_approved_one(
        self, store: FactStoreProtocol
    ) -> None:
        approved = make_fact(ingested_at=EARLY)
        pending = make_fact(source_doc_id=WORKBOOK, review_status="pending", ingested_at=LATE)
        store.upsert_facts([approved, pending])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == approved

    def test_restricted_fact_needs_restricted_clearance(self, store: FactStoreProtocol) -> None:
        secret = make_fact(sensitivity="RESTRICTED")
        store.upsert_facts([secret])
        key = ("REVENUE", "ACME_HK", "FY", "2024")
        assert store.get_fact(*key) is None
        assert store.get_fact(*key, clearance=Sensitivity.CONFIDENTIAL) is None
        assert store.get_fact(*key, clearance=Sensitivity.RESTRICTED) == secret
        assert store.available_periods("REVENUE", "ACME_HK") == []
        assert store.available_periods("REVENUE", "ACME_HK", clearance=Sensitivity.RESTRICTED) == [
            ("FY", "2024")
        ]

    def test_clearance_sees_its_own_level_and_below(self, store: FactStoreProtocol) -> None:
        store.upsert_facts(
            [make_fact(period=str(2020 + level.rank), sensitivity=level) for level in Sensitivity]
        )
        for clearance in Sensitivity:
            visible = store.available_periods("REVENUE", "ACME_HK", clearance=clearance)
            expected = [("FY", str(2020 + level.rank)) for level in Sensitivity]
            assert visible == expected[: clearance.rank + 1]

    def test_clearance_hides_only_the_sensitive_document(self, store: FactStoreProtocol) -> None:
        public = make_fact(sensitivity="PUBLIC", ingested_at=EARLY)
        secret = make_fact(source_doc_id=WORKBOOK, sensitivity="RESTRICTED", ingested_at=LATE)
        store.upsert_facts([public, secret])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == public
        assert (
            store.get_fact("REVENUE", "ACME_HK", "FY", "2024", clearance=Sensitivity.RESTRICTED)
            == secret
        )

    def test_channel_is_part_of_the_key(self, store: FactStoreProtocol) -> None:
        online = make_fact(channel="ONLINE")
        store.upsert_facts([online])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") is None
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024", "ONLINE") == online

    # --- several documents, one key -----------------------------------------------------------

    def test_most_recently_ingested_document_wins(self, store: FactStoreProtocol) -> None:
        old = make_fact(value=1.0, ingested_at=EARLY)
        new = make_fact(value=2.0, source_doc_id=WORKBOOK, ingested_at=LATE)
        for order in ([old, new], [new, old]):
            store.upsert_facts(order)
            assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == new

    def test_each_clearance_is_answered_from_the_most_sensitive_fact_it_may_see(
        self, store: FactStoreProtocol
    ) -> None:
        # One key at every level, each from its own document with its own value; the less
        # sensitive the later, so recency would pick PUBLIC for everyone.
        stamps = ["2025-04-01", "2025-03-01", "2025-02-01", "2025-01-01"]
        facts = {
            level: make_fact(
                value=float(100 + level.rank),
                source_doc_id=f"{level.value.lower()}.xlsx",
                sensitivity=level,
                ingested_at=f"{stamps[level.rank]}T08:00:00+00:00",
            )
            for level in Sensitivity
        }
        store.upsert_facts(random.sample(list(facts.values()), len(facts)))
        for clearance in Sensitivity:
            found = store.get_fact("REVENUE", "ACME_HK", "FY", "2024", clearance=clearance)
            assert found == facts[clearance]
            assert store.available_periods("REVENUE", "ACME_HK", clearance=clearance) == [
                ("FY", "2024")
            ]

    def test_sensitivity_outranks_recency_only_between_levels(
        self, store: FactStoreProtocol
    ) -> None:
        # Same level: the newer one; a newer fact one level down never displaces the older.
        old = make_fact(value=1.0, sensitivity="CONFIDENTIAL", ingested_at=EARLY)
        new = make_fact(value=2.0, source_doc_id=WORKBOOK, sensitivity="CONFIDENTIAL")
        lower = make_fact(value=3.0, source_doc_id="memo.md", ingested_at=LATE)
        store.upsert_facts([old, lower])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == old
        store.upsert_facts([dataclasses.replace(new, ingested_at=LATE)])
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == dataclasses.replace(
            new, ingested_at=LATE
        )
        assert (
            store.get_fact("REVENUE", "ACME_HK", "FY", "2024", clearance=Sensitivity.INTERNAL)
            == lower
        )

    def test_same_ingestion_time_breaks_ties_by_document_id(self, store: FactStoreProtocol) -> None:
        facts = [make_fact(source_doc_id=doc) for doc in ("c.md", "a.md", "b.md")]
        for _ in range(3):
            store.upsert_facts(random.sample(facts, len(facts)))
            stored = store.get_fact("REVENUE", "ACME_HK", "FY", "2024")
            assert stored is not None and stored.source_doc_id == "a.md"

    # --- documents ----------------------------------------------------------------------------

    def test_replace_document_facts_swaps_the_whole_set(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact(period="2023"), make_fact(period="2024")])
        fresh = make_fact(period="2025", value=9.0, ingested_at=LATE)
        assert store.replace_document_facts(DECK, [fresh]) == 1
        assert store.list_facts(doc_id=DECK) == [fresh]

    def test_replace_leaves_other_documents_alone(self, store: FactStoreProtocol) -> None:
        other = make_fact(source_doc_id=WORKBOOK, period="2023")
        store.upsert_facts([make_fact(), other])
        store.replace_document_facts(DECK, [])
        assert store.list_facts() == [other]

    def test_replace_refuses_a_fact_of_another_document(self, store: FactStoreProtocol) -> None:
        before = [make_fact(period="2023")]
        store.upsert_facts(before)
        batch = [make_fact(), make_fact(period="2025", source_doc_id=WORKBOOK)]
        with pytest.raises(ValueError, match=WORKBOOK):
            store.replace_document_facts(DECK, batch)
        assert store.list_facts() == before

    def test_replace_is_atomic_when_a_row_fails(self, store: FactStoreProtocol) -> None:
        before = [make_fact(period=str(year)) for year in (2022, 2023)]
        store.upsert_facts(before)
        batch = [make_fact(period="2024"), corrupt(make_fact(period="2025"), source_locator=None)]
        with pytest.raises(StoreError):
            store.replace_document_facts(DECK, batch)
        assert store.list_facts() == before

    def test_delete_document(self, store: FactStoreProtocol) -> None:
        other = make_fact(source_doc_id=WORKBOOK)
        store.upsert_facts([make_fact(period="2023"), make_fact(period="2024"), other])
        assert store.delete_document(DECK) == 2
        assert store.delete_document(DECK) == 0
        assert store.list_facts() == [other]

    # --- review -------------------------------------------------------------------------------

    def test_approving_a_pending_fact_makes_it_visible(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact(review_status="pending")])
        key = ("REVENUE", "ACME_HK", "FY", "2024", "TOTAL", DECK)
        assert store.set_review_status(*key, ReviewStatus.APPROVED) is True
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == make_fact()
        assert store.set_review_status(*key, ReviewStatus.REJECTED) is True
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") is None

    def test_set_review_status_of_an_unknown_fact(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact()])
        missing = ("REVENUE", "ACME_HK", "FY", "2024", "TOTAL", WORKBOOK)
        assert store.set_review_status(*missing, ReviewStatus.REJECTED) is False
        assert store.get_fact("REVENUE", "ACME_HK", "FY", "2024") == make_fact()

    # --- listing and counting -----------------------------------------------------------------

    def test_available_periods_are_distinct_and_sorted(self, store: FactStoreProtocol) -> None:
        store.upsert_facts(
            [
                make_fact(period="2025", period_type="H1"),
                make_fact(period="2024"),
                make_fact(period="2024", source_doc_id=WORKBOOK),
                make_fact(period="2023"),
                make_fact(period="2025", period_type="Q3"),
                make_fact(period="2022", channel="ONLINE"),
                make_fact(period="2021", metric_code="EBITDA"),
                make_fact(period="2020", entity="ACME_CN"),
            ]
        )
        assert store.available_periods("REVENUE", "ACME_HK") == [
            ("FY", "2023"),
            ("FY", "2024"),
            ("H1", "2025"),
            ("Q3", "2025"),
        ]
        assert store.available_periods("REVENUE", "ACME_HK", "ONLINE") == [("FY", "2022")]
        assert store.available_periods("REVENUE", "ACME_MO") == []

    def test_list_facts_order_does_not_depend_on_insertion(self, store: FactStoreProtocol) -> None:
        facts = [
            make_fact(source_doc_id=doc, entity=entity, period=period)
            for doc in (DECK, WORKBOOK)
            for entity in ("ACME_HK", "ACME_CN")
            for period in ("2023", "2024")
        ]
        store.upsert_facts(random.sample(facts, len(facts)))
        first = store.list_facts()
        store.replace_document_facts(DECK, random.sample(facts[:4], 4))
        assert store.list_facts() == first
        assert sorted(first, key=repr) == sorted(facts, key=repr)

    def test_list_facts_filters(self, store: FactStoreProtocol) -> None:
        pending = make_fact(period="2023", review_status="pending")
        approved = make_fact(ingested_at=EARLY)
        elsewhere = make_fact(source_doc_id=WORKBOOK, review_status="pending")
        store.upsert_facts([pending, approved, elsewhere])
        assert store.list_facts(doc_id=DECK, review_status=ReviewStatus.PENDING) == [pending]
        assert store.list_facts(review_status=ReviewStatus.APPROVED) == [approved]
        assert store.list_facts(doc_id=WORKBOOK) == [elsewhere]
        assert store.list_facts(doc_id="unknown.pdf") == []

    def test_count_includes_every_status(self, store: FactStoreProtocol) -> None:
        assert store.count_facts() == 0
        store.upsert_facts(
            [make_fact(period=str(2022 + i), review_status=s) for i, s in enumerate(ReviewStatus)]
        )
        assert store.count_facts() == 3

    # --- lifecycle ----------------------------------------------------------------------------

    def test_init_schema_is_idempotent(self, store: FactStoreProtocol) -> None:
        store.upsert_facts([make_fact()])
        store.init_schema()
        assert store.count_facts() == 1

    def test_context_manager_closes_and_close_is_repeatable(self, store: FactStoreProtocol) -> None:
        with store as entered:
            assert entered is store
        store.close()
        with pytest.raises(StoreError):
            store.count_facts()
