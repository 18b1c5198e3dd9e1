"""Scoring golden cases: four gates, the fabrication and leak counters, a ratcheting baseline.

Per case, each gate passes, fails or does not apply (``None``):

- **numeric accuracy** (cases with ``values`` or ``derived``): every expected fact comes back
  as a ``found`` tool result for its exact slots with the expected value and unit, and the
  answer states that value followed by that unit (``2850 USD_M``; thousands separators are
  ignored); every ``derived`` string (a change or difference we computed from the ground
  truth, e.g. ``+255 USD_M``, ``+8.9%``) appears in the answer.
- **citation validity** (cases with ``values`` or ``narrative_docs``): every expected
  (doc, locator) is in ``result.sources``, and every source the answer lists — expected or not
  — is named in the answer text, document and locator on one line. A narrative case must cite
  at least one source. *Which* documents narrative retrieval found is measured by recall@k and
  MRR, not by this gate.
- **refusal appropriateness** (cases with ``refuse``): the answer is a refusal exactly when one
  is expected. A refusal is an answer of kind ``refused``, ``not_found``, ``unrecognized``,
  ``clarify`` or ``no_context`` — no value was given. ``partial`` and ``degraded`` are not.
- **clarification appropriateness** (cases with ``mode``): the gateway took the expected mode
  (and the expected ``reason`` / ``assumed`` slots when given); an assumption, when made, is
  surfaced: its note is non-empty and shown in the answer.

Counters, over every case (a known issue never excuses them):

- **fabrication**: refusal answers (kinds above) holding a digit sequence that is none of the
  allowed ones. Before counting, we blank upper-snake codes (entity, metric, unit: ``USD_M``), the
  documents and locators in ``result.sources`` and, in a composite answer, the attribution
  section (its numbers are grounded in cited snippets by the narrative guard). Allowed digit
  sequences are those of the asked periods (``FY2019`` → ``2019``; ``2025H1`` → ``2025``,
  ``1``), of the periods the answer reports as looked up and not found (a growth question's
  base year), of the assumed period and of the narrowing options the gateway offered.
- **forbidden**: ``forbidden`` strings (case-insensitive) found in the answer, the sources,
  the tool results or the clarification text — RESTRICTED material shown to an uncleared
  caller, or a number planted in the question and echoed back.

Narrative retrieval: recall@k and MRR (``ragspine.eval.metrics``) over cases with
``narrative_docs``, judged per document, on the retriever's order from ``trace["chunk_ids"]``
(``doc#n``) or, without it, the order of ``result.sources``.

The baseline (``data/baseline.json``) holds the lowest accepted score per gate, the narrative
means and the number of cases scored (cases marked ``known_issue`` drop out, so marking one
shows as a regression), and the highest accepted fabrication and forbidden counts (0).
``ratchet_baseline`` only tightens it unless told ``allow_lower``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table

from ragspine.agent.agent import (
    KIND_CLARIFY,
    KIND_NOT_FOUND,
    KIND_REFUSED,
    KIND_UNRECOGNIZED,
    AgentResult,
)
from ragspine.agent.clarify import CLARIFY_ANSWER_WITH_ASSUMPTIONS
from ragspine.agent.messages import en, zh
from ragspine.agent.narrative import TOP_K
from ragspine.agent.query_tools import STATUS_FOUND, ToolResult
from ragspine.errors import UsageError
from ragspine.eval.metrics import recall_at_k, reciprocal_rank
from ragspine.eval.retrieval_eval import Passage

if TYPE_CHECKING:
    from ragspine.eval.golden import ExpectedValue, GoldenCase

GATE_NUMERIC = "numeric_accuracy"
GATE_CITATION = "citation_validity"
GATE_REFUSAL = "refusal_appropriateness"
GATE_CLARIFICATION = "clarification_appropriateness"
GATES = (GATE_NUMERIC, GATE_CITATION, GATE_REFUSAL, GATE_CLARIFICATION)

# The narrative path retrieves TOP_K snippets, so recall is measured at that depth.
NARRATIVE_K = TOP_K
# The narrative path's answer kind when retrieval returned nothing it may show.
KIND_NO_CONTEXT = "no_context"
REFUSAL_KINDS = frozenset(
    {KIND_REFUSED, KIND_NOT_FOUND, KIND_UNRECOGNIZED, KIND_CLARIFY, KIND_NO_CONTEXT}
)
BASELINE_NAME = "baseline.json"

_NUMBER_UNIT = re.compile(r"(?<![\w.])([+-]?\d[\d,]*(?:\.\d+)?)\s*([A-Z][A-Z0-9_]*)")
_CODE = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")
_DIGITS = re.compile(r"\d+")
_HEADINGS = (zh.NARRATIVE_HEADING, en.NARRATIVE_HEADING)


# --------------------------------------------------------------------------- per case


@dataclass(frozen=True)
class CaseScore:
    """One case's verdicts; a gate is True, False or None (does not apply)."""

    case: GoldenCase
    gates: dict[str, bool | None]
    failures: tuple[str, ...]
    fabricated: tuple[str, ...]
    forbidden_hits: tuple[str, ...]
    recall: float | None
    reciprocal_rank: float | None
    answer: str
    answer_kind: str
    route: str
    mode: str

    @property
    def passed(self) -> bool:
        """No applicable gate failed, nothing fabricated, nothing forbidden shown."""
        return (
            all(v is not False for v in self.gates.values())
            and not self.fabricated
            and not self.forbidden_hits
        )

    def to_dict(self) -> dict[str, Any]:
        """Verdicts and reasons; the answer text only for a case that did not pass."""
        case = self.case
        out: dict[str, Any] = {
            "id": case.id,
            "question": case.question,
            "tags": list(case.tags),
            "clearance": case.clearance.value,
            "reference_date": case.reference_date.isoformat(),
            "passed": self.passed,
            "gates": dict(self.gates),
            "fabricated": list(self.fabricated),
            "forbidden_hits": list(self.forbidden_hits),
            "recall": _round(self.recall),
            "reciprocal_rank": _round(self.reciprocal_rank),
            "answer_kind": self.answer_kind,
            "route": self.route,
            "mode": self.mode,
            "failures": list(self.failures),
        }
        if case.known_issue:
            out["known_issue"] = case.known_issue
        if not self.passed:
            out["answer"] = self.answer
        return out


