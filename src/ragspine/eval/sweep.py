"""The systematic sweep: a large generated grid of questions, judged for number safety only.

The golden splits hold a few hundred hand-written cases; the sweep asks every question of a
grid generated from the profile and the ground truth (``eval.sweep_grid``: every entity ×
metric × period × channel, in English and Chinese, through the docs' phrasings) and judges
each answer with the eval's own oracle (``eval.oracle``) on three properties only — whether
the answer is right is the golden splits' business:

- **fabrication**: a number the ground truth of the question's keys does not account for,
  judged as the golden eval judges a case: the keys are the question's keys the truth holds
  for the caller's clearance (its expected values), else the slots the engine parsed;
- **leaks**: a source whose document is above the caller's clearance, or a number that is
  the value of a key only a higher clearance may see;
- **another key's figure**: in an answer that gives values (found or partial), a number that
  the question's own keys do not account for but that is the ground-truth value of a
  different key — the question answered with another question's figure. The oracle is asked
  with the generated keys alone, so a question the engine parsed as another key counts.

``run_sweep`` asks the questions through any asker (``ask_sweep_with`` opens a workspace
once per clearance level, mock provider by default) and ``render_sweep`` prints the figures by
template, then the failing questions grouped by property and template.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from ragspine.agent.types import AgentResult, AnswerKind, FoundFact
from ragspine.eval.cases import DEFAULT_REFERENCE_DATE, Expectation, ExpectedValue, GoldenCase
from ragspine.eval.fabrication import Fabrication
from ragspine.eval.oracle import Oracle, TruthTable
from ragspine.eval.runner import WorkspaceAsker
from ragspine.eval.sweep_calendar import calendar_questions
from ragspine.eval.sweep_grid import Grid, SweepQuestion
from ragspine.eval.sweep_phrasings import more_questions
from ragspine.llm.protocol import LLMProvider
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity

SweepAsker = Callable[[SweepQuestion], AgentResult]
PROPERTIES = ("fabrication", "leaks", "other_key")
_GIVES_VALUES = frozenset({AnswerKind.FOUND, AnswerKind.PARTIAL})
_TOLERANCE = 1e-6


@dataclass(frozen=True)
class SweepOutcome:
    """One question's answer and what the three checks found in it."""

    question: SweepQuestion
    answer: str
    kind: str
    fabrication: tuple[str, ...]
    leaks: tuple[str, ...]
    other_key: tuple[str, ...]

    def failed(self, prop: str) -> tuple[str, ...]:
        found: tuple[str, ...] = getattr(self, prop)
        return found


@dataclass(frozen=True)
class SweepJudge:
    """Judges sweep answers against one truth table with the eval's oracle."""

    oracle: Oracle
    truth: TruthTable

    def judge(self, q: SweepQuestion, result: AgentResult) -> SweepOutcome:
        case = self.case(q)
        fabricated = self.oracle.fabrications(case, result)
        strict: list[Fabrication] = []
        if result.answer_kind in _GIVES_VALUES:
            strict = self.oracle.fabrications(case, result, keys=q.keys)
        return SweepOutcome(
            q,
            result.answer,
            result.answer_kind.value,
            tuple(str(f) for f in fabricated),
            tuple(self.leaks(q, result, [*fabricated, *strict])),
            tuple(str(f) for f in strict if self._other_key(f.number, q)),
        )

    def case(self, q: SweepQuestion) -> GoldenCase:
        """The golden case a writer would have written: the question's keys the truth holds
        for the caller as its expected values (value only: the oracle reads the keys)."""
        values = tuple(
            ExpectedValue(*key, value=value, unit="", doc="", locator="")
            for key in sorted(q.keys)
            for value in self.truth.values(key, q.clearance)[:1]
        )
        return GoldenCase(
            f"sweep-{q.template}",
            q.question,
            DEFAULT_REFERENCE_DATE,
            clearance=q.clearance,
            expect=Expectation(values=values),
            corpus=q.corpus,
        )

    def leaks(
        self, q: SweepQuestion, result: AgentResult, untraced: Sequence[Fabrication]
    ) -> list[str]:
        """Sources above the caller's clearance, and untraced numbers only a higher
        clearance may see."""
        docs = {s.doc for s in result.sources}
        docs |= {r.source.doc for r in result.tool_results if isinstance(r, FoundFact)}
        docs |= {p.doc_id for p in result.pending}
        found = [
            f"source {doc}"
            for doc in sorted(docs)
            if doc in self.truth.documents and not q.clearance.allows(self.truth.documents[doc])
        ]
        hidden = self._hidden_values(q.clearance)
        found += sorted({f"value {f.number}" for f in untraced if _is_one_of(f.number, hidden)})
        return found

    def _hidden_values(self, clearance: Sensitivity) -> list[float]:
        seen = {v for key in self.truth.facts for v in self.truth.values(key, clearance)}
        return [
            v.value
            for values in self.truth.facts.values()
            for v in values
            if not clearance.allows(v.sensitivity) and v.value not in seen
        ]

    def _other_key(self, number: str, q: SweepQuestion) -> bool:
        others = [
            v
            for key in self.truth.facts
            if key not in q.keys
            for v in self.truth.values(key, q.clearance)
        ]
        return _is_one_of(number, others)


