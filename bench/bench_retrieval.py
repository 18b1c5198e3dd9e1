"""Lexical retrieval at 10k, 100k and 1M chunks: build time, query latency and peak memory.

A deterministic synthetic corpus of mixed Chinese/English chunks stands in for real reports:
a vocabulary of 3,000 Chinese words (1–4 characters from 2,500 Han characters, plus the
full-width punctuation real text carries, so NFKC normalisation is exercised) and 2,000 English
pseudo-words with a few figures (``fy2024``, ``8.2``), drawn with a Zipf-like law (weight
1/rank). 60% of the chunks are Chinese with about 15% English words mixed in, 40% English;
lengths are 20–120 words. Each chunk names 0–2 of 5 entities and 0–1 of 6 fiscal years, and
carries a sensitivity (PUBLIC 20%, INTERNAL 60%, CONFIDENTIAL 15%, RESTRICTED 5%); 20 chunks
make a document.

Queries are 2–4 words from the same vocabulary (half Chinese, half English). A third of them
name an entity, a third a fiscal year, a sixth a language; every one runs with the default
clearance (CONFIDENTIAL), so the sensitivity filter is always part of the query.

For each size, ``LexicalIndex`` (tantivy, on disk in a temporary directory) is built in a
fresh process. The chunks are generated first and pickled to a file, a batch at a time (so
tantivy's writer threads cannot index while the slow generator runs off the clock); the build
then reads them back a document at a time and adds them as the product syncs an index
(``add_in_batches``: batches of 5,000, the next tokenized on a worker thread), one commit at
the end. Build = wall time from the first read to the end of the commit, with its CPU time
(every thread's) beside it. Then ``warmup`` untimed and ``iterations`` timed top-10 searches,
each with ``time.perf_counter_ns``. The process's peak RSS (``VmHWM``) is read at the end, so
sizes do not contaminate each other. Targets (reference 2-core machine, issue 31): at 1M build
≤ 30 s including tokenization, p50 ≤ 5 ms, peak RSS ≤ 1 GB; at 100k p50 ≤ 5 ms.

Reference points on the same tokens, filters and queries, at 100k chunks at most (rank-bm25
takes seconds per query beyond that and bm25s needs gigabytes to build at 1M): ``bm25s``
(sparse matrices, k1 = 1.2, b = 0.75, filters as a weight mask) and ``rank-bm25``
(``BM25Okapi``, a Python scan; filters as a mask on its scores). The mean top-10 overlap
between tantivy and bm25s checks that both rank alike. Both need the tokenized corpus as Python
lists, which their peak RSS includes (most of it at 100k). They are skipped, with a note in the
result, when not installed. The tokenizer's cost per chunk in each mode (``tokenize``, one
chunk at a time) and of the batched ``token_strings`` in the index's mode is measured on 10,000
chunks.

    .venv/bin/python bench/bench_retrieval.py [--quick] [--sizes 10000,100000,1000000]
        [--iterations N] [--warmup N] [--json]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import pickle
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.lexical_batches import add_in_batches
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.tokenizer import TokenizerMode, tokenize
from ragspine.retrieval.tokenizer_batch import MIN_BATCH, token_strings
from ragspine.storage.chunks import Chunk

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import summarize

NAME = "retrieval"
DEFAULT_SIZES = (10_000, 100_000, 1_000_000)
QUICK_SIZES = (10_000,)
REFERENCE_MAX_SIZE = 100_000
DEFAULT_ITERATIONS = 300
DEFAULT_WARMUP = 30
QUICK_ITERATIONS = 200
QUICK_WARMUP = 10
TOP_K = 10
BATCH = 10_000
CHUNKS_PER_DOC = 20
TOKENIZER_SAMPLE = 10_000
REFERENCES = ("bm25s", "rank_bm25")  # import names; skipped, with a note, when not installed
SEED = 20240101

TARGET_BUILD_1M_S = 30.0
TARGET_P50_1M_MS = 5.0
TARGET_RSS_1M_MB = 1024.0
TARGET_P50_100K_MS = 5.0

ENTITIES = ("HK", "MO", "CN", "SG", "GROUP")
PERIODS = ("FY2019", "FY2020", "FY2021", "FY2022", "FY2023", "FY2024")
LANGUAGES = ("zh", "en")
SENSITIVITY_SHARES = {
    Sensitivity.PUBLIC: 0.20,
    Sensitivity.INTERNAL: 0.60,
    Sensitivity.CONFIDENTIAL: 0.15,
    Sensitivity.RESTRICTED: 0.05,
}
_LEVELS = tuple(SENSITIVITY_SHARES)
ZH_WORDS = 3_000
EN_WORDS = 2_000
HAN_CHARACTERS = 2_500
ZH_SHARE = 0.60
EN_IN_ZH = 0.15
MIN_WORDS, MAX_WORDS = 20, 120

# --------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Vocabulary:
    zh: np.ndarray  # words as object arrays, so fancy indexing yields Python strings
    en: np.ndarray
    zh_cdf: np.ndarray
    en_cdf: np.ndarray

    def draw(self, rng: np.random.Generator, english: bool, n: int) -> np.ndarray:
        words, cdf = (self.en, self.en_cdf) if english else (self.zh, self.zh_cdf)
        return words[np.searchsorted(cdf, rng.random(n))]


def vocabulary(seed: int = SEED) -> Vocabulary:
    """Chinese words (with full-width punctuation among them) and English pseudo-words."""
    rng = np.random.default_rng(seed)
    han = [chr(0x4E00 + 8 * i) for i in range(HAN_CHARACTERS)]
    lengths = rng.choice([1, 2, 3, 4], size=ZH_WORDS, p=[0.15, 0.6, 0.15, 0.1])
    zh = ["".join(rng.choice(han, size=n)) for n in lengths]
    zh[2], zh[5] = "，", "。"  # frequent, and full-width: NFKC must run as on real text
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
    en = ["".join(rng.choice(syllables, size=rng.integers(1, 4))) for _ in range(EN_WORDS)]
    en[10:20] = [*(f"fy{year}" for year in range(2019, 2025)), "8.2", "12.5", "3.1", "vonb"]
    # English words carry their own spaces; Chinese words are written back to back.
    return Vocabulary(
        zh=np.array(zh, dtype=object),
        en=np.array([f" {word} " for word in dict.fromkeys(en)], dtype=object),
        zh_cdf=_zipf_cdf(ZH_WORDS),
        en_cdf=_zipf_cdf(len(dict.fromkeys(en))),
    )


def _zipf_cdf(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1)
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]  # type: ignore[no-any-return]


@dataclass
class Batch:
    """Chunks plus their metadata as arrays (what the reference engines filter on)."""

    chunks: list[Chunk]
    entity_bits: np.ndarray  # bit i set: names ENTITIES[i]; 0: untagged
    period: np.ndarray  # index into PERIODS, -1: untagged
    language: np.ndarray  # index into LANGUAGES
    rank: np.ndarray  # sensitivity rank


def corpus(size: int, seed: int = SEED, batch: int = BATCH) -> Iterator[Batch]:
    """``size`` chunks in batches, the same for every engine and every run."""
    vocab = vocabulary(seed)
    rng = np.random.default_rng(seed + 1)
    for start in range(0, size, batch):
        yield _batch(vocab, rng, start, min(batch, size - start))


def _batch(vocab: Vocabulary, rng: np.random.Generator, start: int, n: int) -> Batch:
    english = rng.random(n) >= ZH_SHARE
    lengths = rng.integers(MIN_WORDS, MAX_WORDS + 1, size=n)
    entity_bits = rng.integers(0, 1 << len(ENTITIES), size=n) * (rng.random(n) < 0.7)
    entity_bits &= _two_bits_at_most(entity_bits)
    period = np.where(rng.random(n) < 0.6, rng.integers(0, len(PERIODS), size=n), -1)
    rank = np.searchsorted(np.cumsum(list(SENSITIVITY_SHARES.values())), rng.random(n))
    rank = np.minimum(rank, len(_LEVELS) - 1)
    chunks = []
    for i in range(n):
        number = start + i
        doc_id = f"doc{number // CHUNKS_PER_DOC}"
        chunks.append(
            Chunk(
                chunk_id=f"{doc_id}#{number % CHUNKS_PER_DOC + 1}",
                doc_id=doc_id,
                locator=f"page={number % CHUNKS_PER_DOC + 1}",
                title="",
                text=_text(vocab, rng, bool(english[i]), int(lengths[i])),
                entities=tuple(e for b, e in enumerate(ENTITIES) if entity_bits[i] >> b & 1),
                periods=(PERIODS[period[i]],) if period[i] >= 0 else (),
                language=LANGUAGES[int(english[i])],
                sensitivity=_LEVELS[rank[i]].value,
                version="1",
            )
        )
    return Batch(chunks, entity_bits, period, english.astype(np.int8), rank)


def _two_bits_at_most(bits: np.ndarray) -> np.ndarray:
    """A mask keeping the two lowest set bits of each value."""
    lowest = bits & -bits
    rest = bits & ~lowest
    return lowest | (rest & -rest)  # type: ignore[no-any-return]


def _text(vocab: Vocabulary, rng: np.random.Generator, english: bool, words: int) -> str:
    if english:
        return "".join(vocab.draw(rng, True, words)).strip()
    mixed = rng.random(words) < EN_IN_ZH
    out = vocab.draw(rng, False, words)
    out[mixed] = vocab.draw(rng, True, int(mixed.sum()))
    return "".join(out).strip()


@dataclass(frozen=True)
class QueryCase:
    text: str
    filters: RetrievalFilters


def queries(n: int, seed: int = SEED) -> list[QueryCase]:
    """Half Chinese, half English; a third with an entity, a third a year, a sixth a language."""
    vocab = vocabulary(seed)
    rng = np.random.default_rng(seed + 2)
    cases = []
    for i in range(n):
        english = i % 2 == 1
        text = "".join(vocab.draw(rng, english, int(rng.integers(2, 5)))).strip()
        kind = i % 6
        filters = RetrievalFilters(
            entities=(ENTITIES[rng.integers(len(ENTITIES))],) if kind in (0, 1) else (),
            periods=(PERIODS[rng.integers(len(PERIODS))],) if kind in (2, 3) else (),
            languages=(LANGUAGES[int(english)],) if kind == 4 else (),
        )
        cases.append(QueryCase(text, filters))
    return cases


# --------------------------------------------------------------------------- measurement


def peak_rss_mb() -> float:
    """This process's peak resident set size (VmHWM; ru_maxrss where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _time_queries(
    search: Callable[[QueryCase], object], cases: Sequence[QueryCase], warmup: int
) -> list[int]:
    for case in cases[:warmup]:
        search(case)
    clock = time.perf_counter_ns
    samples = []
    gc.collect()
    for case in cases:
        start = clock()
        search(case)
        samples.append(clock() - start)
    return samples