def score_case(case: GoldenCase, result: AgentResult, *, k: int = NARRATIVE_K) -> CaseScore:
    """Score one answer against its case's expectations (see the module docstring)."""
    failures: list[str] = []
    gates = {
        GATE_NUMERIC: numeric_accuracy(case, result, failures),
        GATE_CITATION: citation_validity(case, result, failures),
        GATE_REFUSAL: refusal_appropriateness(case, result, failures),
        GATE_CLARIFICATION: clarification_appropriateness(case, result, failures),
    }
    fabricated = tuple(fabricated_digits(result))
    if fabricated:
        failures.append(f"refusal states number(s) {', '.join(fabricated)}")
    hits = tuple(forbidden_hits(case, result))
    if hits:
        failures.append(f"shows forbidden {', '.join(hits)}")
    recall, rr = narrative_retrieval(case, result, k)
    return CaseScore(
        case=case,
        gates=gates,
        failures=tuple(failures),
        fabricated=fabricated,
        forbidden_hits=hits,
        recall=recall,
        reciprocal_rank=rr,
        answer=result.answer,
        answer_kind=result.answer_kind,
        route=result.route,
        mode=result.clarification.mode,
    )


def numeric_accuracy(case: GoldenCase, result: AgentResult, failures: list[str]) -> bool | None:
    expect = case.expect
    if not expect.values and not expect.derived:
        return None
    stated = _stated_values(result.answer)
    before = len(failures)
    for wanted in expect.values:
        fact = _found_fact(result.tool_results, wanted)
        if fact is None:
            failures.append(f"{wanted.key}: no found fact")
            continue
        value, unit = fact.get("value"), fact.get("unit")
        if not isinstance(value, int | float) or not math.isclose(value, wanted.value):
            failures.append(f"{wanted.key}: value {value} is not {_num(wanted.value)}")
        if unit != wanted.unit:
            failures.append(f"{wanted.key}: unit {unit} is not {wanted.unit}")
        if not any(math.isclose(v, wanted.value) and u == wanted.unit for v, u in stated):
            failures.append(f"{wanted.key}: answer lacks {_num(wanted.value)} {wanted.unit}")
    for text in expect.derived:
        if text not in result.answer:
            failures.append(f"answer lacks {text!r}")
    return len(failures) == before


def citation_validity(case: GoldenCase, result: AgentResult, failures: list[str]) -> bool | None:
    expect = case.expect
    if not expect.values and not expect.narrative_docs:
        return None
    before = len(failures)
    listed = {(s.get("doc"), s.get("locator")) for s in result.sources}
    for wanted in expect.values:
        if (wanted.doc, wanted.locator) not in listed:
            failures.append(f"{wanted.key}: {wanted.doc} · {wanted.locator} not in sources")
    for source in result.sources:
        doc, locator = source.get("doc", ""), source.get("locator", "")
        if not _named(result.answer, doc, locator):
            failures.append(f"source {doc} · {locator} not named in the answer")
    if expect.narrative_docs and not result.sources:
        failures.append("narrative answer cites no source")
    return len(failures) == before