def _is_one_of(number: str, values: Iterable[float]) -> bool:
    try:
        stated = float(number.replace(",", ""))
    except ValueError:
        return False
    return any(math.isclose(stated, abs(v), abs_tol=_TOLERANCE) for v in values)


def sweep_questions(profile: DomainProfile, truth: TruthTable) -> list[SweepQuestion]:
    """The whole grid over ``profile`` and ``truth``, in a fixed order."""
    grid = Grid(profile, truth)
    return [*grid.questions(), *calendar_questions(grid), *more_questions(grid)]


def sample(questions: Sequence[SweepQuestion], per_template: int) -> list[SweepQuestion]:
    """Up to ``per_template`` questions of each template, evenly spaced through it (the
    languages, clearances and names rotate along a template, so a spread slice sees them all)."""
    by_template: dict[str, list[SweepQuestion]] = defaultdict(list)
    for q in questions:
        by_template[q.template].append(q)
    picked: list[SweepQuestion] = []
    for items in by_template.values():
        step = max(1, len(items) // per_template)
        picked += items[::step][:per_template]
    return picked


def run_sweep(
    ask: SweepAsker, questions: Iterable[SweepQuestion], judge: SweepJudge
) -> list[SweepOutcome]:
    """Ask every question and judge its answer."""
    return [judge.judge(q, ask(q)) for q in questions]


class WorkspaceSweepAsker:
    """Asks sweep questions against a demo workspace (another corpus's workspace is built in
    a temporary folder when first needed), opened once per corpus and clearance level."""

    def __init__(self, workspace: str | Path, provider: LLMProvider | None = None) -> None:
        self._asker = WorkspaceAsker(workspace, provider)

    def __call__(self, q: SweepQuestion) -> AgentResult:
        rag = self._asker.engine(q.corpus, q.clearance)
        return rag.ask(q.question, reference_date=DEFAULT_REFERENCE_DATE, previous=q.previous)

    def close(self) -> None:
        self._asker.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def totals(outcomes: Sequence[SweepOutcome]) -> dict[str, int]:
    """How many answers each property failed in, and how many questions were asked."""
    counts = {prop: sum(1 for o in outcomes if o.failed(prop)) for prop in PROPERTIES}
    return {"questions": len(outcomes), **counts}


def render_sweep(outcomes: Sequence[SweepOutcome], *, examples: int = 5) -> str:
    """The figures by template and language, then up to ``examples`` failing questions per
    property and template."""
    lines = ["Sweep: number safety over a generated grid (answers failing each property)", ""]
    header = f"{'template':<18}{'lang':<7}{'questions':>10}{'answered':>10}"
    header += "".join(f"{p:>13}" for p in PROPERTIES)
    lines.append(header)
    groups: dict[tuple[str, str], list[SweepOutcome]] = defaultdict(list)
    for o in outcomes:
        groups[(o.question.template, o.question.lang)].append(o)
    for (template, lang), items in sorted(groups.items()):
        lines.append(_row(template, lang, items))
    lines.append(_row("all", "", list(outcomes)))
    for prop in PROPERTIES:
        failing = [o for o in outcomes if o.failed(prop)]
        if not failing:
            continue
        lines += ["", f"== {prop}: {len(failing)} answer(s)"]
        by_template: dict[str, list[SweepOutcome]] = defaultdict(list)
        for o in failing:
            by_template[o.question.template].append(o)
        for template, items in sorted(by_template.items()):
            lines.append(f"-- {template}: {len(items)}")
            for o in items[:examples]:
                lines += _example(o, prop)
    return "\n".join(lines)


def _row(template: str, lang: str, items: list[SweepOutcome]) -> str:
    answered = sum(1 for o in items if o.kind in {k.value for k in _GIVES_VALUES})
    counts = Counter(p for o in items for p in PROPERTIES if o.failed(p))
    row = f"{template:<18}{lang:<7}{len(items):>10}{answered:>10}"
    return row + "".join(f"{counts[p]:>13}" for p in PROPERTIES)


def _example(o: SweepOutcome, prop: str) -> list[str]:
    q = o.question
    keys = ", ".join("/".join(k) for k in sorted(q.keys)) or "(none)"
    lines = [f"   Q [{q.lang}, {q.clearance.value}] {q.question}"]
    if q.previous:
        lines.append(f"     after: {' | '.join(q.previous)}")
    lines.append(f"     keys: {keys}; kind: {o.kind}; flagged: {', '.join(o.failed(prop))}")
    lines += [f"     | {line}" for line in o.answer.splitlines()[:8]]
    return lines
