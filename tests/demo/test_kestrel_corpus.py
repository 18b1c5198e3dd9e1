"""Kestrel Mutual, the one-entity corpus: ingesting its documents under its own profile stores
exactly its hand-written truth table, nothing goes to review, and the documents are the same
bytes on every build."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.demo import kestrel
from ragspine.demo.kestrel import ExpectedFact
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteWorkspaceStore:
    root = kestrel.build(tmp_path_factory.mktemp("kestrel"))
    workspace = SQLiteWorkspaceStore(tmp_path_factory.mktemp("ws") / "ws.db")
    workspace.init_schema()
    report = ingest([root], workspace, load_profile(kestrel.profile_path()))
    assert report.failures == []
    return workspace


def test_every_table_value_is_stored_as_the_truth_table_says(store: SQLiteWorkspaceStore) -> None:
    got = {
        ExpectedFact(
            f.source_doc_id,
            f.source_locator,
            f.metric_code,
            f"FY{f.period}" if f.period_type == "FY" else f"{f.period}{f.period_type}",
            round(f.value, 9),
            f.unit,
        )
        for f in store.list_facts()
    }
    assert sorted(got - kestrel.EXPECTED_FACTS) == [], "stored but not in the truth table"
    assert sorted(kestrel.EXPECTED_FACTS - got) == [], "in the truth table but not stored"
    # One entity, one channel, one level: the truth's constants.
    assert {(f.entity, f.channel, f.sensitivity) for f in store.list_facts()} == {
        ("KESTREL", "TOTAL", kestrel.SENSITIVITY)
    }
    assert store.list_review() == []


def test_the_profile_has_one_entity_and_a_june_year_end() -> None:
    profile = load_profile(kestrel.profile_path())
    assert [e.code for e in profile.entities] == ["KESTREL"]
    assert profile.company.home_entity == "KESTREL"
    assert profile.fiscal.year_end_month == 6


def test_two_row_labels_hold_another_rows_label() -> None:
    """The longest-label cases need it: each long label holds a short one, in both languages."""
    profile = load_profile(kestrel.profile_path())
    names = {m.code: (m.name_en.lower(), m.name_zh) for m in profile.all_metrics}
    for long, short in (("NET_CLAIMS", "CLAIMS"), ("OPEX_EX_DEP", "DEPRECIATION")):
        assert all(s in lg for lg, s in zip(names[long], names[short], strict=True))


def test_the_documents_are_the_same_bytes_on_every_build(tmp_path: Path) -> None:
    first, second = kestrel.build(tmp_path / "a"), kestrel.build(tmp_path / "b")
    docs = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert [d.as_posix() for d in docs] == sorted([kestrel.DECK, kestrel.MEMO, kestrel.WORKBOOK])
    assert all((first / d).read_bytes() == (second / d).read_bytes() for d in docs)
