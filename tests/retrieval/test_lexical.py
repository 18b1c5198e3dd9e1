"""LexicalIndex: BM25 parity with the formula, filters that prune before scoring, persistence."""

from __future__ import annotations

import json
import math
import random
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval import lexical, lexical_batches
from ragspine.retrieval.lexical import META_FILE, LexicalIndex, is_current
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.tokenizer import TokenizerMode, tokenize
from ragspine.storage.chunks import Chunk

K1, B = 1.2, 0.75


def chunk(
    chunk_id: str,
    text: str,
    *,
    doc: str | None = None,
    entities: tuple[str, ...] = (),
    periods: tuple[str, ...] = (),
    language: str = "en",
    sensitivity: str = "INTERNAL",
    version: str = "v1",
) -> Chunk:
    return Chunk(
        chunk_id=chunk_id,
        doc_id=doc or chunk_id.split("#")[0],
        locator="page=1",
        title="",
        text=text,
        entities=entities,
        periods=periods,
        language=language,
        sensitivity=sensitivity,
        version=version,
    )


def build(chunks: list[Chunk], path: Path | None = None) -> LexicalIndex:
    index = LexicalIndex.open(path)
    index.add(chunks)
    index.commit()
    return index


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [chunk_id for chunk_id, _ in hits]


# --------------------------------------------------------------------------- BM25 parity

# Every field is shorter than 40 tokens, where tantivy's one-byte field norm is exact.
PARITY = [
    chunk("d1#1", "premium growth in Hong Kong premium"),
    chunk("d2#1", "香港保费增长"),
    chunk("d3#1", "premium 保费 margin"),
    chunk("d4#1", "agency channel growth 8.2%"),
    chunk("d5#1", "香港 agency 保费收入"),
]


def brute_force_bm25(query: str, chunks: list[Chunk]) -> dict[str, float]:
    """Lucene/tantivy BM25 straight from the formula, over every chunk."""
    docs = {c.chunk_id: Counter(tokenize(c.indexed_text)) for c in chunks}
    lengths = {cid: sum(tf.values()) for cid, tf in docs.items()}
    n_docs, avgdl = len(docs), sum(lengths.values()) / len(docs)
    scores: dict[str, float] = {}
    for term in dict.fromkeys(tokenize(query)):
        df = sum(1 for tf in docs.values() if term in tf)
        idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        for cid, tf in docs.items():
            if term in tf:
                norm = K1 * (1 - B + B * lengths[cid] / avgdl)
                scores[cid] = scores.get(cid, 0.0) + idf * tf[term] * (K1 + 1) / (tf[term] + norm)
    return scores


def test_brute_force_formula_matches_a_hand_calculation() -> None:
    # d1: premium ×2 and growth ×1 in 6 tokens; N = 5, n = 2 for both, avgdl = 23 / 5.
    norm = K1 * (1 - B + B * 6 / 4.6)
    by_hand = math.log(2.4) * (2 * 2.2 / (2 + norm) + 2.2 / (1 + norm))
    assert by_hand == pytest.approx(1.88739, abs=1e-5)
    assert brute_force_bm25("premium growth", PARITY)["d1#1"] == pytest.approx(by_hand)


@pytest.mark.parametrize(
    "query", ["premium growth", "香港保费", "agency 8.2", "保费收入 margin", "Hong Kong 增长"]
)
def test_scores_match_brute_force_bm25(query: str) -> None:
    expected = brute_force_bm25(query, PARITY)
    hits = build(PARITY).search(query, top_k=10)
    assert ids(hits) == sorted(expected, key=lambda cid: -expected[cid])
    for chunk_id, score in hits:
        assert score == pytest.approx(expected[chunk_id], rel=1e-4)


# --------------------------------------------------------------------------- filters


def test_filters_prune_without_rescoring() -> None:
    chunks = [
        chunk("hk#1", "premium growth premium", entities=("HK",)),
        chunk("mo#1", "premium growth", entities=("MO",)),
        chunk("all#1", "premium margin"),
        chunk("mo#2", "growth margin", entities=("MO",)),
    ]
    index = build(chunks)
    unfiltered = dict(index.search("premium growth"))
    filtered = index.search("premium growth", filters=RetrievalFilters(entities=("HK",)))
    assert ids(filtered) == ["hk#1", "all#1"]
    for chunk_id, score in filtered:
        assert score == pytest.approx(unfiltered[chunk_id], rel=1e-6)


