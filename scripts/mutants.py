"""Mutation check of the guards: each hand-written mutant must make the test suite fail.

Every mutant breaks one promise the engine makes — answer only the asked slots, never show
model prose, ground narrative numbers, respect clearance (in fact lookups, in the prompt, in
the retriever's dense channel and in a follow-up), keep lineage, compute arithmetic right,
refuse competitors first, surface assumptions, count fabrication. For each one the script
copies ``src/`` to a temporary folder, applies the one-line change, runs the tests that guard
that promise against the copy (``PYTHONPATH`` puts it first) and expects them to fail; it
prints the test that failed first.

    python scripts/mutants.py            # control, then every mutant; exit 1 if one survives
    python scripts/mutants.py --list     # what each mutant does
    python scripts/mutants.py --only accept-any-result

A control run comes first: an unmutated copy of ``src/`` must pass every test module the chosen
mutants name (their union, run once), or the script stops with exit 2 before any mutant — a
failure unrelated to the mutants would otherwise count every one of them as killed.

A mutant whose text no longer matches the source is an error, not a pass: the guard moved and
the mutant must follow it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"


def agent(*modules: str) -> tuple[str, ...]:
    return tuple(f"tests/agent/{m}.py" for m in modules)


# Each mutant runs the modules that aim at its promise, not all of tests/: the control runs
# their union once, so every module named here costs its run time twice in `make mutants`.
LOOP_TESTS = agent("test_guard", "test_agent", "test_agent_real_sdks")
ANSWER_TESTS = agent("test_agent")
NARRATIVE_TESTS = agent("test_narrative", "test_grounding_property", "test_poisoned_memo")
EVAL_TESTS = ("tests/eval/test_fabrication.py", "tests/eval/test_scoring.py")
# The golden dev split judged against the ground truth (builds a demo workspace: ~40 s).
ORACLE_GOLDEN_TESTS = ("tests/eval/test_oracle_golden.py",)
DENSE_CLEARANCE_TESTS = ("tests/retrieval/test_dense_clearance.py",)


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    path: str  # relative to src/ragspine
    old: str
    new: str
    tests: tuple[str, ...]


MUTANTS = (
    Mutant(
        "accept-any-result",
        "the tool loop keeps any found result, whatever slots the model queried",
        "agent/guard.py",
        "if result.answers(task):",
        'if result.status == "found":',
        LOOP_TESTS,
    ),
    Mutant(
        "trust-model-not-found",
        "the tool loop keeps the model's not-found for other slots instead of re-querying",
        "agent/guard.py",
        "if result.answers(task):",
        "if not isinstance(result, ToolError):",
        LOOP_TESTS,
    ),
    Mutant(
        "model-prose",
        "the model's own text replaces the rendered structured answer",
        "agent/guard.py",
        "        if reply.text.strip():\n            trace.model_text_discarded = True\n",
        "        if reply.text.strip():\n            return ToolError(reply.text), None\n",
        LOOP_TESTS,
    ),
    Mutant(
        "skip-narrative-grounding",
        "narrative sentences keep numbers that no passage contains",
        "agent/narrative.py",
        "candidate, stripped = ground_numbers(candidate, snippets)",
        "stripped = 0",
        NARRATIVE_TESTS,
    ),
    Mutant(
        "ignore-fact-clearance",
        "fact lookups ignore the caller's clearance",
        "agent/query_tools.py",
        "        clearance=clearance,\n    )\n    if fact is None:",
        "        clearance=Sensitivity.RESTRICTED,\n    )\n    if fact is None:",
        agent("test_query_tools", "test_agent"),
    ),
    Mutant(
        "ignore-passage-clearance",
        "the agent trusts the retriever's clearance filtering",
        "agent/narrative.py",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity)) and not s.held\n",
        "        if not s.held\n",
        NARRATIVE_TESTS,
    ),
    Mutant(
        "release-held-passages",
        "passages held for a planted instruction reach the prompt",
        "agent/narrative.py",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity)) and not s.held\n",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity))\n",
        NARRATIVE_TESTS,
    ),
    Mutant(
        "tamper-value",
        "a found value is rendered off by one",
        "agent/render.py",
        "names.value(result.value, result.unit),",
        "names.value(result.value + 1, result.unit),",
        ANSWER_TESTS,
    ),
    Mutant(
        "drop-lineage",
        "structured answers list no sources",
        "agent/agent.py",
        "sources=_dedupe([r.source for r in found]),",
        "sources=[],",
        ANSWER_TESTS,
    ),
    Mutant(
        "reverse-change",
        "a year-on-year change is computed earlier minus later",
        "agent/compare.py",
        "diff = names.value(lv - ev, first.unit, signed=True)",
        "diff = names.value(ev - lv, first.unit, signed=True)",
        agent("test_compare", "test_agent"),
    ),
    Mutant(
        "skip-competitor-refusal",
        "the gateway never refuses a competitor",
        "agent/clarify.py",
        "if verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE:",
        "if False:",
        agent("test_security_gate", "test_agent"),
    ),
    Mutant(
        "hide-assumption",
        "an assumed entity or period is not surfaced in the answer",
        "agent/agent.py",
        "        if clarification.assumption_note:\n",
        "        if False:\n",
        agent("test_clarify", "test_agent"),
    ),
    Mutant(
        "blind-fabrication-check",
        "the eval's fabrication check accepts every structured number",
        "eval/fabrication.py",
        "if not covered.holds(n)",
        "if False",
        EVAL_TESTS,
    ),
    Mutant(
        "last-year-value",
        "a fact lookup returns the previous fiscal year's fact under the asked year's label",
        "agent/query_tools.py",
        "slots.period.period,",
        "str(slots.period.year - 1),",
        ORACLE_GOLDEN_TESTS,
    ),
    Mutant(
        "unit-scale",
        "an amount under a US$bn marker is stored at x100 instead of x1000",
        "ingestion/unit_words.py",
        '"bn": 9,',
        '"bn": 8,',
        ORACLE_GOLDEN_TESTS,
    ),
    Mutant(
        "checker-accepts-sums",
        "the eval's fabrication check also accepts the sum of two allowed values",
        "eval/fabrication.py",
        "            allowed.append(abs(a - b))\n",
        "            allowed.append(abs(a - b))\n            allowed.append(abs(a + b))\n",
        ("tests/eval/test_oracle.py", *ORACLE_GOLDEN_TESTS),
    ),
    Mutant(
        "dense-clearance-off-by-one",
        "the dense channel's clearance filter admits one level above the caller",
        "retrieval/retriever.py",
        "Sensitivity.parse(chunk.sensitivity).rank > clearance.rank:",
        "Sensitivity.parse(chunk.sensitivity).rank > clearance.rank + 1:",
        DENSE_CLEARANCE_TESTS,
    ),
    Mutant(
        "unit-marker-ignored",
        "a recognised unit marker is ignored: the value falls back to the profile unit",
        "ingestion/table_units.py",
        "levels = (parsed.marker, own.unit, other.unit, table)",
        "levels = (None, None, None, None)",
        ("tests/ingestion/test_table_units.py", "tests/ingestion/test_table_context.py"),
    ),
    Mutant(
        "hidden-sheets-read",
        "a workbook's hidden sheets are read by default, so a hidden draft can state a fact",
        "ingestion/readers/xlsx_reader.py",
        'if getattr(sheet, "sheet_state", "visible") != "visible":',
        "if False:",
        ("tests/ingestion/readers/test_hidden_content.py",),
    ),
    Mutant(
        "follow-up-keeps-clearance",
        "a follow-up is answered at the caller's own clearance, never above it",
        "agent/agent.py",
        "ToolContext(store, profile, day, clearance, trace)",
        "ToolContext(store, profile, day, Sensitivity.RESTRICTED if previous else clearance,"
        " trace)",
        ("tests/agent/test_conversation.py", "tests/service/test_conversation.py"),
    ),
)


def copy_src(root: Path) -> None:
    shutil.copytree(SRC, root / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))


def apply(mutant: Mutant, root: Path) -> None:
    """Copy ``src`` under ``root`` and apply the mutant; the text must match exactly once."""
    copy_src(root)
    target = root / "src" / "ragspine" / mutant.path
    text = target.read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise SystemExit(
            f"mutant {mutant.name}: expected its text once in {mutant.path}, found {count}; "
            "update the mutant to follow the code"
        )
    target.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def pytest_on(root: Path, tests: tuple[str, ...]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``tests`` against the ``src`` copy under ``root``, with the seconds it took."""
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc, time.monotonic() - started