def measure_lexical(size: int, iterations: int, warmup: int) -> dict[str, Any]:
    """Build a LexicalIndex of ``size`` chunks on disk from stored passages, then time top-10
    searches.

    The chunks are generated first and written to a file, a batch at a time (generation is
    slow Python; timing the build around it would let tantivy's writer threads index while the
    generator runs, off the clock). The build then reads them back and adds them the way the
    product syncs an index (``add_in_batches``: tokenized a batch ahead on a worker thread), and
    ends at the commit. Reading the passages is part of the build, as reading them from the
    store is for the product; the ``read`` row times a read alone.
    """
    cases = queries(iterations)
    clock = time.perf_counter
    with tempfile.TemporaryDirectory(prefix="ragspine-bench-") as tmp:
        passages = Path(tmp) / "passages.pickle"
        generate_s = _write_passages(size, passages)
        mark = clock()
        for _ in _read_documents(passages):
            pass
        read_s = clock() - mark
        index = LexicalIndex.open(Path(tmp) / "lexical")
        cpu, mark = _cpu_s(), clock()
        add_in_batches(index, _read_documents(passages))
        index.commit()
        build_s, build_cpu_s = clock() - mark, _cpu_s() - cpu
        chunks = len(index)
        passages.unlink()
        search = partial(_search_lexical, index)
        samples = _time_queries(search, cases, warmup)
        top = {i: [cid for cid, _ in search(case)] for i, case in enumerate(cases)}
        index.close()
        disk_mb = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file()) / 2**20
    return {
        "engine": "tantivy",
        "size": size,
        "chunks": chunks,
        "generate_s": generate_s,
        "read_s": read_s,
        "build_s": build_s,
        "build_cpu_s": build_cpu_s,
        "disk_mb": disk_mb,
        "latency": summarize(samples, "ms"),
        "peak_rss_mb": peak_rss_mb(),
        "top": top,
    }


