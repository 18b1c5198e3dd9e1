"""The hybrid narrative retriever: rewrite → BM25 per variant (+ dense) → RRF → rerank.

Every channel applies the same pre-filters (entity, period, language, clearance) before
scoring, and the retriever checks clearance once more on the way out — the first of the two
RESTRICTED exits (the prompt builder is the second). Held chunks (instruction-like text awaiting
review) are neither indexed nor admitted, and the prompt builder refuses them too.

Opening a retriever only reads: the persisted indexes are written by the commands that write
the store (``refresh.refresh_indexes``), so questions never contend for tantivy's writer lock.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ragspine.errors import StoreError
from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.period_spans import any_within
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.embedding import EmbeddingBackend, load_backend
from ragspine.retrieval.fusion import rrf_fuse
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.lexical_batches import add_in_batches
from ragspine.retrieval.passages import copy_groups
from ragspine.retrieval.protocol import RetrievalFilters, Snippet
from ragspine.retrieval.rerank import Reranker
from ragspine.retrieval.rewrite import rewrite_query
from ragspine.retrieval.skew import report_skew
from ragspine.retrieval.vectors import VectorIndex
from ragspine.storage.chunks import Chunk
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.workspace import Workspace

CANDIDATES = 50
# Measured on the bilingual eval set: the translated variant needs a full vote (at half weight
# cross-lingual recall@10 fell from 0.94 to 0.58), while the English-only dense model helps
# least, so it gets half a vote.
VARIANT_WEIGHT = 1.0
DENSE_WEIGHT = 0.5
INDEX_DIR = "index"
# With no lag, a year's quarterly notes and the base year's passages crowd out the year's own
# (retrieval eval, entity recall@10 0.94 → 0.88); a lag rather than a strict order keeps the
# best of them within reach of an answer.
PART_LAG = 3


class LexicalReader(Protocol):
    """What the retriever reads of a BM25 index: a workspace's ``LexicalIndex``, or the
    index a process keeps following PostgreSQL (``follower.IndexFollower``)."""

    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, float]]: ...

    def doc_versions(self) -> dict[str, str]: ...


@dataclass
class DenseChannel:
    backend: EmbeddingBackend
    vectors: VectorIndex


@dataclass
class HybridRetriever:
    store: WorkspaceStoreProtocol
    lexical: LexicalReader
    glossary: Glossary
    dense: DenseChannel | None = None
    reranker: Reranker | None = None
    candidates: int = CANDIDATES
    _chunks: dict[str, Chunk] | None = field(default=None, repr=False)

    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[Snippet]:
        rankings = [
            [
                cid
                for cid, _ in self.lexical.search(
                    variant, top_k=self.candidates, filters=filters, clearance=clearance
                )
            ]
            for variant in rewrite_query(query, self.glossary)
        ]
        weights = [1.0] + [VARIANT_WEIGHT] * (len(rankings) - 1)
        if self.dense is not None:
            rankings.append(self._dense_ranking(query, filters, clearance))
            weights.append(DENSE_WEIGHT)
        pool = list(dict.fromkeys(cid for ranking in rankings for cid in ranking))
        chunks = self.store.get_chunks(pool)
        indexed = self.lexical.doc_versions()
        current = {
            cid
            for cid in pool
            if cid in chunks and same_content(indexed.get(chunks[cid].doc_id, ""), chunks[cid])
        }
        report_skew(chunks[cid].doc_id for cid in pool if cid in chunks and cid not in current)
        admitted = [
            cid for cid in pool if cid in current and matches(chunks[cid], filters, clearance)
        ]
        # Copies of a passage (the same text in another file or version) count once in every
        # ranking, at the best place of any of them: they never push a distinct passage down.
        group = copy_groups([(cid, chunks[cid].text) for cid in admitted])
        copies: dict[str, list[str]] = {}
        for cid in admitted:
            copies.setdefault(group[cid], []).append(cid)
        fused = rrf_fuse(
            [list(dict.fromkeys(group[c] for c in ranking if c in group)) for ranking in rankings],
            weights=weights,
        )[: self.candidates]
        # A chunk of a part of the asked period only, or of the comparison period, moves
        # PART_LAG places down: the year's own passages answer for the year first.
        lagged = sorted(
            enumerate(fused),
            key=lambda hit: hit[0] + (0 if _exact(chunks[hit[1][0]], filters) else PART_LAG),
        )
        # Only a reranker looks past the first top_k.
        kept = lagged if self.reranker is not None else lagged[:top_k]
        snippets = [
            _snippet(
                chunks[cid],
                score,
                tuple(_snippet(chunks[c], score) for c in copies[cid][1:]),
            )
            for _, (cid, score) in kept
        ]
        if self.reranker is not None:
            snippets = self.reranker.rerank(query, snippets)
        return snippets[:top_k]

    def _dense_ranking(
        self, query: str, filters: RetrievalFilters | None, clearance: Sensitivity
    ) -> list[str]:
        assert self.dense is not None
        vector = self.dense.backend.embed([query])[0]
        if self._chunks is None:
            # One read per retriever: the filter callback must not hit SQLite per vector.
            self._chunks = {c.chunk_id: c for c in self.store.list_chunks()}
        chunks = self._chunks

        def allowed(chunk_id: str) -> bool:
            chunk = chunks.get(chunk_id)
            return chunk is not None and matches(chunk, filters, clearance)

        hits = self.dense.vectors.search(vector, top_k=self.candidates, allowed=allowed)
        return [cid for cid, _ in hits]


def matches(chunk: Chunk, filters: RetrievalFilters | None, clearance: Sensitivity) -> bool:
    """The pre-filter rule every channel shares (untagged chunks are neutral); a held chunk
    never passes.

    Periods match by containment in fiscal months, the rule ``lexical._required`` expresses
    as terms: a quarter belongs to its year.
    """
    if chunk.held or Sensitivity.parse(chunk.sensitivity).rank > clearance.rank:
        return False
    if filters is None:
        return True
    if filters.entities and chunk.entities and not set(filters.entities) & set(chunk.entities):
        return False
    wanted, have = filters.period_spans, chunk.period_spans
    if wanted and have and not any_within(wanted, have):
        return False
    return not (filters.languages and chunk.language not in filters.languages)


def _exact(chunk: Chunk, filters: RetrievalFilters | None) -> bool:
    """Whether a chunk is untagged or tagged with an asked period itself (not with a part
    of it, nor with a comparison period)."""
    if filters is None or not filters.asked_spans or not chunk.period_spans:
        return True
    return bool(set(filters.asked_spans) & set(chunk.period_spans))


def _snippet(chunk: Chunk, score: float, copies: tuple[Snippet, ...] = ()) -> Snippet:
    return Snippet(
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.text,
        chunk.sensitivity,
        score,
        chunk.title,
        chunk.held,
        copies,
    )


def open_retriever(
    workspace: Workspace,
    *,
    store: SQLiteWorkspaceStore | None = None,
    dense: str | None = None,
    reranker: Reranker | None = None,
    notify: Callable[[str], None] | None = None,
) -> HybridRetriever:
    """A retriever over the workspace that writes nothing and takes no lock.

    The persisted indexes are kept by the writing commands (``refresh.refresh_indexes``).
    When one is missing or does not match the store's documents (an ingest is running, was
    interrupted, or predates the index), this process answers from an in-memory copy built
    from the store, and ``notify`` (stderr by default) is told once. ``store`` defaults to a
    read-only store of the workspace.
    """
    store = store or workspace.fact_store(read_only=True)
    say = notify or _to_stderr
    # One read transaction: the versions compared and the chunks copied are the same commit.
    with store.snapshot():
        current = document_versions(store)
        lexical = _lexical_reader(workspace, store, current, say)
        channel = None
        if dense:
            channel = _dense_reader(workspace, store, load_backend(dense), current, say)
    return HybridRetriever(store, lexical, glossary_for(workspace.profile()), channel, reranker)


def lexical_path(workspace: Workspace) -> Path:
    return workspace.root / INDEX_DIR / "lexical"


def vectors_path(workspace: Workspace, backend_name: str) -> Path:
    return workspace.root / INDEX_DIR / f"vectors-{_safe(backend_name)}"


def _lexical_reader(
    workspace: Workspace,
    store: SQLiteWorkspaceStore,
    current: dict[str, str],
    notify: Callable[[str], None],
) -> LexicalIndex:
    persisted = LexicalIndex.open_read_only(lexical_path(workspace))
    if persisted is not None and persisted.doc_versions() == current:
        return persisted
    notify(
        f"note: the search index of {workspace.root} is missing or behind its documents "
        "(an ingest is running or was interrupted); answering from a temporary in-memory "
        f"index. If this persists, run `ragspine ingest <folder> --workspace {workspace.root}`."
    )
    memory = LexicalIndex.open(None)
    update_lexical(store, memory, current)
    memory.commit()
    return memory


def _dense_reader(
    workspace: Workspace,
    store: SQLiteWorkspaceStore,
    backend: EmbeddingBackend,
    current: dict[str, str],
    notify: Callable[[str], None],
) -> DenseChannel:
    path = vectors_path(workspace, backend.name)
    try:
        vectors = VectorIndex.open(path, backend.name, backend.dimension)
    except (StoreError, ValueError, KeyError):
        vectors = VectorIndex.open(None, backend.name, backend.dimension)
    # Loaded into memory: what follows changes this process's copy, never the files (no save).
    if update_vectors(store, backend, vectors, current):
        notify(
            f"note: the {backend.name} vectors of {workspace.root} are missing or behind its "
            "documents; the missing ones are embedded in memory for this question. Store them "
            f"with `ragspine ingest <folder> --dense <model> --workspace {workspace.root}`."
        )
    return DenseChannel(backend, vectors)


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def document_versions(store: WorkspaceStoreProtocol) -> dict[str, str]:
    """What a derived index must match per document: its bytes, metadata and mapping, and
    the passages it holds for review (a decision on one re-indexes the document)."""
    held = store.held_locators()
    return {
        d.doc_id: f"{d.content_hash[:16]}-{d.metadata_hash[:8]}-{d.mapping_version}"
        + _held_tag(held.get(d.doc_id, ()))
        for d in store.list_documents()
    }


def same_content(index_version: str, chunk: Chunk) -> bool:
    """Whether a stored chunk is of the document bytes the index ranked: a document re-ingested
    after the index was opened is left out of this answer rather than ranked by its old text
    and shown with its new one. Both versions open with the document's content hash."""
    return index_version.startswith(chunk.version)


