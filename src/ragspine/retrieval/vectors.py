"""Dense vectors of chunks, persisted in the workspace beside the other indexes.

Vectors are keyed by integer labels (what an HNSW index keys by); a side map ties each label to
its chunk and each document to its labels, so re-indexing a document replaces exactly its
vectors. RESTRICTED chunks are skipped unless the caller opts in: a vector is a copy of the
text's meaning on disk (docs/architecture.md, invariant 4). Search is approximate (usearch
HNSW, about 0.6 ms for the top 10 of 100k × 384 here, recall 0.96) when usearch is installed,
exact numpy otherwise.

On disk a directory holds ``vectors.json`` (backend, dimension, label maps, document versions)
and one data file it names. ``save`` writes a new data file, then replaces the JSON in one
rename, so a crash leaves the previous consistent pair.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np
from numpy.typing import NDArray

from ragspine.enums import ParseableEnum
from ragspine.errors import StoreError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.embedding import EmbeddingBackend, l2_normalised
from ragspine.storage.chunks import Chunk

META_FILE = "vectors.json"
FORMAT_VERSION = 1
# A filtered search first asks the approximate index for this many times top_k candidates.
OVERSAMPLE = 4

Vectors = NDArray[np.float32]
Labels = NDArray[np.int64]


class VectorIndexError(StoreError):
    """A vector index on disk cannot serve this backend (other model, dimension or engine)."""


class Engine(ParseableEnum, label="vector engine"):
    """How a ``VectorIndex`` searches: usearch's HNSW graph, or an exact numpy product."""

    USEARCH = "usearch"
    NUMPY = "numpy"

    @classmethod
    def default(cls) -> Engine:
        """usearch when it is installed, numpy otherwise."""
        return cls.USEARCH if importlib.util.find_spec("usearch") else cls.NUMPY


