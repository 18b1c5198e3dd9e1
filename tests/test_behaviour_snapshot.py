"""Pinned behaviour: the wire answers of the demo and golden questions and both eval reports.

Refactors must not change what a user sees. This test rebuilds the demo workspace, asks every
demo question and every golden case, runs the retrieval eval, and compares the ``ask --json``
objects (``request_id`` blanked) and the reports with ``tests/data/behaviour_snapshot.json``.
A deliberate behaviour change regenerates the file with ``RAGSPINE_UPDATE_SNAPSHOT=1`` and the
diff is reviewed in the commit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ragspine.agent.response import to_response
from ragspine.demo.tour import DEMO_QUESTIONS, DEMO_REFERENCE_DATE, build_demo_workspace
from ragspine.eval.cases import load_golden
from ragspine.eval.retrieval_eval import load_eval_set, run_retrieval_eval
from ragspine.eval.runner import ask_with, run_golden_eval
from ragspine.facade import RAGSpine
from ragspine.profile.loader import load_profile
from ragspine.retrieval.retriever import open_retriever
from ragspine.workspace import Workspace

SNAPSHOT = Path(__file__).parent / "data" / "behaviour_snapshot.json"


def _wire(result: Any, profile_path: Path | None = None) -> dict[str, Any]:
    # The demo and the golden cases run on the shipped example profile, a case over another
    # company's corpus on that company's: its names are pinned too.
    out: dict[str, Any] = to_response(result, load_profile(profile_path)).model_dump()
    out["request_id"] = ""
    return out


def _current(tmp: Path) -> dict[str, Any]:
    workspace, _ = build_demo_workspace(tmp / "ws")
    with RAGSpine.open(workspace) as rag:
        demo = {
            q.question: _wire(rag.ask(q.question, reference_date=DEMO_REFERENCE_DATE))
            for q in DEMO_QUESTIONS
        }
    cases = load_golden()
    answers: dict[str, Any] = {}
    with ask_with(workspace.root) as asker:

        def ask(case: Any) -> Any:
            result = asker(case)
            answers[case.id] = _wire(result, case.corpus.own_profile)
            return result

        golden = run_golden_eval(ask, cases).to_dict()
    ws = Workspace.open(workspace.root)
    retrieval = run_retrieval_eval(
        open_retriever(ws), load_eval_set(), k=10, profile=ws.profile()
    ).to_dict()
    return {"demo": demo, "golden_answers": answers, "golden": golden, "retrieval": retrieval}


def test_behaviour_matches_the_snapshot(tmp_path: Path) -> None:
    current = json.loads(json.dumps(_current(tmp_path), ensure_ascii=False, default=str))
    if os.environ.get("RAGSPINE_UPDATE_SNAPSHOT") == "1":
        text = json.dumps(current, ensure_ascii=False, indent=1, sort_keys=True)
        SNAPSHOT.write_text(text + "\n", encoding="utf-8")
    pinned = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for section in ("demo", "golden_answers", "golden", "retrieval"):
        mismatched = [
            key
            for key in sorted(set(pinned[section]) | set(current[section]))
            if pinned[section].get(key) != current[section].get(key)
        ]
        assert not mismatched, f"{section} differs at {mismatched[:10]}"
