"""Every hand-written guard mutant (scripts/mutants.py) still names text its file holds once.

``make mutants`` stops with an error when a guard moved and its mutant did not follow; CI runs
it after the whole suite, so a refactor found it out 40 minutes late. This check reads the same
mutant list against ``src/`` in a fraction of a second, in ``make test``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def _mutants_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutants_script", REPO / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


SCRIPT = _mutants_script()


@pytest.mark.parametrize("mutant", SCRIPT.MUTANTS, ids=lambda m: m.name)
def test_each_mutants_text_occurs_once_in_its_file(mutant: Any) -> None:
    text = (REPO / "src" / "ragspine" / mutant.path).read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, (
        f"{mutant.name}: its text is not in {mutant.path} exactly once; "
        "move the mutant with the guard it breaks"
    )
    assert mutant.old != mutant.new


@pytest.mark.parametrize("mutant", SCRIPT.MUTANTS, ids=lambda m: m.name)
def test_each_mutant_names_test_files_that_exist(mutant: Any) -> None:
    missing = [t for t in mutant.tests if not (REPO / t).is_file()]
    assert not missing