def _write_passages(size: int, path: Path) -> float:
    """The corpus's chunks pickled to ``path`` a batch at a time; the seconds it took."""
    start = time.perf_counter()
    with path.open("wb") as out:
        for batch in corpus(size):
            pickle.dump(batch.chunks, out, protocol=pickle.HIGHEST_PROTOCOL)
    return time.perf_counter() - start


def _read_documents(path: Path) -> Iterator[list[Chunk]]:
    """The chunks of ``_write_passages``'s file, a document (``CHUNKS_PER_DOC``) at a time."""
    with path.open("rb") as source:
        while True:
            try:
                chunks: list[Chunk] = pickle.load(source)
            except EOFError:
                return
            for start in range(0, len(chunks), CHUNKS_PER_DOC):
                yield chunks[start : start + CHUNKS_PER_DOC]


def _cpu_s() -> float:
    """CPU seconds of this process so far, every thread's (tantivy's writers included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _search_lexical(index: LexicalIndex, case: QueryCase) -> list[tuple[str, float]]:
    return index.search(case.text, top_k=TOP_K, filters=case.filters, clearance=DEFAULT_CLEARANCE)


@dataclass
class _Loaded:
    """A whole corpus in memory, tokenized, with metadata arrays (reference engines only)."""

    chunk_ids: list[str]
    tokens: list[list[str]]
    entity_bits: np.ndarray
    period: np.ndarray
    language: np.ndarray
    rank: np.ndarray
    generate_s: float
    tokenize_s: float


def _load(size: int) -> _Loaded:
    clock = time.perf_counter
    generate_s = tokenize_s = 0.0
    ids: list[str] = []
    tokens: list[list[str]] = []
    columns: list[tuple[np.ndarray, ...]] = []
    mark = clock()
    for batch in corpus(size):
        tokenized = clock()
        generate_s += tokenized - mark
        tokens += [tokenize(c.indexed_text) for c in batch.chunks]
        mark = clock()
        tokenize_s += mark - tokenized
        ids += [c.chunk_id for c in batch.chunks]
        columns.append((batch.entity_bits, batch.period, batch.language, batch.rank))
    entity_bits, period, language, rank = (np.concatenate(c) for c in zip(*columns, strict=True))
    return _Loaded(ids, tokens, entity_bits, period, language, rank, generate_s, tokenize_s)


def _mask(corpus: _Loaded, filters: RetrievalFilters) -> np.ndarray:
    """The same rules as LexicalIndex: clearance, entity/period "any or untagged", language."""
    allowed = corpus.rank <= DEFAULT_CLEARANCE.rank
    if filters.entities:
        wanted = sum(1 << ENTITIES.index(e) for e in filters.entities)
        allowed &= ((corpus.entity_bits & wanted) != 0) | (corpus.entity_bits == 0)
    if filters.periods:
        wanted_periods = [PERIODS.index(p) for p in filters.periods]
        allowed &= np.isin(corpus.period, wanted_periods) | (corpus.period < 0)
    if filters.languages:
        allowed &= np.isin(corpus.language, [LANGUAGES.index(x) for x in filters.languages])
    return allowed


def measure_bm25s(size: int, iterations: int, warmup: int) -> dict[str, Any]:
    import bm25s  # type: ignore[import-untyped]

    cases = queries(iterations)
    loaded = _load(size)
    start = time.perf_counter()
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(loaded.tokens, show_progress=False)
    index_s = time.perf_counter() - start
    vocab = retriever.vocab_dict

    def search(case: QueryCase) -> list[str]:
        terms = [t for t in dict.fromkeys(tokenize(case.text)) if t in vocab]
        if not terms:
            return []
        mask = _mask(loaded, case.filters).astype(np.float32)
        docs, scores = retriever.retrieve([terms], k=TOP_K, show_progress=False, weight_mask=mask)
        return [loaded.chunk_ids[d] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    samples = _time_queries(search, cases, warmup)
    top = {i: search(case) for i, case in enumerate(cases)}
    return _reference_result("bm25s", size, loaded, index_s, samples, top)


def measure_rank_bm25(size: int, iterations: int, warmup: int) -> dict[str, Any]:
    from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

    cases = queries(iterations)
    loaded = _load(size)
    start = time.perf_counter()
    okapi = BM25Okapi(loaded.tokens, k1=1.2, b=0.75)
    index_s = time.perf_counter() - start

    def search(case: QueryCase) -> list[str]:
        terms = list(dict.fromkeys(tokenize(case.text)))
        scores = np.where(_mask(loaded, case.filters), okapi.get_scores(terms), -np.inf)
        best = np.argpartition(-scores, TOP_K)[:TOP_K]
        return [loaded.chunk_ids[d] for d in best[np.argsort(-scores[best])]]

    samples = _time_queries(search, cases, warmup)
    return _reference_result("rank-bm25", size, loaded, index_s, samples, {})


def _reference_result(
    engine: str,
    size: int,
    loaded: _Loaded,
    index_s: float,
    samples: list[int],
    top: dict[int, list[str]],
) -> dict[str, Any]:
    return {
        "engine": engine,
        "size": size,
        "chunks": len(loaded.chunk_ids),
        "generate_s": loaded.generate_s,
        "tokenize_s": loaded.tokenize_s,
        "index_s": index_s,
        "build_s": loaded.tokenize_s + index_s,
        "latency": summarize(samples, "ms"),
        "peak_rss_mb": peak_rss_mb(),
        "top": top,
    }


def tokenizer_cost_us(n: int = TOKENIZER_SAMPLE) -> dict[str, float]:
    """Mean µs per chunk of ``tokenize`` in each mode, and of ``token_strings`` (one batch) in
    the bigram mode, over the first ``n`` corpus chunks."""
    texts = [c.indexed_text for batch in corpus(n) for c in batch.chunks]
    tokenize("预热", TokenizerMode.JIEBA)  # rjieba loads its dictionary on first use
    cost = {}
    for mode in TokenizerMode:
        start = time.perf_counter()
        for text in texts:
            tokenize(text, mode)
        cost[mode.value] = (time.perf_counter() - start) / len(texts) * 1e6
    token_strings(texts[:MIN_BATCH], TokenizerMode.BIGRAM)  # polars starts on its first call
    start = time.perf_counter()
    token_strings(texts, TokenizerMode.BIGRAM)
    cost[f"{TokenizerMode.BIGRAM.value} batched"] = (time.perf_counter() - start) / len(texts) * 1e6
    return cost


def _in_fresh_process(measure: Callable[..., dict[str, Any]], *args: int) -> dict[str, Any]:
    """Run ``measure`` in a new interpreter, so its peak RSS is its own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


