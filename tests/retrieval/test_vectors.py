"""The vector index: add, search, filter, delete, persist, and RESTRICTED never on disk."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from usearch.index import Index

from ragspine.retrieval.embedding import HashingEmbedder
from ragspine.retrieval.vectors import META_FILE, Engine, VectorIndex, VectorIndexError
from ragspine.storage.chunks import Chunk

EMBEDDER = HashingEmbedder()
# usearch is a core dependency: a broken or missing install must fail here, never skip.
ENGINES = [engine.value for engine in Engine]
TEXTS = {
    "hk": ["Hong Kong revenue grew 12%", "Hong Kong stores opened", "香港营业收入增长"],
    "sg": ["Singapore revenue fell", "Singapore headcount rose"],
    "secret": ["Planned acquisition of a rival in Hong Kong revenue terms"],
}


def _chunks(doc: str, texts: Sequence[str], sensitivity: str = "INTERNAL") -> list[Chunk]:
    return [
        Chunk(f"{doc}#{i}", doc, f"page={i}", "", text, (), (), "en", sensitivity)
        for i, text in enumerate(texts, start=1)
    ]


def _add(index: VectorIndex, chunks: list[Chunk], **kwargs: bool) -> int:
    return index.add(chunks, EMBEDDER.embed([c.indexed_text for c in chunks]), **kwargs)


def _query(text: str) -> np.ndarray:
    return EMBEDDER.embed([text])[0]


def _filled(path: Path | None, engine: str) -> VectorIndex:
    index = VectorIndex.open(path, EMBEDDER.name, EMBEDDER.dimension, engine=engine)
    _add(index, _chunks("hk", TEXTS["hk"]))
    _add(index, _chunks("sg", TEXTS["sg"]))
    _add(index, _chunks("secret", TEXTS["secret"], "RESTRICTED"))
    index.set_doc_versions({"hk": "v1", "sg": "v1", "secret": "v1"})
    return index


def _labels_on_disk(path: Path) -> list[int]:
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    data = path / meta["data"]
    if meta["engine"] == "numpy":
        with np.load(data) as arrays:
            return sorted(arrays["labels"].tolist())
    return sorted(int(key) for key in Index.restore(str(data)).keys)


@pytest.mark.parametrize("engine", ENGINES)
def test_search_ranks_by_cosine(engine: str) -> None:
    index = _filled(None, engine)
    assert index.engine is Engine(engine)
    assert len(index) == 5
    hits = index.search(_query("Hong Kong revenue grew 12%"), top_k=3)
    assert hits[0][0] == "hk#1" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True) and len(hits) == 3
    assert index.search(_query("香港营业收入"), top_k=1)[0][0] == "hk#3"


@pytest.mark.parametrize("engine", ENGINES)
def test_restricted_chunks_are_not_stored_by_default(engine: str, tmp_path: Path) -> None:
    index = _filled(tmp_path, engine)
    assert "secret#1" not in index.chunk_ids()
    assert all(cid != "secret#1" for cid, _ in index.search(_query("acquisition"), top_k=10))
    index.save()
    meta = json.loads((tmp_path / META_FILE).read_text(encoding="utf-8"))
    assert "secret#1" not in meta["labels"].values() and "secret" not in meta["documents"]
    assert _labels_on_disk(tmp_path) == sorted(int(label) for label in meta["labels"])
    assert len(_labels_on_disk(tmp_path)) == 5
    assert "acquisition" not in "".join(p.read_text(errors="ignore") for p in tmp_path.iterdir())


def test_restricted_chunks_are_stored_only_when_asked() -> None:
    index = VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension)
    added = _add(index, _chunks("secret", TEXTS["secret"], "RESTRICTED"), include_restricted=True)
    assert added == 1 and index.chunk_ids() == {"secret#1"}


def test_restricted_text_never_reaches_the_embedder() -> None:
    seen: list[str] = []

    class Spy(HashingEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            seen.extend(texts)
            return super().embed(texts)

    index = VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension)
    chunks = _chunks("hk", TEXTS["hk"]) + _chunks("secret", TEXTS["secret"], "RESTRICTED")
    assert index.embed_and_add(chunks, Spy(EMBEDDER.dimension)) == 3
    assert seen == TEXTS["hk"]
    assert index.embed_and_add(_chunks("secret", TEXTS["secret"], "RESTRICTED"), Spy()) == 0
    assert seen == TEXTS["hk"]


@pytest.mark.parametrize("engine", ENGINES)
def test_allowed_filters_chunk_ids(engine: str) -> None:
    index = _filled(None, engine)
    hits = index.search(_query("Hong Kong revenue"), top_k=2, allowed=lambda c: c.startswith("sg"))
    assert {cid for cid, _ in hits} == {"sg#1", "sg#2"}
    assert index.search(_query("Hong Kong revenue"), top_k=2, allowed=lambda c: False) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_filter_that_rejects_every_candidate_falls_back_to_exact_search(engine: str) -> None:
    index = VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension, engine=engine)
    _add(index, _chunks("near", [f"Hong Kong revenue report part {i}" for i in range(60)]))
    _add(index, _chunks("far", ["quarterly rainfall in Singapore", "snow tyres for sale"]))
    query = _query("Hong Kong revenue report")
    # top_k = 2 asks the index for 8 candidates, all from "near"; only "far" is allowed.
    hits = index.search(query, top_k=2, allowed=lambda cid: cid.startswith("far"))
    assert sorted(cid for cid, _ in hits) == ["far#1", "far#2"]
    hits = index.search(query, top_k=5, allowed=lambda cid: cid.startswith("far"))
    assert len(hits) == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_delete_documents_drops_vectors_and_versions(engine: str) -> None:
    index = _filled(None, engine)
    index.delete_documents(["hk", "missing"])
    assert index.chunk_ids() == {"sg#1", "sg#2"}
    assert index.doc_versions() == {"sg": "v1", "secret": "v1"}
    assert {cid for cid, _ in index.search(_query("Hong Kong revenue"), top_k=10)} == {
        "sg#1",
        "sg#2",
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_re_adding_a_chunk_replaces_its_vector(engine: str) -> None:
    index = _filled(None, engine)
    chunk = _chunks("hk", ["weather report: rainy"])
    assert _add(index, chunk) == 1
    assert len(index) == 5
    assert index.search(_query("rainy weather"), top_k=1)[0][0] == "hk#1"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_chunk_that_became_restricted_loses_its_vector(engine: str) -> None:
    index = _filled(None, engine)
    assert _add(index, _chunks("hk", TEXTS["hk"][:1], "RESTRICTED")) == 0
    assert "hk#1" not in index.chunk_ids() and len(index) == 4
    assert "hk#1" not in {cid for cid, _ in index.search(_query("Hong Kong revenue"), top_k=5)}


@pytest.mark.parametrize("engine", ENGINES)
def test_save_and_reopen_give_the_same_answers(engine: str, tmp_path: Path) -> None:
    index = _filled(tmp_path, engine)
    index.save()
    index.delete_documents(["sg"])
    index.save()
    reopened = VectorIndex.open(tmp_path, EMBEDDER.name, EMBEDDER.dimension, engine=engine)
    assert reopened.engine is Engine(engine)
    assert reopened.chunk_ids() == index.chunk_ids() == {"hk#1", "hk#2", "hk#3"}
    assert reopened.doc_versions() == {"hk": "v1", "secret": "v1"}
    query = _query("Hong Kong stores")
    before, after = index.search(query, top_k=3), reopened.search(query, top_k=3)
    assert [cid for cid, _ in after] == [cid for cid, _ in before]
    assert [s for _, s in after] == pytest.approx([s for _, s in before])
    _add(reopened, _chunks("sg", TEXTS["sg"]))
    assert len(reopened) == 5 and len(set(_labels_for(reopened))) == 5
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == sorted([META_FILE, json.loads((tmp_path / META_FILE).read_text())["data"]])


def _labels_for(index: VectorIndex) -> list[int]:
    index.save()
    assert index.path is not None
    return _labels_on_disk(index.path)


def test_an_exact_index_reopens_as_hnsw(tmp_path: Path) -> None:
    exact = _filled(tmp_path, "numpy")
    exact.save()
    hnsw = VectorIndex.open(tmp_path, EMBEDDER.name, EMBEDDER.dimension, engine="usearch")
    assert hnsw.engine is Engine.USEARCH and hnsw.chunk_ids() == exact.chunk_ids()
    query = _query("Singapore revenue")  # cosines 2/√6, 1/√6 and 1/√10 with sg#1, sg#2, hk#1
    assert [c for c, _ in hnsw.search(query, top_k=3)] == ["sg#1", "sg#2", "hk#1"]
    assert [c for c, _ in exact.search(query, top_k=3)] == ["sg#1", "sg#2", "hk#1"]


def test_a_memory_only_index_saves_nothing(tmp_path: Path) -> None:
    index = _filled(None, "numpy")
    index.save()
    assert index.path is None and not list(tmp_path.iterdir())


def test_another_backend_cannot_reuse_the_vectors(tmp_path: Path) -> None:
    _filled(tmp_path, "numpy").save()
    with pytest.raises(VectorIndexError, match="delete it to re-embed"):
        VectorIndex.open(tmp_path, "all-MiniLM-L6-v2", EMBEDDER.dimension)
    with pytest.raises(VectorIndexError, match="dimension 256"):
        VectorIndex.open(tmp_path, EMBEDDER.name, 64)


def test_bad_input_is_refused() -> None:
    index = VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension)
    with pytest.raises(ValueError, match="expected 2 vectors of dimension 256"):
        index.add(_chunks("hk", TEXTS["hk"][:2]), np.zeros((3, 256), dtype=np.float32))
    with pytest.raises(ValueError, match="dimension 256"):
        index.search(np.ones(64, dtype=np.float32), top_k=1)
    with pytest.raises(ValueError, match="valid options: usearch, numpy"):
        VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension, engine="faiss")


def test_zero_vectors_are_neither_stored_nor_searched() -> None:
    index = VectorIndex.open(None, EMBEDDER.name, EMBEDDER.dimension)
    assert _add(index, _chunks("hk", ["", "Hong Kong"])) == 1
    assert index.chunk_ids() == {"hk#2"}
    assert index.search(np.zeros(256, dtype=np.float32), top_k=3) == []
    assert index.search(_query("Hong Kong"), top_k=0) == []
