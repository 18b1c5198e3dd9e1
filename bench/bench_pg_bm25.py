"""PostgreSQL as the source of truth: a followed tantivy index vs BM25 computed in SQL.

Two ways to rank chunks stored in PostgreSQL by BM25, on the synthetic mixed Chinese/English
corpus of ``bench_retrieval.py`` (same vocabulary, chunks, tokenizer and queries):

* **followed index** (what ragspine does): chunks, documents and one ``changes`` row per
  document are bulk-loaded (COPY) into a fresh schema; an ``IndexFollower`` then builds its
  tantivy index from zero — the catch-up time of a new replica — and answers top-10 searches.
* **SQL BM25**: an inverted-index table ``postings (term, chunk, tf)`` with a b-tree on
  ``term``, per-chunk lengths and levels, and per-term document frequencies, filled from the
  same tokens; a query sums the BM25 terms (k1 = 1.2, b = 0.75, tantivy's idf) for the
  query's terms in one ``GROUP BY … ORDER BY score LIMIT 10``.

Every query runs at the default clearance (CONFIDENTIAL: RESTRICTED chunks excluded in both)
and without entity/period filters, so both engines answer the same question; the mean top-10
overlap checks they rank alike (tantivy quantizes chunk lengths, so near ties may differ).

Needs the PostgreSQL server of ``RAGSPINE_DATABASE_URL`` (default: the local ``test``
database); the schema it creates is dropped afterwards. Timings are wall clock on a shared
machine: compare medians.

    .venv/bin/python bench/bench_pg_bm25.py [--quick] [--size N] [--iterations N] [--json]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_retrieval import TOP_K, QueryCase, corpus, queries
from bench.stats import summarize
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.tokenizer import TokenizerMode, tokenize
from ragspine.storage.chunks import Chunk

NAME = "pg_bm25"
DEFAULT_SIZE = 100_000
QUICK_SIZE = 2_000
DEFAULT_ITERATIONS = 200
QUICK_ITERATIONS = 20
WARMUP = 5
DATABASE_URL_VARIABLE = "RAGSPINE_DATABASE_URL"
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"
K1, B = 1.2, 0.75
# Targets on the reference 2-core machine: a replica from zero at 100k chunks within 5 minutes,
# and a followed search as fast as the embedded index's (bench_retrieval: p50 ≤ 5 ms at 100k).
CATCH_UP_TARGET_S = 300.0
FOLLOWED_P50_TARGET_MS = 5.0

_SQL_TABLES = (
    "CREATE TABLE postings (term text NOT NULL, chunk integer NOT NULL, tf integer NOT NULL)",
    "CREATE TABLE chunk_meta (chunk integer PRIMARY KEY, chunk_id text NOT NULL, "
    "len integer NOT NULL, rank smallint NOT NULL)",
    "CREATE TABLE term_df (term text PRIMARY KEY, df integer NOT NULL)",
)
_SQL_INDEXES = (
    "CREATE INDEX postings_term ON postings (term) INCLUDE (chunk, tf)",
    "INSERT INTO term_df SELECT term, count(*) FROM postings GROUP BY term",
    "ANALYZE postings",
    "ANALYZE chunk_meta",
    "ANALYZE term_df",
)
_SQL_QUERY = """
WITH q AS (
    SELECT term, ln(1 + (%(n)s - df + 0.5) / (df + 0.5)) AS idf
    FROM term_df WHERE term = ANY(%(terms)s)
)
SELECT m.chunk_id,
       sum(q.idf * p.tf * (%(k1)s + 1)
           / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * m.len / %(avgdl)s))) AS score