class VectorIndex:
    """Chunk vectors with cosine search; ``open`` a directory, or ``None`` for memory only."""

    def __init__(
        self, path: Path | None, backend_name: str, dimension: int, engine: Engine
    ) -> None:
        self.path = path
        self.backend_name = backend_name
        self.dimension = dimension
        self._engine: _Engine = _new_engine(engine, dimension)
        self._entries: dict[int, tuple[str, str]] = {}  # label -> (chunk_id, doc_id)
        self._label_of: dict[str, int] = {}
        self._doc_labels: dict[str, list[int]] = {}
        self._versions: dict[str, str] = {}
        self._next_label = 0
        self._generation = 0

    @classmethod
    def open(
        cls,
        path: Path | None,
        backend_name: str,
        dimension: int,
        *,
        engine: str | Engine | None = None,
    ) -> VectorIndex:
        """The index saved at ``path`` (or a new one); ``engine`` defaults to usearch if present.

        An index saved by usearch reopens with usearch; one saved by numpy loads into either.
        Raises ``VectorIndexError`` when the saved index was built by another backend or
        dimension, or with usearch while usearch is not installed.
        """
        chosen = Engine.parse(engine) if engine is not None else Engine.default()
        index = cls(path, backend_name, dimension, chosen)
        if path is not None and (path / META_FILE).is_file():
            index._load(path)
        return index

    @property
    def engine(self) -> Engine:
        """Which implementation searches: ``usearch`` (HNSW) or ``numpy`` (exact)."""
        return self._engine.kind

    def __len__(self) -> int:
        return len(self._entries)

    def chunk_ids(self) -> set[str]:
        """The chunks that have a vector."""
        return set(self._label_of)

    def doc_versions(self) -> dict[str, str]:
        """The version of each document the vectors were computed from (a sync map)."""
        return dict(self._versions)

    def set_doc_versions(self, versions: dict[str, str]) -> None:
        """Record the versions now indexed; persisted by the next ``save``."""
        self._versions = dict(versions)

    def add(
        self, chunks: Sequence[Chunk], vectors: Vectors, *, include_restricted: bool = False
    ) -> int:
        """Store one row of ``vectors`` per chunk, replacing any earlier vector of the chunk.

        RESTRICTED chunks are skipped unless ``include_restricted``, and so are held chunks
        (instruction-like text awaiting review) and zero rows (an empty text has no direction
        to compare); a skipped chunk loses its earlier vector too.
        Returns how many vectors were stored.
        """
        rows = np.asarray(vectors, dtype=np.float32)
        if rows.shape != (len(chunks), self.dimension):
            raise ValueError(
                f"expected {len(chunks)} vectors of dimension {self.dimension}, got {rows.shape}"
            )
        rows = l2_normalised(rows)
        keep = {
            chunk.chunk_id: (chunk.doc_id, row)
            for chunk, row in zip(chunks, rows, strict=True)
            if (include_restricted or not is_restricted(chunk)) and not chunk.held and row.any()
        }
        self._forget([self._label_of[c.chunk_id] for c in chunks if c.chunk_id in self._label_of])
        if not keep:
            return 0
        labels = np.arange(self._next_label, self._next_label + len(keep), dtype=np.int64)
        self._next_label += len(keep)
        for label, (chunk_id, (doc_id, _)) in zip(labels.tolist(), keep.items(), strict=True):
            self._entries[label] = (chunk_id, doc_id)
            self._label_of[chunk_id] = label
            self._doc_labels.setdefault(doc_id, []).append(label)
        self._engine.add(labels, np.stack([row for _, row in keep.values()]))
        return len(keep)

    def embed_and_add(
        self,
        chunks: Sequence[Chunk],
        backend: EmbeddingBackend,
        *,
        include_restricted: bool = False,
    ) -> int:
        """Embed and store chunks; RESTRICTED text never reaches the backend unless opted in,
        and held text (awaiting review) never does."""
        kept = [c for c in chunks if (include_restricted or not is_restricted(c)) and not c.held]
        if not kept:
            return 0
        vectors = backend.embed([c.indexed_text for c in kept])
        return self.add(kept, vectors, include_restricted=include_restricted)

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Drop every vector of these documents, and their versions."""
        doc_ids = list(doc_ids)
        self._forget([label for doc in doc_ids for label in self._doc_labels.get(doc, ())])
        for doc_id in doc_ids:
            self._versions.pop(doc_id, None)

    def search(
        self,
        vector: NDArray[np.floating[Any]],
        *,
        top_k: int,
        allowed: Callable[[str], bool] | None = None,
    ) -> list[tuple[str, float]]:
        """Chunk ids with cosine similarity, best first, limited to ``allowed`` chunk ids.

        With a filter the approximate index is asked for ``OVERSAMPLE × top_k`` candidates;
        when fewer than ``top_k`` of them pass, every allowed vector is scored exactly.
        """
        query = l2_normalised(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        if query.shape != (self.dimension,):
            raise ValueError(f"expected a vector of dimension {self.dimension}")
        if top_k <= 0 or not self._entries or not query.any():
            return []
        if allowed is None:
            return self._hits(*self._engine.search(query, top_k))
        count = min(len(self), top_k * OVERSAMPLE)
        hits = [hit for hit in self._hits(*self._engine.search(query, count)) if allowed(hit[0])]
        if len(hits) >= top_k:
            return hits[:top_k]
        permitted = np.array(
            [label for label, (cid, _) in self._entries.items() if allowed(cid)], dtype=np.int64
        )
        if len(permitted) == len(hits):
            return hits
        return self._hits(*_exact(query, permitted, self._engine.vectors(permitted), top_k))

    def save(self) -> None:
        """Persist atomically (see the module docstring); a memory-only index does nothing."""
        if self.path is None:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        self._generation += 1
        data = f"vectors-{self._generation}.{_SUFFIX[self._engine.kind]}"
        self._engine.save(self.path / data)
        meta = {
            "format": FORMAT_VERSION,
            "backend": self.backend_name,
            "dimension": self.dimension,
            "engine": self._engine.kind.value,
            "data": data,
            "generation": self._generation,
            "next_label": self._next_label,
            "labels": {str(label): cid for label, (cid, _) in self._entries.items()},
            "documents": self._doc_labels,
            "doc_versions": self._versions,
        }
        with _atomic(self.path / META_FILE) as handle:
            handle.write(json.dumps(meta, ensure_ascii=False).encode())
        for stale in self.path.glob("vectors-*"):
            if stale.name != data:
                stale.unlink()

    def _load(self, path: Path) -> None:
        meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_VERSION:
            raise VectorIndexError(f"{path} has format {meta.get('format')}; delete it to re-embed")
        if (meta["backend"], meta["dimension"]) != (self.backend_name, self.dimension):
            raise VectorIndexError(
                f"{path} holds {meta['backend']} vectors of dimension {meta['dimension']}, "
                f"not {self.backend_name} ({self.dimension}); delete it to re-embed"
            )
        saved = Engine.parse(meta["engine"])
        if saved is Engine.USEARCH and self._engine.kind is not Engine.USEARCH:
            if Engine.default() is not Engine.USEARCH:
                raise VectorIndexError(f"{path} was built with usearch: pip install usearch")
            self._engine = _new_engine(Engine.USEARCH, self.dimension)
        self._engine.load(path / meta["data"], saved)
        doc_of = {label: doc for doc, labels in meta["documents"].items() for label in labels}
        self._entries = {int(key): (cid, doc_of[int(key)]) for key, cid in meta["labels"].items()}
        self._label_of = {cid: label for label, (cid, _) in self._entries.items()}
        self._doc_labels = {doc: list(labels) for doc, labels in meta["documents"].items()}
        self._versions = dict(meta["doc_versions"])
        self._next_label = int(meta["next_label"])
        self._generation = int(meta["generation"])

    def _forget(self, labels: list[int]) -> None:
        if not labels:
            return
        self._engine.remove(np.array(labels, dtype=np.int64))
        gone, docs = set(labels), set()
        for label in labels:
            chunk_id, doc_id = self._entries.pop(label)
            del self._label_of[chunk_id]
            docs.add(doc_id)
        for doc_id in docs:
            remaining = [label for label in self._doc_labels[doc_id] if label not in gone]
            if remaining:
                self._doc_labels[doc_id] = remaining
            else:
                del self._doc_labels[doc_id]

    def _hits(self, labels: Labels, scores: Vectors) -> list[tuple[str, float]]:
        return [
            (self._entries[label][0], float(score))
            for label, score in zip(labels.tolist(), scores.tolist(), strict=True)
        ]


def is_restricted(chunk: Chunk) -> bool:
    """True for RESTRICTED chunks, whose vectors are kept out of the index by default."""
    return Sensitivity.parse(chunk.sensitivity) is Sensitivity.RESTRICTED


class _Engine(Protocol):
    kind: Engine

    def add(self, labels: Labels, vectors: Vectors) -> None: ...

    def remove(self, labels: Labels) -> None: ...

    def search(self, query: Vectors, count: int) -> tuple[Labels, Vectors]: ...

    def vectors(self, labels: Labels) -> Vectors: ...

    def save(self, target: Path) -> None: ...

    def load(self, source: Path, saved: Engine) -> None: ...


class _ExactEngine:
    """Rows in label order (labels only grow), scored by one matrix product."""

    kind = Engine.NUMPY

    def __init__(self, dimension: int) -> None:
        self._labels: Labels = np.zeros(0, dtype=np.int64)
        self._rows: Vectors = np.zeros((0, dimension), dtype=np.float32)
        self._pending: list[tuple[Labels, Vectors]] = []

    def add(self, labels: Labels, vectors: Vectors) -> None:
        # Collected and concatenated once on the next read, so many small adds stay linear.
        self._pending.append((labels, vectors))

    def remove(self, labels: Labels) -> None:
        current, rows = self._compacted()
        keep = ~np.isin(current, labels)
        self._labels, self._rows = current[keep], rows[keep]

    def search(self, query: Vectors, count: int) -> tuple[Labels, Vectors]:
        return _exact(query, *self._compacted(), count)

    def vectors(self, labels: Labels) -> Vectors:
        current, rows = self._compacted()
        return rows[np.searchsorted(current, labels)]

    def save(self, target: Path) -> None:
        labels, rows = self._compacted()
        with _atomic(target) as handle:
            np.savez(handle, labels=labels, vectors=rows)

    def load(self, source: Path, saved: Engine) -> None:
        self._labels, self._rows = _read_npz(source)
        self._pending = []

    def _compacted(self) -> tuple[Labels, Vectors]:
        if self._pending:
            self._labels = np.concatenate([self._labels, *(lab for lab, _ in self._pending)])
            self._rows = np.concatenate([self._rows, *(row for _, row in self._pending)])
            self._pending = []
        return self._labels, self._rows


class _HnswEngine:
    """usearch's HNSW graph with cosine distance (similarity = 1 − distance)."""

    kind = Engine.USEARCH

    def __init__(self, dimension: int) -> None:
        self._dimension = dimension
        # Imported by name: the core type-checks and installs without usearch.
        self._module: Any = importlib.import_module("usearch.index")
        self._index: Any = self._module.Index(ndim=dimension, metric="cos", dtype="f32")

    def add(self, labels: Labels, vectors: Vectors) -> None:
        self._index.add(labels.astype(np.uint64), vectors)

    def remove(self, labels: Labels) -> None:
        self._index.remove(labels.astype(np.uint64))

    def search(self, query: Vectors, count: int) -> tuple[Labels, Vectors]:
        # One query: spreading it over threads costs more than it saves (1.0 vs 1.4 ms here).
        matches = self._index.search(query, count, threads=1)
        labels = np.asarray(matches.keys, dtype=np.int64)
        return labels, 1.0 - np.asarray(matches.distances, dtype=np.float32)

    def vectors(self, labels: Labels) -> Vectors:
        if not len(labels):
            return np.zeros((0, self._dimension), dtype=np.float32)
        return np.stack(self._index.get(labels.astype(np.uint64), dtype=np.float32))

    def save(self, target: Path) -> None:
        temporary = target.with_name(target.name + ".tmp")
        self._index.save(str(temporary))
        with temporary.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)

    def load(self, source: Path, saved: Engine) -> None:
        if saved is Engine.NUMPY:
            labels, rows = _read_npz(source)
            if len(labels):
                self.add(labels, rows)
            return
        restored = self._module.Index.restore(str(source))
        if restored is None or restored.ndim != self._dimension:
            raise VectorIndexError(f"{source} is not a usearch index of {self._dimension} dims")
        self._index = restored


_SUFFIX = {Engine.USEARCH: "usearch", Engine.NUMPY: "npz"}


def _new_engine(kind: Engine, dimension: int) -> _Engine:
    if kind is Engine.NUMPY:
        return _ExactEngine(dimension)
    if Engine.default() is not Engine.USEARCH:
        raise ImportError("the usearch vector engine needs usearch: pip install usearch")
    return _HnswEngine(dimension)


def _exact(query: Vectors, labels: Labels, rows: Vectors, count: int) -> tuple[Labels, Vectors]:
    """The ``count`` best rows by cosine (rows are unit length), ties by label."""
    scores = rows @ query
    if count < len(scores):
        chosen = np.argpartition(-scores, count - 1)[:count]
        labels, scores = labels[chosen], scores[chosen]
    order = np.lexsort((labels, -scores))
    return labels[order], scores[order]


def _read_npz(source: Path) -> tuple[Labels, Vectors]:
    with np.load(source) as data:
        return data["labels"], data["vectors"]


@contextmanager
def _atomic(target: Path) -> Iterator[BinaryIO]:
    """A file written under a temporary name, flushed to disk and renamed over ``target``."""
    temporary = target.with_name(target.name + ".tmp")
    try:
        with temporary.open("wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
