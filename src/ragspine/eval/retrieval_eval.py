"""The bilingual retrieval eval: a judged query set over the demo corpus, and a scorer for it.

Each query carries its category (lexical, paraphrase, zh_to_en, en_to_zh, entity, period),
the caller's clearance and the passages that answer it, judged by reading the corpus. The
scorer asks the retriever exactly what the agent would — the same metadata filters, derived
from the question by ``filters_for(parse_intent(...))``, and the query's clearance — and
reports recall@k, MRR and nDCG@k per category and overall (see ``ragspine.eval.metrics``).

Leak rule: a query whose top k holds a passage above its clearance scores 0 on every metric,
and the report fails. This is what makes the RESTRICTED probes work: the same question asked
at CONFIDENTIAL has nothing relevant, so it scores 1.0 exactly when nothing restricted came back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path
from statistics import fmean
from typing import Any

from rich.table import Table

from ragspine.agent.intent import parse_intent
from ragspine.agent.narrative import filters_for
from ragspine.enums import ParseableEnum
from ragspine.errors import UsageError
from ragspine.eval.jsonl import read_records
from ragspine.eval.metrics import is_match, ndcg_at_k, recall_at_k, reciprocal_rank
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever, Snippet

DEFAULT_K = 10
# The set was judged against the demo's "today": "去年" in a query means FY2025.
EVAL_REFERENCE_DATE = date(2026, 11, 26)
EVAL_SET_NAME = "retrieval_eval.jsonl"


class Category(ParseableEnum, label="category"):
    """What a query tests; the file's ``category`` field holds the value."""

    LEXICAL = "lexical"
    PARAPHRASE = "paraphrase"
    ZH_TO_EN = "zh_to_en"
    EN_TO_ZH = "en_to_zh"
    ENTITY = "entity"
    PERIOD = "period"


# Minimum mean recall@k per category, from the acceptance (dense channel off).
# Paraphrase and period queries are reported without a gate.
RECALL_THRESHOLDS: dict[Category, float] = {
    Category.LEXICAL: 0.9,
    Category.ENTITY: 0.9,
    Category.ZH_TO_EN: 0.7,
    Category.EN_TO_ZH: 0.7,
}


@dataclass(frozen=True)
class Passage:
    """A judged relevant passage: a document and a block or chunk locator inside it."""

    doc: str
    locator: str


@dataclass(frozen=True)
class EvalQuery:
    """One judged query: ``relevant`` lists every passage that answers it (may be empty)."""

    id: str
    query: str
    category: Category
    relevant: tuple[Passage, ...]
    clearance: Sensitivity = DEFAULT_CLEARANCE
    note: str = ""


@dataclass(frozen=True)
class QueryResult:
    """One query's top-k hits and scores; ``leaked`` counts hits above its clearance."""

    query: EvalQuery
    hits: tuple[Snippet, ...]
    recall: float
    reciprocal_rank: float
    ndcg: float
    leaked: int

    def to_dict(self) -> dict[str, Any]:
        """Scores, hits and misses by lineage only: snippet text never leaves the retriever."""
        q = self.query
        return {
            "id": q.id,
            "category": q.category.value,
            "query": q.query,
            "clearance": q.clearance.value,
            "recall": round(self.recall, 4),
            "reciprocal_rank": round(self.reciprocal_rank, 4),
            "ndcg": round(self.ndcg, 4),
            "leaked": self.leaked,
            "hits": [
                {
                    "doc": h.doc,
                    "locator": h.locator,
                    "chunk_id": h.chunk_id,
                    "score": h.score,
                    "relevant": any(is_match(h, r) for r in q.relevant),
                }
                for h in self.hits
            ],
            "missed": [
                {"doc": r.doc, "locator": r.locator}
                for r in q.relevant
                if not any(is_match(h, r) for h in self.hits)
            ],
        }


@dataclass(frozen=True)
class Score:
    """Mean metrics over a group of queries (a category, or ``overall``)."""

    name: str
    queries: int
    recall: float
    mrr: float
    ndcg: float
    threshold: float | None = None

    @property
    def passed(self) -> bool | None:
        """Whether mean recall meets the threshold; None when the category has no threshold."""
        return None if self.threshold is None else self.recall >= self.threshold

    def to_dict(self) -> dict[str, Any]:
        """Rounded means, the threshold and the verdict."""
        return {
            "queries": self.queries,
            "recall": round(self.recall, 4),
            "mrr": round(self.mrr, 4),
            "ndcg": round(self.ndcg, 4),
            "threshold": self.threshold,
            "passed": self.passed,
        }