def test_filtering_happens_before_top_k() -> None:
    strong = [
        chunk(f"mo{i}#1", "premium premium growth", entities=("MO",), sensitivity="RESTRICTED")
        for i in range(20)
    ]
    weak = chunk("hk#1", "premium and a long tail of other words here", entities=("HK",))
    index = build([*strong, weak])
    assert weak.chunk_id not in ids(
        index.search("premium", top_k=5, clearance=Sensitivity.RESTRICTED)
    )
    by_entity = index.search(
        "premium",
        top_k=5,
        filters=RetrievalFilters(entities=("HK",)),
        clearance=Sensitivity.RESTRICTED,
    )
    assert ids(by_entity) == ["hk#1"]
    assert ids(index.search("premium", top_k=5)) == ["hk#1"]  # by clearance alone


def test_clearance_is_a_hard_limit() -> None:
    levels = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"]
    index = build([chunk(f"{lv.lower()}#1", "premium", sensitivity=lv) for lv in levels])
    assert set(ids(index.search("premium"))) == {"public#1", "internal#1", "confidential#1"}
    assert "restricted#1" in ids(index.search("premium", clearance=Sensitivity.RESTRICTED))
    assert ids(index.search("premium", clearance=Sensitivity.PUBLIC)) == ["public#1"]


def test_untagged_chunks_are_neutral_for_entities_and_periods() -> None:
    index = build(
        [
            chunk("hk#1", "premium", entities=("HK",), periods=("FY2024",)),
            chunk("mo#1", "premium", entities=("MO",), periods=("FY2023",)),
            chunk("both#1", "premium", entities=("HK", "MO"), periods=("FY2023", "FY2024")),
            chunk("none#1", "premium"),
        ]
    )

    def found(entities: tuple[str, ...] = (), periods: tuple[str, ...] = ()) -> set[str]:
        filters = RetrievalFilters(entities=entities, periods=periods)
        return set(ids(index.search("premium", filters=filters)))

    assert found(entities=("HK",)) == {"hk#1", "both#1", "none#1"}
    assert found(entities=("MO",)) == {"mo#1", "both#1", "none#1"}
    assert found(entities=("SG",)) == {"none#1"}
    assert found(entities=("HK", "MO")) == {"hk#1", "mo#1", "both#1", "none#1"}
    assert found(periods=("FY2023",)) == {"mo#1", "both#1", "none#1"}
    assert found(entities=("HK",), periods=("FY2023",)) == {"both#1", "none#1"}


def test_language_filter_is_exact() -> None:
    index = build(
        [
            chunk("zh#1", "香港保费 premium", language="zh"),
            chunk("en#1", "premium", language="en"),
            chunk("xx#1", "premium", language=""),
        ]
    )
    assert ids(index.search("premium", filters=RetrievalFilters(languages=("zh",)))) == ["zh#1"]
    both = RetrievalFilters(languages=("zh", "en"))
    assert set(ids(index.search("premium", filters=both))) == {"zh#1", "en#1"}


def test_topics_are_not_applied_yet() -> None:
    index = build([chunk("a#1", "premium"), chunk("b#1", "premium growth")])
    topics = RetrievalFilters(topics=("solvency",))
    assert index.search("premium", filters=topics) == index.search("premium")


def test_queries_without_tokens_find_nothing() -> None:
    index = build(PARITY)
    assert index.search("") == []
    assert index.search("，。！ -- ") == []
    assert index.search("premium", top_k=0) == []
    assert index.search("absent words") == []


# --------------------------------------------------------------------------- writes


def test_reingest_deletes_old_chunks_and_adds_new() -> None:
    index = build(
        [
            chunk("a#1", "old premium text", doc="a"),
            chunk("a#2", "old growth text", doc="a"),
            chunk("b#1", "premium elsewhere", doc="b"),
        ]
    )
    assert index.doc_versions() == {"a": "v1", "b": "v1"}
    index.delete_documents(["a"])
    index.add([chunk("a#1", "new premium text", doc="a", version="v2")])
    assert len(index) == 3  # nothing visible before commit
    index.commit()
    assert len(index) == 2
    assert index.search("old") == []
    assert ids(index.search("new")) == ["a#1"]
    assert index.doc_versions() == {"a": "v2", "b": "v1"}


