"""Mutation check of the guards: each hand-written mutant must make the test suite fail.

Every mutant breaks one promise the engine makes — answer only the asked slots, never show
model prose, ground narrative numbers, respect clearance, keep lineage, compute arithmetic
right, refuse competitors first, surface assumptions, count fabrication. For each one the
script copies ``src/`` to a temporary folder, applies the one-line change, runs the tests that
guard that promise against the copy (``PYTHONPATH`` puts it first) and expects them to fail.

    python scripts/mutants.py            # every mutant; exit 1 if one survives
    python scripts/mutants.py --list     # what each mutant does
    python scripts/mutants.py --only accept-any-result

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

AGENT_TESTS = ("tests/agent",)
EVAL_TESTS = ("tests/eval/test_fabrication.py", "tests/eval/test_scoring.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    path: str  # relative to src/ragspine
    old: str
    new: str
    tests: tuple[str, ...] = AGENT_TESTS


MUTANTS = (
    Mutant(
        "accept-any-result",
        "the tool loop keeps any found result, whatever slots the model queried",
        "agent/guard.py",
        "if result.answers(task):",
        'if result.status == "found":',
    ),
    Mutant(
        "trust-model-not-found",
        "the tool loop keeps the model's not-found for other slots instead of re-querying",
        "agent/guard.py",
        "if result.answers(task):",
        "if not isinstance(result, ToolError):",
    ),
    Mutant(
        "model-prose",
        "the model's own text replaces the rendered structured answer",
        "agent/guard.py",
        "        if reply.text.strip():\n            trace.model_text_discarded = True\n",
        "        if reply.text.strip():\n            return ToolError(reply.text), None\n",
    ),
    Mutant(
        "skip-narrative-grounding",
        "narrative sentences keep numbers that no passage contains",
        "agent/narrative.py",
        "candidate, stripped = ground_numbers(candidate, snippets)",
        "stripped = 0",
    ),
    Mutant(
        "ignore-fact-clearance",
        "fact lookups ignore the caller's clearance",
        "agent/query_tools.py",
        "        clearance=clearance,\n    )\n    if fact is None:",
        "        clearance=Sensitivity.RESTRICTED,\n    )\n    if fact is None:",
    ),
    Mutant(
        "ignore-passage-clearance",
        "the agent trusts the retriever's clearance filtering",
        "agent/narrative.py",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity)) and not s.held\n",
        "        if not s.held\n",
    ),
    Mutant(
        "release-held-passages",
        "passages held for a planted instruction reach the prompt",
        "agent/narrative.py",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity)) and not s.held\n",
        "        if clearance.allows(Sensitivity.parse(s.sensitivity))\n",
    ),
    Mutant(
        "tamper-value",
        "a found value is rendered off by one",
        "agent/render.py",
        "format_number(result.value),",
        "format_number(result.value + 1),",
    ),
    Mutant(
        "drop-lineage",
        "structured answers list no sources",
        "agent/agent.py",
        "sources=_dedupe([r.source for r in found]),",
        "sources=[],",
    ),
    Mutant(
        "reverse-change",
        "a year-on-year change is computed earlier minus later",
        "agent/compare.py",
        "diff = format_number(lv - ev, signed=True)",
        "diff = format_number(ev - lv, signed=True)",
    ),
    Mutant(
        "skip-competitor-refusal",
        "the gateway never refuses a competitor",
        "agent/clarify.py",
        "if verdict.decision is SecurityDecision.REFUSE_OUT_OF_SCOPE:",
        "if False:",
    ),
    Mutant(
        "hide-assumption",
        "an assumed entity or period is not surfaced in the answer",
        "agent/agent.py",
        "        if clarification.assumption_note:\n",
        "        if False:\n",
    ),
    Mutant(
        "blind-fabrication-check",
        "the eval's fabrication check accepts every structured number",
        "eval/fabrication.py",
        "if not _is_value(n, values)",
        "if False",
        EVAL_TESTS,
    ),
)


def apply(mutant: Mutant, root: Path) -> None:
    """Copy ``src`` under ``root`` and apply the mutant; the text must match exactly once."""
    shutil.copytree(SRC, root / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = root / "src" / "ragspine" / mutant.path
    text = target.read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise SystemExit(
            f"mutant {mutant.name}: expected its text once in {mutant.path}, found {count}; "
            "update the mutant to follow the code"
        )
    target.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def run(mutant: Mutant) -> tuple[bool, float]:
    """True when the mutant's tests fail (the mutant is killed), and the seconds it took."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name}-") as tmp:
        root = Path(tmp)
        apply(mutant, root)
        env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutant.tests],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.monotonic() - started
    if proc.returncode not in (0, 1):
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise SystemExit(
            f"mutant {mutant.name}: pytest could not run (rc {proc.returncode})\n{tail}"
        )
    return proc.returncode == 1, seconds


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
    survivors = []
    for mutant in chosen:
        killed, seconds = run(mutant)
        verdict = "killed  " if killed else "SURVIVED"
        print(f"{verdict} {mutant.name:26} {seconds:5.1f} s  {mutant.what}")
        if not killed:
            survivors.append(mutant.name)
    print(f"mutants killed: {len(chosen) - len(survivors)}/{len(chosen)}")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
