"""Acceptance: the real retriever, dense channel off, meets the eval set's recall gates on a
freshly built demo workspace and returns nothing above a query's clearance."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.demo.tour import run_demo
from ragspine.eval.retrieval_eval import RetrievalReport, load_eval_set, run_retrieval_eval
from ragspine.retrieval.retriever import open_retriever
from ragspine.workspace import Workspace


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> RetrievalReport:
    root: Path = tmp_path_factory.mktemp("quality") / "ws"
    run_demo(root)
    workspace = Workspace.open(root)
    retriever = open_retriever(workspace)
    return run_retrieval_eval(retriever, load_eval_set(), profile=workspace.profile())


def test_nothing_above_clearance_is_returned(report: RetrievalReport) -> None:
    leaked = [r.query.id for r in report.results if r.leaked]
    assert leaked == []


def test_every_gated_category_meets_its_recall_threshold(report: RetrievalReport) -> None:
    failing = {s.name: round(s.recall, 3) for s in report.categories if s.passed is False}
    misses = {
        r.query.id: [f"{p.doc} · {p.locator}" for p in r.query.relevant]
        for r in report.results
        if r.recall < 1.0 and r.query.category.value in failing
    }
    assert failing == {}, misses