def test_add_accepts_tokens_computed_elsewhere() -> None:
    chunks = PARITY
    tokens = [" ".join(tokenize(c.indexed_text)) for c in chunks]
    index = LexicalIndex.open(None)
    index.add(chunks, tokens=tokens)
    index.commit()
    assert index.search("premium growth") == build(chunks).search("premium growth")
    with pytest.raises(ValueError, match="2 token strings for 5 chunks"):
        index.add(chunks, tokens=tokens[:2])


def test_bad_sensitivity_rejects_the_whole_batch() -> None:
    index = LexicalIndex.open(None)
    with pytest.raises(ValueError, match="unknown sensitivity"):
        index.add([chunk("a#1", "premium"), chunk("b#1", "premium", sensitivity="SECRET")])
    index.commit()
    assert len(index) == 0


def test_close_drops_uncommitted_writes() -> None:
    index = build([chunk("a#1", "premium")])
    index.add([chunk("b#1", "premium", version="v9")])
    index.set_doc_versions({"z": "v0"})
    index.close()
    index.commit()
    assert ids(index.search("premium")) == ["a#1"]
    assert index.doc_versions() == {"a": "v1"}


def test_jieba_mode_indexes_words() -> None:
    index = LexicalIndex.open(None, mode=TokenizerMode.JIEBA)
    index.add([chunk("a#1", "香港保险公司收入增长"), chunk("b#1", "保险业务")])
    index.commit()
    assert ids(index.search("保险公司")) == ["a#1"]  # one jieba word, not the bigram 保险


# --------------------------------------------------------------------------- persistence


def test_reopening_finds_documents_and_versions(tmp_path: Path) -> None:
    path = tmp_path / "lexical"
    with build(PARITY, path) as index:
        before = index.search("premium growth")
        index.set_doc_versions({"d1": "hash-1", "d2": "hash-2"})
        index.commit()
    with LexicalIndex.open(path) as reopened:
        assert len(reopened) == len(PARITY)
        assert reopened.search("premium growth") == before
        assert reopened.doc_versions() == {"d1": "hash-1", "d2": "hash-2"}
        reopened.delete_documents(["d1"])
        reopened.commit()
    with LexicalIndex.open(path) as again:
        assert len(again) == len(PARITY) - 1
        assert again.doc_versions() == {"d2": "hash-2"}


def test_commit_releases_the_directory_for_another_writer(tmp_path: Path) -> None:
    first = build([chunk("a#1", "premium")], tmp_path / "lexical")
    second = LexicalIndex.open(tmp_path / "lexical")
    second.add([chunk("b#1", "premium")])
    second.commit()
    first.add([chunk("c#1", "premium")])
    first.commit()
    assert len(first) == 3


def test_reopening_with_another_tokenizer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lexical"
    build(PARITY, path).close()
    with pytest.raises(StoreError, match="tokenizer 'bigram', not 'jieba'"):
        LexicalIndex.open(path, mode=TokenizerMode.JIEBA)


def test_foreign_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not an index", encoding="utf-8")
    with pytest.raises(StoreError, match=f"holds no lexical index \\({META_FILE}\\)"):
        LexicalIndex.open(tmp_path)


def test_a_creation_cut_short_is_made_again(tmp_path: Path) -> None:
    """A process killed while it created the index leaves tantivy's files without the
    metadata (written last); the next writer makes the index again instead of refusing the
    folder for good (every ingest and upload job of the workspace then failed)."""
    path = tmp_path / "lexical"
    build(PARITY, path).close()
    (path / META_FILE).unlink()
    (path / ".tmpOBO9Gf").write_text("half", encoding="utf-8")

    with LexicalIndex.open(path) as again:
        assert len(again) == 0 and again.doc_versions() == {}
    assert (path / META_FILE).is_file() and not (path / ".tmpOBO9Gf").exists()


def test_an_older_format_is_made_again_by_a_writer_and_unused_by_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "lexical"
    build(PARITY, path).close()
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    (path / META_FILE).write_text(json.dumps({**meta, "format": 1}), encoding="utf-8")
    assert not is_current(path)
    assert LexicalIndex.open_read_only(path) is None

    with LexicalIndex.open(path) as again:
        assert len(again) == 0 and again.doc_versions() == {}
    assert is_current(path)


# --------------------------------------------------------------------------- post-filtering