def refusal_appropriateness(
    case: GoldenCase, result: AgentResult, failures: list[str]
) -> bool | None:
    wanted = case.expect.refuse
    if wanted is None:
        return None
    refused = is_refusal(result)
    if refused != wanted:
        expected = "a refusal" if wanted else "an answer"
        failures.append(f"expected {expected}, got answer kind {result.answer_kind}")
    return refused == wanted


def clarification_appropriateness(
    case: GoldenCase, result: AgentResult, failures: list[str]
) -> bool | None:
    expect = case.expect
    if expect.mode is None:
        return None
    clar = result.clarification
    before = len(failures)
    if clar.mode != expect.mode:
        failures.append(f"mode {clar.mode} ({clar.reason or 'no reason'}), expected {expect.mode}")
    elif expect.reason is not None and clar.reason != expect.reason:
        failures.append(f"reason {clar.reason or 'none'}, expected {expect.reason}")
    if expect.assumed is not None and dict(clar.assumed_slots) != dict(expect.assumed):
        failures.append(f"assumed {dict(clar.assumed_slots)}, expected {dict(expect.assumed)}")
    if clar.mode == CLARIFY_ANSWER_WITH_ASSUMPTIONS and (
        not clar.assumption_note or clar.assumption_note not in result.answer
    ):
        failures.append("assumption not surfaced in the answer")
    return len(failures) == before


def is_refusal(result: AgentResult) -> bool:
    """The answer gives no value: refused, not found, unrecognized, a question back, no context."""
    return result.answer_kind in REFUSAL_KINDS


def fabricated_digits(result: AgentResult) -> list[str]:
    """Digit sequences a refusal should not hold (see the module docstring); [] otherwise."""
    if not is_refusal(result):
        return []
    text = result.answer
    for heading in _HEADINGS:
        text = text.split(heading, 1)[0]
    for source in result.sources:
        for part in (source.get("doc", ""), source.get("locator", "")):
            if part:
                text = text.replace(part, " ")
    text = _CODE.sub(" ", text)
    allowed = {d for label in _allowed_periods(result) for d in _DIGITS.findall(label)}
    return [d for d in _DIGITS.findall(text) if d not in allowed]


def _allowed_periods(result: AgentResult) -> list[str]:
    clar = result.clarification
    labels = [p.label for p in result.intent.periods] if result.intent else []
    traced = result.trace.get("period_labels", [])
    if isinstance(traced, list):
        labels += [str(label) for label in traced]
    for r in result.tool_results:
        normalized = r.get("normalized")
        if isinstance(normalized, dict):
            labels.append(str(normalized.get("period_label") or normalized.get("period")))
    if "period" in clar.assumed_slots:
        labels.append(clar.assumed_slots["period"])
    return labels + list(clar.narrowing_options)


def forbidden_hits(case: GoldenCase, result: AgentResult) -> list[str]:
    """The case's forbidden strings that appear anywhere the caller can read."""
    if not case.expect.forbidden:
        return []
    clar = result.clarification
    parts = [
        result.answer,
        clar.question,
        clar.assumption_note,
        json.dumps(result.sources, ensure_ascii=False),
        json.dumps(result.tool_results, ensure_ascii=False, default=str),
    ]
    haystack = "\n".join(parts).casefold()
    return [s for s in case.expect.forbidden if s.casefold() in haystack]


def narrative_retrieval(
    case: GoldenCase, result: AgentResult, k: int
) -> tuple[float | None, float | None]:
    """Recall@k and reciprocal rank of the case's narrative documents, judged per document."""
    if not case.expect.narrative_docs:
        return None, None
    relevant = [Passage(doc, "") for doc in case.expect.narrative_docs]
    hits = [Passage(doc, "") for doc in _retrieved_docs(result)]
    return recall_at_k(hits, relevant, k), reciprocal_rank(hits[:k], relevant)


def _retrieved_docs(result: AgentResult) -> list[str]:
    chunk_ids = result.trace.get("chunk_ids")
    if isinstance(chunk_ids, list) and chunk_ids:
        return [str(c).rsplit("#", 1)[0] for c in chunk_ids]
    return [s.get("doc", "") for s in result.sources]