# --------------------------------------------------------------------------- entry points


def run(
    *,
    quick: bool = False,
    iterations: int | None = None,
    warmup: int | None = None,
    sizes: Sequence[int] | None = None,
) -> dict[str, Any]:
    n = iterations or (QUICK_ITERATIONS if quick else DEFAULT_ITERATIONS)
    w = warmup if warmup is not None else (QUICK_WARMUP if quick else DEFAULT_WARMUP)
    if n < 2:
        raise ValueError("iterations must be at least 2 to compute percentiles")
    sizes = tuple(sizes or (QUICK_SIZES if quick else DEFAULT_SIZES))
    missing = [name for name in REFERENCES if importlib.util.find_spec(name) is None]
    results: list[dict[str, Any]] = []
    for size in sizes:
        lexical = _in_fresh_process(measure_lexical, size, n, w)
        results.append(lexical)
        if size > REFERENCE_MAX_SIZE or missing:
            continue
        reference = _in_fresh_process(measure_bm25s, size, n, w)
        reference["overlap_with_tantivy"] = _overlap(lexical["top"], reference["top"])
        results.append(reference)
        results.append(_in_fresh_process(measure_rank_bm25, size, n, w))
    tokenizer = tokenizer_cost_us()
    for result in results:
        del result["top"]

    rows = [row for result in results for row in _rows(result)]
    rows += [_row(f"tokenize {mode} per chunk", us, "µs") for mode, us in tokenizer.items()]
    return {
        "benchmark": NAME,
        "description": "LexicalIndex (tantivy BM25) build, top-10 latency and peak RSS",
        "params": {
            "sizes": list(sizes),
            "iterations": n,
            "warmup": w,
            "top_k": TOP_K,
            "batch": BATCH,
            "tokenizer_mode": TokenizerMode.BIGRAM.value,
            "clearance": DEFAULT_CLEARANCE.value,
            "seed": SEED,
            "cpu_usable": len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else None,
        },
        "results": results,
        "references_skipped": (
            f"{', '.join(missing)} not installed (pip install -e '.[dev]')" if missing else None
        ),
        "tokenizer_us_per_chunk": tokenizer,
        "rows": rows,
    }