ENTITIES = ("E1", "E2", "E3")
PERIODS = ("FY2023", "FY2024", "2024Q4")
WORDS = ("premium", "growth", "margin", "agency", "保费", "增长", "渠道", "利润")


def tagged_corpus(n: int) -> list[Chunk]:
    """Chunks with every mix of tags, few words each, so scores tie often."""
    rng = random.Random(7)
    return [
        chunk(
            f"d{i // 4}#{i % 4}",
            " ".join(rng.choices(WORDS, k=rng.randint(1, 6))),
            entities=tuple(rng.sample(ENTITIES, rng.randint(0, 2))),
            periods=tuple(rng.sample(PERIODS, rng.randint(0, 1))),
            language=rng.choice(("en", "zh")),
            sensitivity=rng.choice([s.value for s in Sensitivity]),
        )
        for i in range(n)
    ]


FILTERS = [
    RetrievalFilters(),
    RetrievalFilters(entities=("E1",)),
    RetrievalFilters(entities=("E2", "E3"), periods=("FY2024",)),
    RetrievalFilters(periods=("FY2023",), languages=("zh",)),
    RetrievalFilters(languages=("en",)),
]


@pytest.mark.parametrize("filters", FILTERS)
def test_post_filtering_agrees_with_filter_clauses(
    filters: RetrievalFilters, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranking everything and then filtering (a deep prefetch) and the filtered tantivy query
    (taken whenever a shallow prefetch does not settle the top k) give the same hits."""
    index = build(tagged_corpus(400))
    queries = ["premium growth", "保费增长", "agency 渠道 margin", "利润", "growth"]
    clearances = (Sensitivity.PUBLIC, Sensitivity.CONFIDENTIAL)

    def results() -> list[list[tuple[str, float]]]:
        return [
            index.search(q, top_k=5, filters=filters, clearance=c)
            for q in queries
            for c in clearances
        ]

    monkeypatch.setattr(lexical, "PREFETCH", 10_000)
    deep = results()
    monkeypatch.setattr(lexical, "PREFETCH", 0)
    assert results() == deep
    assert all(len(hits) == 5 for hits in deep)


# --------------------------------------------------------------------------- batched adds


def _documents(count: int, chunks_each: int) -> list[list[Chunk]]:
    words = ["revenue", "growth", "香港收入", "保险", "margin", "澳门增长", "claims"]
    rng = random.Random(7)
    return [
        [
            chunk(f"d{d}#{c}", " ".join(rng.choices(words, k=6)), version=f"v{d}")
            for c in range(chunks_each)
        ]
        for d in range(count)
    ]


@pytest.mark.parametrize("batch", [1, 7, 1_000])
def test_adding_in_batches_indexes_what_one_add_does(
    monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """Tokenizing the next batch on a worker thread while one is indexed changes nothing: the
    same chunks, scores and document versions as a single ``add``, whatever the batch size."""
    documents = _documents(12, 5)
    whole = build([c for chunks in documents for c in chunks])
    monkeypatch.setattr(lexical_batches, "ADD_BATCH", batch)
    reader_threads = set()

    def read() -> Iterator[list[Chunk]]:
        for chunks in documents:
            reader_threads.add(threading.current_thread())
            yield chunks

    batched = LexicalIndex.open(None)
    lexical_batches.add_in_batches(batched, read())
    batched.commit()
    assert reader_threads == {threading.current_thread()}  # the caller's store stays its own
    assert len(batched) == len(whole) == 60
    assert batched.doc_versions() == whole.doc_versions()
    for query in ("revenue growth", "香港收入增长", "claims 保险", "margin"):
        assert batched.search(query, top_k=60) == whole.search(query, top_k=60)


def test_a_batch_that_fails_to_tokenize_stops_the_adds(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error on the worker thread reaches the caller; nothing is committed."""
    monkeypatch.setattr(lexical_batches, "ADD_BATCH", 5)
    calls = 0

    def failing(texts: list[str], mode: TokenizerMode) -> list[str]:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("tokenizer broke")
        return [" ".join(tokenize(text, mode)) for text in texts]

    monkeypatch.setattr(lexical_batches, "token_strings", failing)
    index = LexicalIndex.open(None)
    with pytest.raises(RuntimeError, match="tokenizer broke"):
        lexical_batches.add_in_batches(index, _documents(4, 5))
    index.close()
    assert len(index) == 0