FROM q JOIN postings p ON p.term = q.term JOIN chunk_meta m ON m.chunk = p.chunk
WHERE m.rank <= %(clearance)s
GROUP BY m.chunk_id
ORDER BY score DESC, m.chunk_id
LIMIT %(k)s
"""


@contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A fresh schema upgraded to the latest step, dropped afterwards."""
    import psycopg
    from psycopg import sql

    from ragspine.storage.postgres import PostgresDatabase, upgrade

    name = f"bench_{uuid.uuid4().hex[:12]}"
    db = PostgresDatabase(url, schema=name)
    try:
        upgrade(db)
    finally:
        db.close()
    try:
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def _copy(conn: Any, table: str, columns: str, rows: Sequence[Sequence[object]]) -> None:
    with conn.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def load_chunks(conn: Any, size: int) -> tuple[list[Chunk], float]:
    """COPY ``size`` chunks, their documents and one change per document; (chunks, seconds)."""
    chunks = [c for batch in corpus(size) for c in batch.chunks]
    started = time.perf_counter()
    docs = list(dict.fromkeys(c.doc_id for c in chunks))
    _copy(
        conn,
        "documents",
        "doc_id, source_path, content_hash, metadata_hash, size_bytes, kind, sensitivity, "
        "extractor_version, mapping_version, ingested_at, n_facts, n_blocks, n_review",
        [(d, d, f"{d:0<16}", "m", 1, "md", "INTERNAL", "x", "1", "", 0, 0, 0) for d in docs],
    )
    _copy(
        conn,
        "chunks",
        "chunk_id, doc_id, locator, title, text, entities, periods, language, sensitivity, version",
        [
            (
                c.chunk_id,
                c.doc_id,
                c.locator,
                c.title,
                c.text,
                list(c.entities),
                list(c.periods),
                c.language,
                c.sensitivity,
                f"{c.doc_id:0<16}",
            )
            for c in chunks
        ],
    )
    _copy(conn, "changes", "doc_id, kind", [(d, "upsert") for d in docs])
    return chunks, time.perf_counter() - started


def build_sql_index(conn: Any, chunks: Sequence[Chunk]) -> dict[str, float]:
    """Fill the inverted-index tables from the same tokens tantivy indexes."""
    clock = time.perf_counter
    started = clock()
    tokens = [tokenize(c.indexed_text, TokenizerMode.BIGRAM) for c in chunks]
    tokenized = clock()
    for statement in _SQL_TABLES:
        conn.execute(statement)
    postings = io.StringIO()
    for number, terms in enumerate(tokens):
        for term, tf in Counter(terms).items():
            postings.write(f"{_escape(term)}\t{number}\t{tf}\n")
    with conn.cursor() as cur, cur.copy("COPY postings (term, chunk, tf) FROM STDIN") as copy:
        copy.write(postings.getvalue())
    _copy(
        conn,
        "chunk_meta",
        "chunk, chunk_id, len, rank",
        [
            (n, c.chunk_id, len(t), Sensitivity.parse(c.sensitivity).rank)
            for n, (c, t) in enumerate(zip(chunks, tokens, strict=True))
        ],
    )
    copied = clock()
    for statement in _SQL_INDEXES:
        conn.execute(statement)
    rows = conn.execute("SELECT count(*) FROM postings").fetchone()
    return {
        "tokenize_s": tokenized - started,
        "copy_s": copied - tokenized,
        "index_s": clock() - copied,
        "build_s": clock() - started,
        "postings": float(rows[0]),
    }


def _escape(term: str) -> str:
    return term.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _sql_search(conn: Any, stats: dict[str, float], case: QueryCase) -> list[str]:
    terms = list(dict.fromkeys(tokenize(case.text, TokenizerMode.BIGRAM)))
    params = {
        **stats,
        "terms": terms,
        "k1": K1,
        "b": B,
        "clearance": DEFAULT_CLEARANCE.rank,
        "k": TOP_K,
    }
    return [str(row[0]) for row in conn.execute(_SQL_QUERY, params).fetchall()]


def _time(
    search: Callable[[QueryCase], list[str]], cases: Sequence[QueryCase], warmup: int
) -> list[int]:
    for case in cases[:warmup]:
        search(case)
    samples = []
    for case in cases:
        start = time.perf_counter_ns()
        search(case)
        samples.append(time.perf_counter_ns() - start)
    return samples


def _overlap(ours: list[list[str]], theirs: list[list[str]]) -> float:
    shares = [len(set(a) & set(b)) / len(a) for a, b in zip(ours, theirs, strict=True) if a]
    return sum(shares) / len(shares) if shares else 0.0


def demo_catch_up(url: str) -> dict[str, float]:
    """The demo corpus ingested into a fresh schema, then a follower's build from zero."""
    from ragspine.demo.corpus import generate_corpus
    from ragspine.ingestion.pipeline import ingest
    from ragspine.profile.loader import load_profile
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with (
        fresh_schema(url) as schema,
        PostgresWorkspaceStore(url, schema=schema) as store,
        tempfile.TemporaryDirectory(prefix="ragspine-bench-") as tmp,
    ):
        generate_corpus(Path(tmp) / "corpus")
        ingest([Path(tmp) / "corpus"], store, load_profile())
        chunks = len(store.list_chunks())
        with IndexFollower(store, Path(tmp) / "index") as follower:
            started = time.perf_counter()
            documents = follower.catch_up()
            seconds = time.perf_counter() - started
    return {"documents": float(documents), "chunks": float(chunks), "catch_up_s": seconds}