def _held_tag(locators: tuple[str, ...]) -> str:
    if not locators:
        return ""
    return "-held-" + hashlib.sha256("\n".join(locators).encode("utf-8")).hexdigest()[:8]


def _stale(current: dict[str, str], indexed: dict[str, str]) -> tuple[set[str], set[str]]:
    removed = {d for d in indexed if d not in current or indexed[d] != current[d]}
    added = {d for d in current if indexed.get(d) != current[d]}
    return removed, added


def update_lexical(
    store: WorkspaceStoreProtocol, index: LexicalIndex, current: dict[str, str]
) -> bool:
    """Queue what brings ``index`` to the ``current`` versions; False when nothing differs.
    The caller commits."""
    removed, added = _stale(current, index.doc_versions())
    if not removed and not added:
        return False
    # A document added is deleted first too: a writer killed between the index's commit and
    # the saving of its versions leaves chunks the versions do not name, which would
    # otherwise be there twice.
    index.delete_documents(removed | added)
    add_in_batches(index, (store.list_chunks(doc_id) for doc_id in sorted(added)))
    index.set_doc_versions(current)
    return True


def update_vectors(
    store: SQLiteWorkspaceStore,
    backend: EmbeddingBackend,
    vectors: VectorIndex,
    current: dict[str, str],
) -> bool:
    """Bring ``vectors`` (in memory) to the ``current`` versions; False when nothing differs.
    The caller saves, or not."""
    removed, added = _stale(current, vectors.doc_versions())
    if not removed and not added:
        return False
    vectors.delete_documents(removed)
    for doc_id in sorted(added):
        # RESTRICTED text is neither embedded nor persisted as a vector (docs/architecture.md,
        # invariant 4).
        chunks = [
            c
            for c in store.list_chunks(doc_id)
            if Sensitivity.parse(c.sensitivity) != Sensitivity.RESTRICTED
        ]
        vectors.embed_and_add(chunks, backend)
    vectors.set_doc_versions(current)
    return True