def _found_fact(results: Sequence[ToolResult], wanted: ExpectedValue) -> ToolResult | None:
    for r in results:
        if r.get("status") != STATUS_FOUND:
            continue
        period = r.get("period_label") or f"{r.get('period_type')}{r.get('period')}"
        slots = (r.get("metric_code"), r.get("entity"), period, r.get("channel"))
        if slots == (wanted.metric, wanted.entity, wanted.period_label, wanted.channel):
            return r
    return None


def _stated_values(answer: str) -> list[tuple[float, str]]:
    """Every ``number UNIT`` pair in the answer, separators removed."""
    return [(float(n.replace(",", "")), unit) for n, unit in _NUMBER_UNIT.findall(answer)]


def _named(answer: str, doc: str, locator: str) -> bool:
    return bool(doc) and any(doc in line and locator in line for line in answer.splitlines())


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


# --------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class GateScore:
    """Passed over applicable cases; 1.0 when nothing applied (nothing could fail)."""

    passed: int
    applicable: int

    @property
    def score(self) -> float:
        return self.passed / self.applicable if self.applicable else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "applicable": self.applicable, "score": _round(self.score)}


@dataclass(frozen=True)
class Summary:
    """The gates and counters over one group of case scores (all, or one tag)."""

    cases: int
    gates: dict[str, GateScore]
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
            "recall_at_k": _round(self.recall),
            "mrr": _round(self.mrr),
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
    parts: list[Table] = [_gates_table(report), _tags_table(report)]
    if report.failures:
        parts.append(_cases_table("Failing cases", report.failures))
    if report.known_issues:
        parts.append(_cases_table("Known issues (not gated)", report.known_issues))
    return Group(*parts)


_GATE_LABELS = {
    GATE_NUMERIC: "numeric accuracy",
    GATE_CITATION: "citation validity",
    GATE_REFUSAL: "refusal appropriateness",
    GATE_CLARIFICATION: "clarification appropriateness",
}


def _gates_table(report: GoldenReport) -> Table:
    overall = report.overall
    table = Table(
        title="Golden eval",
        caption=f"{overall.cases} cases · {report.scored_cases} gated · "
        f"{len(report.known_issues)} known issues",
    )
    table.add_column("gate")
    table.add_column("passed", justify="right")
    table.add_column("score", justify="right")
    for name in GATES:
        gate = overall.gates[name]
        table.add_row(_GATE_LABELS[name], f"{gate.passed}/{gate.applicable}", f"{gate.score:.3f}")
    table.add_section()
    table.add_row("fabrication (refusals stating a number)", "", str(overall.fabrication))
    table.add_row("restricted leaks / forbidden strings shown", "", str(overall.forbidden))
    table.add_row(
        f"narrative recall@{report.k} ({overall.narrative_cases} cases)", "", _fmt(overall.recall)
    )
    table.add_row("narrative MRR", "", _fmt(overall.mrr))
    return table


def _tags_table(report: GoldenReport) -> Table:
    table = Table(title="By tag")
    table.add_column("tag")
    table.add_column("cases", justify="right")
    for name in GATES:
        table.add_column(_GATE_LABELS[name].split()[0], justify="right")
    table.add_column("fabrication", justify="right")
    table.add_column("forbidden", justify="right")
    table.add_column(f"recall@{report.k}", justify="right")
    for tag, summary in report.by_tag.items():
        cells = [
            f"{g.passed}/{g.applicable}" if g.applicable else "—"
            for g in (summary.gates[name] for name in GATES)
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


# --------------------------------------------------------------------------- the baseline

_MIN_SCORES = "gates"
_NARRATIVE = "narrative"
_BASELINE_FIELDS = {_MIN_SCORES, _NARRATIVE, "min_scored_cases", "max_fabrication", "max_forbidden"}
_NARRATIVE_FIELDS = {"k", "recall_at_k", "mrr"}
# Scores are stored floored to 4 decimals, so a stored minimum never exceeds the run it
# came from; comparisons allow for float noise.
_PLACES = 10_000
_EPSILON = 1e-9


def default_baseline_path() -> Path:
    """The committed baseline shipped beside the golden set."""
    return Path(str(resources.files("ragspine.eval").joinpath("data", BASELINE_NAME)))


def load_baseline(path: str | Path | None = None) -> dict[str, Any]:
    """Read and validate a baseline file; errors name the file."""
    source = Path(path) if path is not None else default_baseline_path()
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read baseline {source}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source}: not valid JSON ({exc.msg})") from None
    try:
        _validate_baseline(raw)
    except ValueError as exc:
        raise UsageError(f"{source}: {exc}") from None
    return raw  # type: ignore[no-any-return]