def run(
    *,
    quick: bool = False,
    iterations: int | None = None,
    warmup: int | None = None,
    size: int | None = None,
) -> dict[str, Any]:
    import psycopg

    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url = os.environ.get(DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL)
    n = iterations or (QUICK_ITERATIONS if quick else DEFAULT_ITERATIONS)
    size = size or (QUICK_SIZE if quick else DEFAULT_SIZE)
    w = WARMUP if warmup is None else warmup
    # Plain word queries: the filters of bench_retrieval's cases are left out (see docstring).
    cases = [QueryCase(c.text, type(c.filters)()) for c in queries(n)]
    with fresh_schema(url) as schema, psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}")
        chunks, load_s = load_chunks(conn, size)
        with (
            PostgresWorkspaceStore(url, schema=schema) as store,
            tempfile.TemporaryDirectory(prefix="ragspine-bench-") as tmp,
            IndexFollower(store, tmp) as follower,
        ):
            started = time.perf_counter()
            documents = follower.catch_up()
            catch_up_s = time.perf_counter() - started

            def followed(case: QueryCase) -> list[str]:
                return [cid for cid, _ in follower.search(case.text, top_k=TOP_K)]

            followed_ns = _time(followed, cases, w)
            followed_top = [followed(c) for c in cases]
        sql_build = build_sql_index(conn, chunks)
        row = conn.execute("SELECT count(*), avg(len) FROM chunk_meta").fetchone()
        search = partial(_sql_search, conn, {"n": float(row[0]), "avgdl": float(row[1])})
        sql_ns = _time(search, cases, w)
        overlap = _overlap(followed_top, [search(c) for c in cases])
    # The demo corpus takes half a minute to ingest: full runs only.
    demo = None if quick else demo_catch_up(url)
    followed_latency = summarize(followed_ns, "ms")
    sql_latency = summarize(sql_ns, "ms")
    label = f"{size // 1000}k" if size % 1000 == 0 else str(size)
    catch_up_status = "PASS" if catch_up_s <= CATCH_UP_TARGET_S else "MISS"
    p50 = followed_latency["median_ms"]
    return {
        "benchmark": NAME,
        "description": "followed tantivy index vs BM25 in SQL over PostgreSQL",
        "params": {"size": size, "iterations": n, "top_k": TOP_K, "documents": documents},
        "load_s": load_s,
        "catch_up_s": catch_up_s,
        "followed_latency": followed_latency,
        "sql_build": sql_build,
        "sql_latency": sql_latency,
        "top10_overlap": overlap,
        "demo": demo,
        "rows": [
            *(
                [_row("follower catch-up from zero, demo corpus", demo["catch_up_s"], "s")]
                if demo
                else []
            ),
            _row(
                f"follower catch-up from zero {label}",
                catch_up_s,
                "s",
                f"≤ {CATCH_UP_TARGET_S:g} s",
                catch_up_status,
            ),
            _row(
                f"followed search p50 {label}",
                p50,
                "ms",
                f"≤ {FOLLOWED_P50_TARGET_MS:g} ms",
                "PASS" if p50 <= FOLLOWED_P50_TARGET_MS else "MISS",
            ),
            _row(f"followed search p95 {label}", followed_latency["p95_ms"], "ms"),
            _row(f"SQL BM25 build {label}", sql_build["build_s"], "s"),
            _row(f"SQL BM25 p50 {label}", sql_latency["median_ms"], "ms"),
            _row(f"SQL BM25 p95 {label}", sql_latency["p95_ms"], "ms"),
            _row(f"top-10 overlap SQL vs tantivy {label}", max(overlap, 1e-9), "share"),
        ],
    }


def _row(
    metric: str, value: float, unit: str, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": unit, "target": target, "status": status}


if __name__ == "__main__":
    from bench.run_all import standalone

    size_parser = argparse.ArgumentParser(add_help=False)
    size_parser.add_argument("--size", type=int)
    known, rest = size_parser.parse_known_args()
    sys.exit(standalone(partial(run, size=known.size), rest, description=__doc__))
