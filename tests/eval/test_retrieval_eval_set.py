"""The packaged retrieval eval set is well-formed and honest against a freshly ingested demo
corpus, and the scorer aggregates a fake retriever's results as hand-computed."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from ragspine.agent.intent import parse_intent
from ragspine.agent.narrative import filters_for
from ragspine.demo.corpus import generate_corpus
from ragspine.errors import UsageError
from ragspine.eval.retrieval_eval import (
    EVAL_REFERENCE_DATE,
    Category,
    EvalQuery,
    Passage,
    load_eval_set,
    render_report,
    run_retrieval_eval,
)
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.chunking import Chunk, locator_covers
from ragspine.retrieval.protocol import RetrievalFilters, Snippet
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.profiles import acme

_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def queries() -> list[EvalQuery]:
    return load_eval_set()


@pytest.fixture(scope="module")
def demo_chunks(tmp_path_factory: pytest.TempPathFactory) -> list[Chunk]:
    root = tmp_path_factory.mktemp("eval-demo")
    generate_corpus(root / "corpus")
    with SQLiteWorkspaceStore(root / "ws.db") as store:
        store.init_schema()
        report = ingest([root / "corpus"], store, load_profile())
        assert report.failures == []
        return store.list_chunks()


def covering(chunks: list[Chunk], passage: Passage) -> list[Chunk]:
    return [
        c
        for c in chunks
        if c.doc_id == passage.doc
        and (
            locator_covers(c.locator, passage.locator) or locator_covers(passage.locator, c.locator)
        )
    ]


def language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def test_the_packaged_set_has_enough_queries_in_every_category(queries: list[EvalQuery]) -> None:
    counts = Counter(q.category for q in queries)
    assert len(queries) >= 80
    assert set(counts) == set(Category)
    assert min(counts.values()) >= 12, counts


def test_every_judged_passage_exists_in_the_demo_corpus(
    queries: list[EvalQuery], demo_chunks: list[Chunk]
) -> None:
    missing = [(q.id, p) for q in queries for p in q.relevant if not covering(demo_chunks, p)]
    assert missing == []


def test_the_judged_passages_of_a_query_lie_in_distinct_chunks(
    queries: list[EvalQuery], demo_chunks: list[Chunk]
) -> None:
    # Otherwise one hit would find two judged passages and nDCG's ideal would be unreachable.
    for q in queries:
        ids = [c.chunk_id for p in q.relevant for c in covering(demo_chunks, p)]
        assert len(ids) == len(set(ids)), q.id


def test_no_query_is_judged_relevant_beyond_its_clearance(
    queries: list[EvalQuery], demo_chunks: list[Chunk]
) -> None:
    for q in queries:
        for p in q.relevant:
            for chunk in covering(demo_chunks, p):
                assert q.clearance.allows(Sensitivity.parse(chunk.sensitivity)), (q.id, p)


def test_restricted_probes_come_in_pairs(queries: list[EvalQuery]) -> None:
    probes = [q for q in queries if q.clearance is Sensitivity.RESTRICTED]
    assert len(probes) >= 2
    for probe in probes:
        assert probe.relevant
        twins = [
            q
            for q in queries
            if q.query == probe.query and q.clearance is not Sensitivity.RESTRICTED
        ]
        assert twins and all(t.relevant == () for t in twins), probe.id


def test_each_category_tests_what_its_name_says(
    queries: list[EvalQuery], demo_chunks: list[Chunk]
) -> None:
    def languages(q: EvalQuery) -> set[str]:
        return {c.language for p in q.relevant for c in covering(demo_chunks, p)}

    for q in queries:
        asked = language(q.query)
        intent = parse_intent(q.query, EVAL_REFERENCE_DATE, profile=acme())
        if q.category in (Category.LEXICAL, Category.ENTITY):
            assert languages(q) <= {asked}, q.id
        if q.category is Category.ZH_TO_EN:
            assert asked == "zh" and "en" in languages(q), q.id
        if q.category is Category.EN_TO_ZH:
            assert asked == "en" and "zh" in languages(q), q.id
        if q.category is Category.ENTITY:
            assert intent.entities, q.id
        if q.category is Category.PERIOD:
            assert intent.periods, q.id


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"id": "x", "query": "q", "category": "fuzzy", "relevant": []}', "valid options"),
        ('{"id": "x", "query": "q", "category": "lexical"}', "'relevant' must be a list"),
        ('{"id": "x", "query": "", "category": "lexical", "relevant": []}', "'query' must be"),
        ('{"id": "x", "query": "q", "category": "lexical", "relevant": [{"doc": "d"}]}', "exactly"),
        (
            '{"id": "x", "query": "q", "category": "lexical", "relevant": [], "relevent": []}',
            "relevent",
        ),
        (
            '{"id": "x", "query": "q", "category": "lexical", "relevant": [], "clearance": "TOP"}',
            "TOP",
        ),
    ],
)
def test_a_malformed_line_is_reported_with_its_number(
    tmp_path: Path, line: str, message: str
) -> None:
    good = {"id": "ok", "query": "q", "category": "lexical", "relevant": []}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=rf"set\.jsonl:3: .*{re.escape(message)}"):
        load_eval_set(path)


def test_duplicate_ids_and_missing_files_are_usage_errors(tmp_path: Path) -> None:
    line = json.dumps({"id": "a", "query": "q", "category": "period", "relevant": []})
    path = tmp_path / "dup.jsonl"
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"dup\.jsonl:2: duplicate id 'a'"):
        load_eval_set(path)
    with pytest.raises(UsageError, match="cannot read"):
        load_eval_set(tmp_path / "absent.jsonl")


A = Snippet("a#1", "decks/a.pptx", "slide=2,notes", "text", "INTERNAL")
B = Snippet("b#1", "reports/b.pdf", "page=3,para=1-3", "text", "PUBLIC")
NOISE = Snippet("a#2", "decks/a.pptx", "slide=2,body", "text", "INTERNAL")
SECRET = Snippet("m#1", "memos/minutes.docx", "section=2,para=1-2", "text", "RESTRICTED")
JUDGED_A = Passage("decks/a.pptx", "slide=2,notes")
JUDGED_B = Passage("reports/b.pdf", "page=3,para=2")
JUDGED_C = Passage("memos/c.md", "section=1,para=1")

QUERIES = [
    EvalQuery("l1", "香港2024年营运利润", Category.LEXICAL, (JUDGED_A,)),
    EvalQuery("l2", "agency growth", Category.LEXICAL, (JUDGED_A, JUDGED_B)),
    EvalQuery("e1", "Macau outlook", Category.ENTITY, (JUDGED_C,)),
    EvalQuery("l3", "special dividend", Category.LEXICAL, ()),
]


class FakeRetriever:
    """Answers from a fixed table and records what it was asked."""

    def __init__(self, answers: dict[str, list[Snippet]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, int, RetrievalFilters | None, Sensitivity]] = []

    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = Sensitivity.CONFIDENTIAL,
    ) -> list[Snippet]:
        self.calls.append((query, top_k, filters, clearance))
        return self.answers.get(query, [])


ANSWERS = {
    "香港2024年营运利润": [NOISE, A],
    "agency growth": [B],
    "Macau outlook": [],
    "special dividend": [NOISE],
}


def test_aggregates_equal_a_hand_calculation() -> None:
    report = run_retrieval_eval(FakeRetriever(ANSWERS), QUERIES, k=10, profile=acme())
    by_id = {r.query.id: r for r in report.results}
    # l1: the relevant passage at rank 2. l2: one of two judged passages, at rank 1.
    # e1: nothing. l3: nothing judged relevant and nothing above clearance returned.
    assert (by_id["l1"].recall, by_id["l1"].reciprocal_rank) == (1.0, 0.5)
    assert by_id["l1"].ndcg == pytest.approx(1 / math.log2(3))
    assert (by_id["l2"].recall, by_id["l2"].reciprocal_rank) == (0.5, 1.0)
    assert by_id["l2"].ndcg == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert (by_id["e1"].recall, by_id["e1"].reciprocal_rank, by_id["e1"].ndcg) == (0, 0, 0)
    assert (by_id["l3"].recall, by_id["l3"].reciprocal_rank, by_id["l3"].ndcg) == (1, 1, 1)

    lexical, entity = report.categories
    assert (lexical.name, lexical.queries, entity.name, entity.queries) == (
        "lexical",
        3,
        "entity",
        1,
    )
    assert lexical.recall == pytest.approx(2.5 / 3)
    assert lexical.mrr == pytest.approx(2.5 / 3)
    assert lexical.ndcg == pytest.approx((by_id["l1"].ndcg + by_id["l2"].ndcg + 1) / 3)
    assert (lexical.threshold, lexical.passed) == (0.9, False)
    assert (entity.recall, entity.passed) == (0.0, False)
    assert report.overall.recall == pytest.approx(2.5 / 4)
    assert report.overall.passed is None
    assert report.leaks == 0
    assert not report.passed


def test_the_retriever_is_asked_what_the_agent_would_ask() -> None:
    fake = FakeRetriever(ANSWERS)
    restricted = EvalQuery("r1", "special dividend", Category.LEXICAL, (), Sensitivity.RESTRICTED)
    run_retrieval_eval(fake, [QUERIES[0], restricted], k=7, profile=acme())
    intent = parse_intent("香港2024年营运利润", EVAL_REFERENCE_DATE, profile=acme())
    assert fake.calls[0] == ("香港2024年营运利润", 7, filters_for(intent), Sensitivity.CONFIDENTIAL)
    assert fake.calls[0][2] == RetrievalFilters(entities=("ACME_HK",), periods=("FY2024",))
    assert fake.calls[1][3] is Sensitivity.RESTRICTED


def test_a_hit_above_clearance_zeroes_the_query_and_fails_the_report() -> None:
    leaky = {**ANSWERS, "special dividend": [SECRET], "香港2024年营运利润": [A, SECRET]}
    report = run_retrieval_eval(FakeRetriever(leaky), QUERIES, profile=acme())
    by_id = {r.query.id: r for r in report.results}
    assert (by_id["l3"].recall, by_id["l3"].leaked) == (0.0, 1)
    assert (by_id["l1"].recall, by_id["l1"].ndcg, by_id["l1"].leaked) == (0.0, 0.0, 1)
    assert report.leaks == 2 and not report.passed


def test_a_perfect_retriever_passes_and_the_report_serialises() -> None:
    perfect = {
        **ANSWERS,
        "香港2024年营运利润": [A, NOISE],
        "agency growth": [B, A],
        "Macau outlook": [Snippet("c#1", "memos/c.md", "section=1,para=1", "t")],
    }
    report = run_retrieval_eval(FakeRetriever(perfect), QUERIES, profile=acme())
    assert report.passed
    assert (report.overall.recall, report.overall.mrr) == (1.0, 1.0)
    data = json.loads(report.to_json())
    assert data["passed"] is True and data["leaks"] == 0
    assert data["categories"]["lexical"] == {
        "queries": 3,
        "recall": 1.0,
        "mrr": 1.0,
        "ndcg": 1.0,
        "threshold": 0.9,
        "passed": True,
    }
    first = data["queries"][0]
    assert [h["relevant"] for h in first["hits"]] == [True, False]
    assert first["missed"] == []
    assert "text" not in first["hits"][0]
    table = render_report(report)
    assert table.row_count == len(report.categories) + 1


def test_no_queries_or_a_bad_k_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no queries"):
        run_retrieval_eval(FakeRetriever({}), [], profile=acme())
    with pytest.raises(UsageError, match="k must be"):
        run_retrieval_eval(FakeRetriever({}), QUERIES, k=0, profile=acme())
