"""`profile suggest` on the unit-and-calendar regression corpus of Harbour Line Holdings
(``demo.harbour``), whose hand-written profile is not used: every fact the draft lets ingestion
store is the hand-written truth at its cell, and what the draft cannot place goes to review."""

from __future__ import annotations

import tomllib

import pytest

from ragspine.demo import harbour
from ragspine.ingestion.pipeline import ingest
from ragspine.ingestion.suggest import suggest_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

# The truth's entity codes and the names the documents give those units.
UNIT_NAMES = {"HLH_GROUP": "Harbour Line Holdings", "HLH_FERRY": "Ferries", "HLH_PORTS": "Ports"}
# The report's tables sit under Chinese headings only (港口业务, 渡轮业务) that no document
# pairs with "Ports" or "Ferries": their four values wait for a mapping decision.
STORED_AFTER_SUGGEST = 15


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> tuple[DomainProfile, SQLiteWorkspaceStore]:
    root = harbour.build(tmp_path_factory.mktemp("harbour"))
    text, _ = suggest_profile([root])
    profile = DomainProfile.model_validate(tomllib.loads(text))
    store = SQLiteWorkspaceStore(tmp_path_factory.mktemp("ws") / "ws.db")
    store.init_schema()
    assert ingest([root], store, profile).failures == []
    return profile, store


def test_the_draft_names_the_company_and_its_march_year_end(
    drafted: tuple[DomainProfile, SQLiteWorkspaceStore],
) -> None:
    profile, _ = drafted
    assert profile.company.name == "Harbour Line Holdings"
    assert profile.fiscal.year_end_month == 3
    assert {e.name_en for e in profile.entities} == set(UNIT_NAMES.values())


def test_every_stored_fact_is_the_truth_at_its_cell(
    drafted: tuple[DomainProfile, SQLiteWorkspaceStore],
) -> None:
    profile, store = drafted
    truth = {(f.doc, f.locator): f for f in harbour.EXPECTED_FACTS}
    right = []
    for fact in store.list_facts():
        expected = truth.get((fact.source_doc_id, fact.source_locator))
        assert expected is not None, fact
        entity = profile.entity(fact.entity)
        assert entity is not None
        assert (entity.name_en, f"FY{fact.period}", round(fact.value, 9), fact.unit) == (
            UNIT_NAMES[expected.entity],
            expected.period,
            expected.value,
            expected.unit,
        )
        right.append(expected)
    assert len(right) == STORED_AFTER_SUGGEST


def test_what_the_draft_cannot_place_is_reviewed_never_guessed(
    drafted: tuple[DomainProfile, SQLiteWorkspaceStore],
) -> None:
    _, store = drafted
    reasons = {(r.doc_id, r.locator): r.reason for r in store.list_review()}
    for table in ("table=1", "table=2"):
        assert reasons[(harbour.REPORT, table)] == "missing_entity"
    # A deck's locator names the row by its metric code, which the draft spells its own way.
    found = sorted((doc, reason) for (doc, _), reason in reasons.items() if doc != harbour.REPORT)
    expected = sorted((r.doc, r.reason) for r in harbour.EXPECTED_REVIEW if r.doc != harbour.REPORT)
    assert found == expected
