"""Chunk vectors in PostgreSQL: exact float32 round trip, tied to their chunk, RESTRICTED kept
out unless the caller opts in (invariant 4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragspine.errors import StoreError
from tests.storage.backends import open_workspace_store
from tests.storage.test_ingest_store import record
from tests.storage.test_workspace_store import chunk

MODEL = "minilm-l6"


@pytest.fixture
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    with open_workspace_store("postgres", request, tmp_path) as opened:
        opened.replace_document(
            record("a.pptx"), [], [], [], [chunk("a.pptx", 1), chunk("a.pptx", 2)]
        )
        yield opened


def vector(seed: int, dimension: int = 8) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)


def test_vectors_round_trip_exactly(store: Any) -> None:
    written = {"a.pptx#1": vector(1), "a.pptx#2": [0.5, -1.25, 3.0e-38, 1.0, 0.0, 2.0, 3.0, 4.0]}
    assert store.put_vectors(MODEL, written) == 2

    read = store.get_vectors(MODEL)
    assert list(read) == ["a.pptx#1", "a.pptx#2"]
    assert read["a.pptx#1"].dtype == np.float32
    assert np.array_equal(read["a.pptx#1"], written["a.pptx#1"])
    assert read["a.pptx#2"].tolist() == np.asarray(written["a.pptx#2"], np.float32).tolist()
    assert list(store.get_vectors(MODEL, ["a.pptx#2", "nope"])) == ["a.pptx#2"]
    assert store.get_vectors("other-model") == {}


def test_a_new_vector_replaces_the_old_one_whatever_its_model(store: Any) -> None:
    store.put_vectors(MODEL, {"a.pptx#1": vector(1)})
    store.put_vectors("bge-m3", {"a.pptx#1": vector(2, dimension=4)})
    assert store.get_vectors(MODEL) == {}
    assert store.get_vectors("bge-m3")["a.pptx#1"].shape == (4,)


def test_a_vector_of_an_unknown_chunk_refuses_the_whole_batch(store: Any) -> None:
    with pytest.raises(StoreError, match="write 2 vectors"):
        store.put_vectors(MODEL, {"a.pptx#1": vector(1), "ghost#1": vector(2)})
    assert store.get_vectors(MODEL) == {}


@pytest.mark.parametrize("bad", [[], [[1.0, 2.0]], [1.0, float("nan")], [float("inf")]], ids=repr)
def test_a_malformed_vector_is_refused(store: Any, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"a\.pptx#1"):
        store.put_vectors(MODEL, {"a.pptx#1": bad})


def test_vectors_go_with_their_chunks(store: Any) -> None:
    store.put_vectors(MODEL, {"a.pptx#1": vector(1), "a.pptx#2": vector(2)})
    store.replace_document(record("a.pptx", "h2"), [], [], [], [chunk("a.pptx", 1)])
    assert store.get_vectors(MODEL) == {}

    store.put_vectors(MODEL, {"a.pptx#1": vector(1)})
    store.remove_document("a.pptx")
    assert store.get_vectors(MODEL) == {}


def test_restricted_vectors_are_kept_out_unless_asked_for(store: Any) -> None:
    secret = dataclasses.replace(record("s.pptx", "h9"), sensitivity="RESTRICTED")
    store.replace_document(secret, [], [], [], [chunk("s.pptx", 1, sensitivity="RESTRICTED")])
    batch = {"a.pptx#1": vector(1), "s.pptx#1": vector(2)}

    assert store.put_vectors(MODEL, batch) == 1
    assert list(store.get_vectors(MODEL)) == ["a.pptx#1"]
    assert store.put_vectors(MODEL, batch, persist_restricted=True) == 2
    assert list(store.get_vectors(MODEL)) == ["a.pptx#1", "s.pptx#1"]


def test_a_chunk_raised_to_restricted_loses_its_vector(store: Any) -> None:
    store.put_vectors(MODEL, {"a.pptx#1": vector(1), "a.pptx#2": vector(2)})
    store.update_document_metadata("a.pptx", "m1", "RESTRICTED")
    assert store.get_vectors(MODEL) == {}


def test_a_copy_raised_to_restricted_loses_its_vector(store: Any) -> None:
    store.put_vectors(MODEL, {"a.pptx#1": vector(1)})
    copy = dataclasses.replace(record("vault/a.pptx"), sensitivity="RESTRICTED")
    store.replace_document(copy, [], [], [])
    assert store.get_document("a.pptx").sensitivity == "RESTRICTED"
    assert store.get_vectors(MODEL) == {}
