"""scripts/eval_llm.py compares a real model's gates with the mock's: the numbers always, the
citations unless a case judges which passages the prose chose to cite (``cited_docs``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from ragspine.eval.cases import Split, default_golden_path, load_golden
from ragspine.eval.scoring import Gate

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "eval_llm.py"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_llm_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prose_citation_cases_compare_only_the_numbers() -> None:
    compared = script().compared_gates
    cases = {c.id: c for c in load_golden(default_golden_path(Split.DEV))}
    assert compared(cases["trust-cn-005"]) == (Gate.NUMERIC,)
    plain = next(c for c in cases.values() if c.expect.values and not c.expect.cited_docs)
    assert compared(plain) == (Gate.NUMERIC, Gate.CITATION)