@dataclass(frozen=True)
class RetrievalReport:
    """A whole run: per-query results, per-category means and the overall mean."""

    k: int
    reference_date: date
    results: tuple[QueryResult, ...]
    categories: tuple[Score, ...]
    overall: Score

    @property
    def leaks(self) -> int:
        """Hits above their query's clearance, over all queries."""
        return sum(r.leaked for r in self.results)

    @property
    def passed(self) -> bool:
        """Every gated category meets its threshold and nothing above clearance came back."""
        return self.leaks == 0 and all(s.passed is not False for s in self.categories)

    def to_dict(self) -> dict[str, Any]:
        """The verdict, the means and every query's hits, by lineage only."""
        return {
            "k": self.k,
            "reference_date": self.reference_date.isoformat(),
            "passed": self.passed,
            "leaks": self.leaks,
            "overall": self.overall.to_dict(),
            "categories": {s.name: s.to_dict() for s in self.categories},
            "queries": [r.to_dict() for r in self.results],
        }

    def to_json(self) -> str:
        """``to_dict`` as indented JSON, CJK kept readable."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def default_eval_set_path() -> Path:
    """The query set shipped in the package."""
    return Path(str(resources.files("ragspine.eval").joinpath("data", EVAL_SET_NAME)))


def load_eval_set(path: str | Path | None = None) -> list[EvalQuery]:
    """Read a JSONL query set (default: the packaged one); errors name the file and line."""
    source = Path(path) if path is not None else default_eval_set_path()
    return read_records(source, _parse_line, "eval set")


_FIELDS = {"id", "query", "category", "relevant", "clearance", "note"}


def _parse_line(line: str) -> EvalQuery:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise ValueError("each line must be one JSON object")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        valid = ", ".join(sorted(_FIELDS))
        raise ValueError(f"unknown field(s) {', '.join(unknown)}; valid fields: {valid}")
    relevant = raw.get("relevant")
    if not isinstance(relevant, list):
        raise ValueError("'relevant' must be a list of {doc, locator} objects (may be empty)")
    return EvalQuery(
        id=_text(raw, "id"),
        query=_text(raw, "query"),
        category=Category.parse(_text(raw, "category")),
        relevant=tuple(_passage(item) for item in relevant),
        clearance=Sensitivity.parse(_text(raw, "clearance", DEFAULT_CLEARANCE.value)),
        note=_text(raw, "note", ""),
    )


def _text(raw: dict[str, Any], key: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise ValueError(f"'{key}' must be a non-empty string")
    return value


def _passage(item: Any) -> Passage:
    if not isinstance(item, dict) or set(item) != {"doc", "locator"}:
        raise ValueError(f"relevant item {item!r} must be an object with exactly doc and locator")
    return Passage(doc=_text(item, "doc"), locator=_text(item, "locator"))


def run_retrieval_eval(
    retriever: NarrativeRetriever,
    queries: Sequence[EvalQuery],
    *,
    k: int = DEFAULT_K,
    reference_date: date = EVAL_REFERENCE_DATE,
    profile: DomainProfile,
) -> RetrievalReport:
    """Ask ``retriever`` every query as the agent would and score the top ``k`` hits.

    ``profile`` is the one the question parser uses (the workspace's).
    """
    if k < 1:
        raise UsageError(f"k must be at least 1, got {k}")
    if not queries:
        raise UsageError("no queries to evaluate")
    results = tuple(_score(retriever, q, k, reference_date, profile) for q in queries)
    categories = tuple(
        _mean(c.value, group, RECALL_THRESHOLDS.get(c))
        for c in Category
        if (group := [r for r in results if r.query.category is c])
    )
    return RetrievalReport(k, reference_date, results, categories, _mean("overall", results))


def _score(
    retriever: NarrativeRetriever,
    query: EvalQuery,
    k: int,
    reference_date: date,
    profile: DomainProfile,
) -> QueryResult:
    filters = filters_for(parse_intent(query.query, reference_date, profile=profile))
    hits = tuple(
        retriever.retrieve(query.query, top_k=k, filters=filters, clearance=query.clearance)[:k]
    )
    leaked = sum(1 for h in hits if not query.clearance.allows(Sensitivity.parse(h.sensitivity)))
    if leaked:
        return QueryResult(query, hits, 0.0, 0.0, 0.0, leaked)
    return QueryResult(
        query,
        hits,
        recall=recall_at_k(hits, query.relevant, k),
        reciprocal_rank=reciprocal_rank(hits, query.relevant),
        ndcg=ndcg_at_k(hits, query.relevant, k),
        leaked=0,
    )


def _mean(name: str, results: Sequence[QueryResult], threshold: float | None = None) -> Score:
    def avg(metric: Callable[[QueryResult], float]) -> float:
        return fmean(metric(r) for r in results)

    return Score(
        name=name,
        queries=len(results),
        recall=avg(lambda r: r.recall),
        mrr=avg(lambda r: r.reciprocal_rank),
        ndcg=avg(lambda r: r.ndcg),
        threshold=threshold,
    )


def render_report(report: RetrievalReport) -> Table:
    """One row per category and an overall row; the caption states k and the leak count."""
    k = report.k
    table = Table(
        title="Retrieval eval",
        caption=f"k={k} · reference date {report.reference_date.isoformat()} · "
        f"leaks above clearance: {report.leaks} · {'PASS' if report.passed else 'FAIL'}",
    )
    table.add_column("category")
    table.add_column("queries", justify="right")
    table.add_column(f"recall@{k}", justify="right")
    table.add_column("MRR", justify="right")
    table.add_column(f"nDCG@{k}", justify="right")
    table.add_column("gate", justify="right")
    table.add_column("status")
    for score in report.categories:
        table.add_row(*_row(score))
    table.add_section()
    table.add_row(*_row(report.overall), style="bold")
    return table


_STATUS = {True: "[green]pass[/green]", False: "[red]FAIL[/red]", None: "—"}


def _row(score: Score) -> tuple[str, ...]:
    gate = "—" if score.threshold is None else f"≥ {score.threshold:.2f}"
    return (
        score.name,
        str(score.queries),
        f"{score.recall:.3f}",
        f"{score.mrr:.3f}",
        f"{score.ndcg:.3f}",
        gate,
        _STATUS[score.passed],
    )