def _overlap(ours: dict[int, list[str]], theirs: dict[int, list[str]]) -> float:
    """Mean share of our top-10 that the reference also returns (queries with hits only)."""
    shares = [len(set(hits) & set(theirs[i])) / len(hits) for i, hits in ours.items() if hits]
    return statistics.fmean(shares) if shares else 0.0


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    size, engine = result["size"], result["engine"]
    label = f"{engine} {_size_label(size)}"
    latency = result["latency"]
    p50_target = {1_000_000: TARGET_P50_1M_MS, 100_000: TARGET_P50_100K_MS}.get(size)
    ours = engine == "tantivy"
    rows = [
        _row(
            f"{label} build ({'read, ' if ours else ''}tokenize, index)",
            result["build_s"],
            "s",
            *(
                _target(result["build_s"], TARGET_BUILD_1M_S, "s")
                if ours and size == 1_000_000
                else (None, None)
            ),
        ),
        *(
            [
                _row(f"{label} build CPU (all threads)", result["build_cpu_s"], "s"),
                _row(f"{label} read passages alone", result["read_s"], "s"),
            ]
            if ours
            else [
                _row(f"{label} tokenize", result["tokenize_s"], "s"),
                _row(f"{label} index", result["index_s"], "s"),
            ]
        ),
        _row(
            f"{label} query p50",
            latency["median_ms"],
            "ms",
            *(
                _target(latency["median_ms"], p50_target, "ms")
                if ours and p50_target
                else (None, None)
            ),
        ),
        _row(f"{label} query p95", latency["p95_ms"], "ms"),
        _row(
            f"{label} peak RSS",
            result["peak_rss_mb"],
            "MB",
            *(
                _target(result["peak_rss_mb"], TARGET_RSS_1M_MB, "MB")
                if ours and size == 1_000_000
                else (None, None)
            ),
        ),
    ]
    if "overlap_with_tantivy" in result:
        rows.append(
            _row(f"{label} top-10 overlap with tantivy", 100 * result["overlap_with_tantivy"], "%")
        )
    return rows


def _target(value: float, limit: float, unit: str) -> tuple[str, str]:
    return f"≤ {limit:g} {unit}", "PASS" if value <= limit else "MISS"


def _size_label(size: int) -> str:
    if size >= 1_000_000 and size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    if size >= 1_000 and size % 1_000 == 0:
        return f"{size // 1_000}k"
    return str(size)


def _row(
    metric: str, value: float, unit: str, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": unit, "target": target, "status": status}


def _parse_sizes(raw: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part.replace("_", "")) for part in raw.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--sizes wants integers like 10000,100000: {raw!r}"
        ) from None
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"--sizes wants positive integers: {raw!r}")
    return sizes


if __name__ == "__main__":
    from bench.run_all import standalone

    sizes_parser = argparse.ArgumentParser(add_help=False)
    sizes_parser.add_argument("--sizes", type=_parse_sizes)
    known, rest = sizes_parser.parse_known_args()
    sys.exit(standalone(partial(run, sizes=known.sizes), rest, description=__doc__))