def _validate_baseline(raw: Any) -> None:
    if not isinstance(raw, dict) or set(raw) != _BASELINE_FIELDS:
        raise ValueError(f"a baseline holds exactly {', '.join(sorted(_BASELINE_FIELDS))}")
    gates = raw[_MIN_SCORES]
    if not isinstance(gates, dict) or set(gates) != set(GATES):
        raise ValueError(f"'gates' must hold exactly {', '.join(GATES)}")
    narrative = raw[_NARRATIVE]
    if not isinstance(narrative, dict) or set(narrative) != _NARRATIVE_FIELDS:
        raise ValueError(f"'narrative' must hold exactly {', '.join(sorted(_NARRATIVE_FIELDS))}")
    numbers = [*gates.values(), narrative["recall_at_k"], narrative["mrr"]]
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        raise ValueError("scores must be numbers")
    counts = [raw["min_scored_cases"], raw["max_fabrication"], raw["max_forbidden"], narrative["k"]]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        raise ValueError("counts and k must be non-negative integers")


def baseline_of(report: GoldenReport) -> dict[str, Any]:
    """The baseline this run would set: its own scores and counts."""
    overall = report.overall
    return {
        _MIN_SCORES: {name: _floor(overall.gates[name].score) for name in GATES},
        _NARRATIVE: {
            "k": report.k,
            "recall_at_k": _floor(overall.recall if overall.recall is not None else 1.0),
            "mrr": _floor(overall.mrr if overall.mrr is not None else 1.0),
        },
        "min_scored_cases": report.scored_cases,
        "max_fabrication": overall.fabrication,
        "max_forbidden": overall.forbidden,
    }


def check_baseline(report: GoldenReport, baseline_path: str | Path | None = None) -> list[str]:
    """Regressions of ``report`` against the baseline, one message each; [] means OK."""
    base = load_baseline(baseline_path)
    now = baseline_of(report)
    problems = [
        f"{name}: {now[_MIN_SCORES][name]:.4f} is below the baseline {floor:.4f}"
        for name, floor in base[_MIN_SCORES].items()
        if now[_MIN_SCORES][name] < floor - _EPSILON
    ]
    problems += _narrative_regressions(now[_NARRATIVE], base[_NARRATIVE])
    if now["min_scored_cases"] < base["min_scored_cases"]:
        problems.append(
            f"cases gated: {now['min_scored_cases']} is below the baseline "
            f"{base['min_scored_cases']} (cases removed or marked known_issue)"
        )
    for key, label in (("max_fabrication", "fabrication"), ("max_forbidden", "forbidden")):
        if now[key] > base[key]:
            problems.append(f"{label}: {now[key]} is above the baseline {base[key]}")
    return problems


def _narrative_regressions(now: dict[str, Any], base: dict[str, Any]) -> list[str]:
    if now["k"] != base["k"]:
        return [f"narrative recall measured at k={now['k']}, the baseline is at k={base['k']}"]
    return [
        f"narrative {key}: {now[key]:.4f} is below the baseline {base[key]:.4f}"
        for key in ("recall_at_k", "mrr")
        if now[key] < base[key] - _EPSILON
    ]


def ratchet_baseline(
    report: GoldenReport, path: str | Path | None = None, *, allow_lower: bool = False
) -> dict[str, Any]:
    """Write the baseline tightened by this run and return it.

    Minimums only rise and maximums only fall; with ``allow_lower`` the run's own values are
    written as they are, so loosening the baseline is always an explicit, reviewable change.
    """
    target = Path(path) if path is not None else default_baseline_path()
    now = baseline_of(report)
    keep_own = allow_lower or not target.exists()
    new = now if keep_own else _tightened(load_baseline(target), now)
    target.write_text(json.dumps(new, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return new


def _tightened(base: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    if base[_NARRATIVE]["k"] != now[_NARRATIVE]["k"]:
        raise UsageError(
            f"the baseline measures narrative recall at k={base[_NARRATIVE]['k']}, this run at "
            f"k={now[_NARRATIVE]['k']}; re-baselining at another k needs allow_lower"
        )
    narrative = {
        key: value if key == "k" else max(base[_NARRATIVE][key], value)
        for key, value in now[_NARRATIVE].items()
    }
    return {
        _MIN_SCORES: {n: max(base[_MIN_SCORES][n], now[_MIN_SCORES][n]) for n in GATES},
        _NARRATIVE: narrative,
        "min_scored_cases": max(base["min_scored_cases"], now["min_scored_cases"]),
        "max_fabrication": min(base["max_fabrication"], now["max_fabrication"]),
        "max_forbidden": min(base["max_forbidden"], now["max_forbidden"]),
    }


def _floor(score: float) -> float:
    return math.floor(score * _PLACES + _EPSILON) / _PLACES