def tail(proc: subprocess.CompletedProcess[str], lines: int = 15) -> str:
    return "\n".join((proc.stdout + proc.stderr).splitlines()[-lines:])


def control(tests: tuple[str, ...]) -> tuple[bool, float, str]:
    """Whether the unmutated copy passes ``tests``, the seconds it took, and pytest's tail."""
    with tempfile.TemporaryDirectory(prefix="mutant-control-") as tmp:
        root = Path(tmp)
        copy_src(root)
        proc, seconds = pytest_on(root, tests)
    return proc.returncode == 0, seconds, tail(proc)


def run(mutant: Mutant) -> tuple[str | None, float]:
    """The test that killed the mutant (None when it survived), and the seconds it took."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name}-") as tmp:
        root = Path(tmp)
        apply(mutant, root)
        proc, seconds = pytest_on(root, mutant.tests)
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"mutant {mutant.name}: pytest could not run (rc {proc.returncode})\n{tail(proc)}"
        )
    if proc.returncode == 0:
        return None, seconds
    # pytest -q ends with "FAILED <node id> - <message>" for the first failure (-x).
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
    return (failed[0].split()[1] if failed else "a test"), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--only", action="append", default=[], help="run only these mutants")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:26} {m.path:22} {m.what}")
        return 0
    unknown = set(args.only) - {m.name for m in MUTANTS}
    if unknown:
        print(f"unknown mutant(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
    passed, seconds, output = control(tests)
    if not passed:
        print(
            f"control run FAILED ({seconds:.1f} s): the unmutated src/ does not pass "
            f"{' '.join(tests)}, so a failing mutant would prove nothing; no mutant was tried. "
            f"Fix the suite first. The end of pytest's output:\n{output}",
            file=sys.stderr,
        )
        return 2
    print(
        f"control  unmutated src/ passes {len(tests)} test path(s) in {seconds:.1f} s", flush=True
    )
    survivors = []
    for mutant in chosen:
        killer, seconds = run(mutant)
        verdict = "killed  " if killer else "SURVIVED"
        print(f"{verdict} {mutant.name:26} {seconds:5.1f} s  {mutant.what}", flush=True)
        if killer:
            print(f"         by {killer}", flush=True)
        else:
            survivors.append(mutant.name)
    print(f"mutants killed: {len(chosen) - len(survivors)}/{len(chosen)}")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
