"""The hybrid narrative retriever: rewrite → BM25 per variant (+ dense) → RRF → rerank.

Every channel applies the same pre-filters (entity, period, language, clearance) before
scoring, and the retriever checks clearance once more on the way out — the first of the two
RESTRICTED exits (the prompt builder is the second). Held chunks (instruction-like text awaiting
review) are neither indexed nor admitted, and the prompt builder refuses them too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.period_spans import any_within
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.embedding import EmbeddingBackend, load_backend
from ragspine.retrieval.fusion import rrf_fuse
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.passages import copy_groups
from ragspine.retrieval.protocol import RetrievalFilters, Snippet
from ragspine.retrieval.rerank import Reranker
from ragspine.retrieval.rewrite import rewrite_query
from ragspine.retrieval.vectors import VectorIndex
from ragspine.storage.chunks import Chunk
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
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


@dataclass
class DenseChannel:
    backend: EmbeddingBackend
    vectors: VectorIndex


@dataclass
class HybridRetriever:
    store: SQLiteWorkspaceStore
    lexical: LexicalIndex
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
        admitted = [
            cid for cid in pool if cid in chunks and matches(chunks[cid], filters, clearance)
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
        snippets = [
            replace(
                _snippet(chunks[cid], score),
                copies=tuple(_snippet(chunks[c], score) for c in copies[cid][1:]),
            )
            for _, (cid, score) in lagged
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


def _snippet(chunk: Chunk, score: float) -> Snippet:
    return Snippet(
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.text,
        chunk.sensitivity,
        score,
        chunk.title,
        chunk.held,
    )


def open_retriever(
    workspace: Workspace, *, dense: str | None = None, reranker: Reranker | None = None
) -> HybridRetriever:
    """A retriever over the workspace, its indexes brought in line with the store first."""
    store = workspace.fact_store()
    lexical = LexicalIndex.open(workspace.root / INDEX_DIR / "lexical")
    sync_lexical(store, lexical)
    channel = None
    if dense:
        backend = load_backend(dense)
        vectors = VectorIndex.open(
            workspace.root / INDEX_DIR / f"vectors-{_safe(backend.name)}",
            backend.name,
            backend.dimension,
        )
        sync_vectors(store, backend, vectors)
        channel = DenseChannel(backend, vectors)
    return HybridRetriever(store, lexical, glossary_for(workspace.profile()), channel, reranker)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _versions(store: SQLiteWorkspaceStore) -> dict[str, str]:
    """What a derived index must match per document: its bytes, metadata and mapping, and
    the passages it holds for review (a decision on one re-indexes the document)."""
    held = store.held_locators()
    return {
        d.doc_id: f"{d.content_hash[:16]}-{d.metadata_hash[:8]}-{d.mapping_version}"
        + _held_tag(held.get(d.doc_id, ()))
        for d in store.list_documents()
    }


def _held_tag(locators: tuple[str, ...]) -> str:
    if not locators:
        return ""
    return "-held-" + hashlib.sha256("\n".join(locators).encode("utf-8")).hexdigest()[:8]


def _stale(current: dict[str, str], indexed: dict[str, str]) -> tuple[set[str], set[str]]:
    removed = {d for d in indexed if d not in current or indexed[d] != current[d]}
    added = {d for d in current if indexed.get(d) != current[d]}
    return removed, added


def sync_lexical(store: SQLiteWorkspaceStore, index: LexicalIndex) -> None:
    current = _versions(store)
    removed, added = _stale(current, index.doc_versions())
    if not removed and not added:
        return
    index.delete_documents(removed)
    for doc_id in sorted(added):
        index.add(store.list_chunks(doc_id))
    index.set_doc_versions(current)
    index.commit()


def sync_vectors(
    store: SQLiteWorkspaceStore, backend: EmbeddingBackend, vectors: VectorIndex
) -> None:
    current = _versions(store)
    removed, added = _stale(current, vectors.doc_versions())
    if not removed and not added:
        return
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
    vectors.save()
