"""Golden reports: gate scores and counters per split and per tag, as Rich tables and JSON.

A gate's score is passed over applicable cases among those not marked ``known_issue``; the
fabrication and forbidden counters count every case. ``EvalRun`` holds one report per split
(``dev``, ``regression``, ``heldout``) and prints them side by side; a held-out split shows its
aggregates only (gates, counts, narrative means) unless case detail is asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from rich.console import Group
from rich.table import Table

from ragspine.eval.cases import HELD_OUT_SPLITS
from ragspine.eval.scoring import GATES, NARRATIVE_K, CaseScore, Gate, rounded


@dataclass(frozen=True)
class GateScore:
    """Passed over applicable cases; 1.0 when nothing applied (nothing could fail)."""

    passed: int
    applicable: int

    @property
    def score(self) -> float:
        return self.passed / self.applicable if self.applicable else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "applicable": self.applicable, "score": rounded(self.score)}


@dataclass(frozen=True)
class Summary:
    """The gates and counters over one group of case scores (all, or one tag)."""

    cases: int
    gates: dict[Gate, GateScore]
    fabrication: int
    forbidden: int
    narrative_cases: int
    recall: float | None
    mrr: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "gates": {name: g.to_dict() for name, g in self.gates.items()},
            "fabrication": self.fabrication,
            "forbidden": self.forbidden,
            "narrative_cases": self.narrative_cases,
            "recall_at_k": rounded(self.recall),
            "mrr": rounded(self.mrr),
        }


def summarize(scores: Sequence[CaseScore]) -> Summary:
    """Gates over the cases not marked ``known_issue``; counters over every case."""
    scored = [s for s in scores if not s.case.known_issue]
    gates = {
        name: GateScore(
            passed=sum(1 for s in scored if s.gates[name] is True),
            applicable=sum(1 for s in scored if s.gates[name] is not None),
        )
        for name in GATES
    }
    narrative = [s for s in scored if s.recall is not None]
    return Summary(
        cases=len(scores),
        gates=gates,
        fabrication=sum(1 for s in scores if s.fabricated),
        forbidden=sum(1 for s in scores if s.forbidden_hits),
        narrative_cases=len(narrative),
        recall=fmean(s.recall for s in narrative if s.recall is not None) if narrative else None,
        mrr=fmean(s.reciprocal_rank or 0.0 for s in narrative) if narrative else None,
    )


@dataclass(frozen=True)
class GoldenReport:
    """A whole run: every case's score, the overall summary and one summary per tag."""

    k: int
    scores: tuple[CaseScore, ...]
    overall: Summary
    by_tag: dict[str, Summary]

    @property
    def scored_cases(self) -> int:
        """Cases counted by the gates (all but known issues)."""
        return sum(1 for s in self.scores if not s.case.known_issue)

    @property
    def known_issues(self) -> tuple[CaseScore, ...]:
        return tuple(s for s in self.scores if s.case.known_issue)

    @property
    def failures(self) -> tuple[CaseScore, ...]:
        """Scored cases that did not pass, and known issues that fabricated or leaked."""
        return tuple(
            s
            for s in self.scores
            if not s.passed and (not s.case.known_issue or s.fabricated or s.forbidden_hits)
        )

    def aggregate_dict(self) -> dict[str, Any]:
        """The summary without a case id, question or answer: what a held-out split shows."""
        return {
            "k": self.k,
            "scored_cases": self.scored_cases,
            "known_issue_cases": len(self.known_issues),
            "failing_cases": len(self.failures),
            "overall": self.overall.to_dict(),
            "case_detail": "hidden",
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "scored_cases": self.scored_cases,
            "overall": self.overall.to_dict(),
            "by_tag": {tag: summary.to_dict() for tag, summary in self.by_tag.items()},
            "known_issues": [s.to_dict() for s in self.known_issues],
            "failures": [s.to_dict() for s in self.failures],
            "cases": [s.to_dict() for s in self.scores],
        }

    def to_json(self) -> str:
        """``to_dict`` as indented JSON, CJK kept readable."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def build_report(scores: Iterable[CaseScore], *, k: int = NARRATIVE_K) -> GoldenReport:
    """Summaries overall and per tag (tags in first-seen order)."""
    all_scores = tuple(scores)
    tags = dict.fromkeys(tag for s in all_scores for tag in s.case.tags)
    by_tag = {tag: summarize([s for s in all_scores if tag in s.case.tags]) for tag in tags}
    return GoldenReport(k, all_scores, summarize(all_scores), by_tag)


def render_report(report: GoldenReport) -> Group:
    """Rich tables: the gates and counters, the per-tag breakdown, failures and known issues."""
    return render_run(EvalRun({"golden": report}))


@dataclass(frozen=True)
class EvalRun:
    """One golden run over one or more splits (``dev``, ``regression``, ``heldout``), each with
    its report; the splits named in ``held_out`` are shown as aggregates only by default."""

    reports: Mapping[str, GoldenReport]
    held_out: frozenset[str] = HELD_OUT_SPLITS

    @property
    def failures(self) -> tuple[CaseScore, ...]:
        """Failing cases of every split, held-out ones included: for code, never for printing."""
        return tuple(s for report in self.reports.values() for s in report.failures)

    def hides(self, name: str, *, reveal_held_out: bool = False) -> bool:
        """Whether split ``name`` is shown without its cases."""
        return name in self.held_out and not reveal_held_out

    def to_dict(self, *, reveal_held_out: bool = False) -> dict[str, Any]:
        return {
            name: report.aggregate_dict()
            if self.hides(name, reveal_held_out=reveal_held_out)
            else report.to_dict()
            for name, report in self.reports.items()
        }

    def to_json(self, *, reveal_held_out: bool = False) -> str:
        """``to_dict`` as indented JSON, CJK kept readable."""
        as_dict = self.to_dict(reveal_held_out=reveal_held_out)
        return json.dumps(as_dict, ensure_ascii=False, indent=2)


def render_run(run: EvalRun, *, reveal_held_out: bool = False) -> Group:
    """The gates of every split side by side, then per split its tags, failures, known issues;
    a held-out split stops at the gates unless ``reveal_held_out``: even its per-tag table
    would point at the category to tune for."""
    parts: list[Table] = [_gates_table(run, reveal_held_out)]
    for name, report in run.reports.items():
        if run.hides(name, reveal_held_out=reveal_held_out):
            continue
        parts.append(_tags_table(name, report))
        if report.failures:
            parts.append(_cases_table(f"Failing cases ({name})", report.failures))
        if report.known_issues:
            parts.append(_cases_table(f"Known issues, not gated ({name})", report.known_issues))
    return Group(*parts)


_GATE_LABELS = {
    Gate.NUMERIC: "numeric accuracy",
    Gate.CITATION: "citation validity",
    Gate.REFUSAL: "refusal appropriateness",
    Gate.CLARIFICATION: "clarification appropriateness",
}


def _gates_table(run: EvalRun, reveal_held_out: bool) -> Table:
    reports = list(run.reports.items())
    caption = " · ".join(
        f"{name}: {r.overall.cases} cases, {r.scored_cases} gated, {len(r.known_issues)} known"
        + (
            f", {len(r.failures)} failing (cases not shown)"
            if run.hides(name, reveal_held_out=reveal_held_out)
            else ""
        )
        for name, r in reports
    )
    table = Table(title="Golden eval", caption=caption)
    table.add_column("gate")
    for name, _ in reports:
        table.add_column(f"{name} passed", justify="right")
        table.add_column(f"{name} score", justify="right")
    for gate in GATES:
        cells = []
        for _, report in reports:
            score = report.overall.gates[gate]
            cells += [f"{score.passed}/{score.applicable}", f"{score.score:.3f}"]
        table.add_row(_GATE_LABELS[gate], *cells)
    table.add_section()
    counters = {
        "fabrication (answers with an untraceable number)": [
            str(r.overall.fabrication) for _, r in reports
        ],
        "restricted leaks / forbidden strings shown": [
            str(r.overall.forbidden) for _, r in reports
        ],
        "narrative cases": [str(r.overall.narrative_cases) for _, r in reports],
        f"narrative recall@{reports[0][1].k}": [_fmt(r.overall.recall) for _, r in reports],
        "narrative MRR": [_fmt(r.overall.mrr) for _, r in reports],
    }
    for label, values in counters.items():
        table.add_row(label, *(cell for value in values for cell in ("", value)))
    return table


def _tags_table(name: str, report: GoldenReport) -> Table:
    table = Table(title=f"By tag ({name})")
    table.add_column("tag")
    table.add_column("cases", justify="right")
    for gate in GATES:
        table.add_column(_GATE_LABELS[gate].split()[0], justify="right")
    table.add_column("fabrication", justify="right")
    table.add_column("forbidden", justify="right")
    table.add_column(f"recall@{report.k}", justify="right")
    for tag, summary in report.by_tag.items():
        cells = [
            f"{g.passed}/{g.applicable}" if g.applicable else "—"
            for g in (summary.gates[gate] for gate in GATES)
        ]
        table.add_row(
            tag,
            str(summary.cases),
            *cells,
            str(summary.fabrication),
            str(summary.forbidden),
            _fmt(summary.recall),
        )
    return table


def _cases_table(title: str, scores: Sequence[CaseScore]) -> Table:
    table = Table(title=title)
    table.add_column("id")
    table.add_column("question")
    table.add_column("why")
    for s in scores:
        why = "; ".join(s.failures) or "passes now"
        if s.case.known_issue:
            why = f"{s.case.known_issue} — {why}"
        table.add_row(s.case.id, s.case.question, why)
    return table


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
