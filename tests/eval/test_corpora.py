"""The trust corpus: the demo corpus plus documents written to mislead an answer. Each extra
document does what the golden cases built on it assume: the planted paragraphs are held for
review, the copies are copies, the conflicting sentences contradict the fact table, and the
golden runner builds this workspace only for a case that asks for it. The one-entity corpus is
Kestrel Mutual in a workspace of its own, under its own profile, and its cases are judged
against its own truth table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ragspine.agent.consistency import FactCheck
from ragspine.agent.types import (
    AgentResult,
    ClarificationResult,
    ClarifyMode,
    FoundFact,
    ParsedIntent,
    Route,
    Slots,
    Source,
)
from ragspine.demo import corpora, kestrel
from ragspine.demo.corpora import (
    POISONED_MEMO,
    STRATEGY_COPY,
    STRATEGY_NEAR_COPY,
    Corpus,
    build_corpus_workspace,
    conflicting_memo,
    poisoned_memo,
    write_extra,
)
from ragspine.demo.corpus import demo_documents
from ragspine.demo.corpus_content import STRATEGY
from ragspine.demo.corpus_writers import Para
from ragspine.demo.tour import CORPUS_DIR
from ragspine.eval import runner
from ragspine.eval.cases import DEFAULT_REFERENCE_DATE, GoldenCase
from ragspine.eval.oracle import Oracle, demo_truth
from ragspine.eval.runner import ask_with
from ragspine.profile.loader import load_profile
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.passages import same_passage
from ragspine.workspace import Workspace


@pytest.fixture(scope="module")
def trust(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return build_corpus_workspace(Corpus.TRUST, tmp_path_factory.mktemp("trust") / "ws")


def _extra_docs(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix == ".md"}


def test_the_demo_corpus_needs_no_extra_folder(tmp_path: Path) -> None:
    assert write_extra(Corpus.DEMO, tmp_path / "extra") == []
    assert not (tmp_path / "extra").exists()


def test_no_extra_document_takes_a_demo_documents_name(tmp_path: Path) -> None:
    (folder,) = write_extra(Corpus.TRUST, tmp_path)
    extra = _extra_docs(folder)
    assert len(extra) == 5
    assert extra & {d.doc for d in demo_documents()} == set()


def test_the_copies_are_the_strategy_memo(trust: Workspace) -> None:
    extra = trust.root / corpora.EXTRA_DIR
    original = (trust.root / CORPUS_DIR / STRATEGY).read_bytes()
    assert (extra / STRATEGY_COPY).read_bytes() == original
    near = (extra / STRATEGY_NEAR_COPY).read_bytes()
    assert near != original and len(original) - len(near) == 1  # one comma fewer
    assert same_passage(near.decode(), original.decode())


def test_each_planted_paragraph_is_held_for_review_and_nothing_else(trust: Workspace) -> None:
    extra = _extra_docs(trust.root / corpora.EXTRA_DIR)
    with trust.fact_store(read_only=True) as store:
        items = [i for i in store.list_review() if i.doc_id in extra]
    assert {(i.doc_id, i.locator, i.reason) for i in items} == {
        (POISONED_MEMO, locator, "suspicious_instruction")
        for locator in poisoned_memo().instruction_locators()
    }
    assert len(items) == 3


def test_the_conflicting_sentences_contradict_the_fact_table(trust: Workspace) -> None:
    with trust.fact_store(read_only=True) as store:
        check = FactCheck(store, trust.profile(), DEFAULT_REFERENCE_DATE, Sensitivity.CONFIDENTIAL)
        stated = [b.text for b in conflicting_memo().blocks if isinstance(b, Para)]
        assert [check.contradicts(s) for s in stated] == [True, False, True, False]
        # The poisoned memo's own statement of the fact agrees with it.
        true = next(b.text for b in poisoned_memo().blocks if isinstance(b, Para))
        assert "3,105" in true and not check.contradicts(true)


def _case(cid: str, corpus: Corpus, clearance: Sensitivity) -> GoldenCase:
    return GoldenCase(cid, "香港FY2025收入是多少", corpus=corpus, clearance=clearance)


def test_the_runner_builds_a_corpus_workspace_once_and_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Path] = []

    def build(corpus: Corpus, workspace_dir: Path) -> Workspace:
        built.append(workspace_dir)
        return build_corpus_workspace(corpus, workspace_dir)

    monkeypatch.setattr(runner, "build_corpus_workspace", build)
    # No demo workspace at all: the trust cases never open it.
    with ask_with(tmp_path / "no-demo-here") as ask:
        for clearance in (Sensitivity.CONFIDENTIAL, Sensitivity.RESTRICTED):
            result = ask(_case(f"t-{clearance}", Corpus.TRUST, clearance))
            assert "3,105" in result.answer
        assert [p.name for p in built] == ["trust"]
        assert built[0].is_dir()
    assert not built[0].exists()  # removed with the run


# --------------------------------------------------------------------------- one entity


def test_no_extra_document_is_written_for_another_companys_corpus(tmp_path: Path) -> None:
    assert write_extra(Corpus.ONE_ENTITY, tmp_path / "extra") == []
    assert not (tmp_path / "extra").exists()


def test_the_one_entity_workspace_is_kestrel_under_its_own_profile(tmp_path: Path) -> None:
    workspace = build_corpus_workspace(Corpus.ONE_ENTITY, tmp_path / "ws")
    profile = workspace.profile()
    assert profile.company.name == "Kestrel Mutual"
    assert [e.code for e in profile.entities] == ["KESTREL"]
    with workspace.fact_store(read_only=True) as store:
        stored = {(f.source_doc_id, f.source_locator, f.value) for f in store.list_facts()}
    assert stored == {(f.doc, f.locator, f.value) for f in kestrel.EXPECTED_FACTS}
    assert Corpus.ONE_ENTITY.own_profile == kestrel.profile_path()
    assert Corpus.DEMO.own_profile is None and Corpus.TRUST.own_profile is None


def test_the_runner_asks_a_one_entity_case_in_its_own_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Path] = []

    def build(corpus: Corpus, workspace_dir: Path) -> Workspace:
        built.append(workspace_dir)
        return build_corpus_workspace(corpus, workspace_dir)

    monkeypatch.setattr(runner, "build_corpus_workspace", build)
    case = GoldenCase(
        "o-1", "What were gross written premiums in FY2025?", corpus=Corpus.ONE_ENTITY
    )
    with ask_with(tmp_path / "no-demo-here") as ask:
        first, again = ask(case), ask(replace(case, id="o-2"))
    # Kestrel's own figure (the truth table: HK$ 4,702 m), asked of no entity, asked nothing.
    assert "4,702" in first.answer and "4,702" in again.answer
    assert first.clarification.mode is ClarifyMode.NONE
    assert [p.name for p in built] == ["one_entity"]


def test_a_one_entity_answer_is_judged_against_kestrels_truth_and_profile() -> None:
    """The oracle is given the demo's profile, as the runner gives it; a one-entity case is
    still read with Kestrel's profile and judged against Kestrel's truth table."""
    oracle = Oracle(load_profile(), "TOTAL")
    profile, channel = oracle.reader(Corpus.ONE_ENTITY)
    assert (profile.company.name, channel) == ("Kestrel Mutual", "TOTAL")
    assert oracle.reader(Corpus.DEMO) == (oracle.profile, "TOTAL")
    fy2025 = Period(2025, "FY")
    intent = ParsedIntent(
        "What were gross written premiums in FY2025?",
        Route.STRUCTURED,
        metrics=("GWP",),
        entities=("KESTREL",),
        periods=(fy2025,),
    )
    source = Source(kestrel.WORKBOOK, "sheet=Underwriting,cell=E5")
    fact = FoundFact(Slots("GWP", "KESTREL", fy2025, "TOTAL"), 4702.0, "HKD_M", source)
    case = GoldenCase("o-1", intent.raw_question, corpus=Corpus.ONE_ENTITY)

    def answer(value: str) -> AgentResult:
        line = f"Kestrel Mutual FY2025 Gross written premiums: HK$ {value} m "
        line += f"(source: {source.doc} · {source.locator})"
        return AgentResult(
            line,
            Route.STRUCTURED,
            ClarificationResult(ClarifyMode.NONE),
            tool_results=[fact],
            sources=[source],
            intent=intent,
        )

    assert oracle.fabrications(case, answer("4,702")) == []
    # FY2024's figure under FY2025's label: the truth says 4,702, whatever the tool said.
    assert [str(f) for f in oracle.fabrications(case, answer("4,385"))] == ["4,385 (structured)"]
    # The demo's truth holds no Kestrel key: judged against it, the true figure is untraced.
    demo_only = Oracle(load_profile(), "TOTAL", {Corpus.ONE_ENTITY: demo_truth()})
    assert demo_only.fabrications(case, answer("4,702")) != []
