"""BM25 over a tantivy inverted index: persistent, incremental, filtered before scoring.

Text is tokenized before tantivy sees it — chunks by the batch (``tokenizer_batch``), a query by
``tokenizer.tokenize``, which yield the same tokens — and indexed as the tokens joined by
spaces in a field whose tantivy analyzer only splits on whitespace. The index keeps term
frequencies but no positions (BM25 needs no more) and stores nothing but the chunk id: a search
never reads chunk text.

Metadata filters (``lexical_filters``: clearance, entities, periods, languages) apply before
the top-k cut and add nothing to a score: they decide *which* chunks are ranked, never *how*.
A search ranks the unfiltered query ``PREFETCH`` deep (tantivy's block-max WAND prunes it) and
keeps the hits the filters admit; when fewer than ``top_k`` are certain to be the best, it runs
the query with the filters as tantivy clauses instead. Both give the same hits.

Scores follow tantivy's BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5)),
corpus statistics over every segment). Deleted chunks still count in N, n and the average
length until their segment is merged, as in Lucene.

A persistent index is a directory: tantivy's files plus ``ragspine-lexical.json``, which holds
the format, the tokenizer mode and the version of every indexed document. Reopening with
another mode is a ``StoreError`` (delete the directory to rebuild): mixing tokenizations would
silently break matching. An index of an older format is derived data: a writer makes it again
(empty, so the caller's sync re-adds every document); a reader finds no usable index.

Only one process writes an index (tantivy's writer lock); ``open_read_only`` gives a searcher
that never takes that lock, so any number of readers run beside the writer. A reader opens
the commit that is current at that moment and sees nothing of later uncommitted writes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import tantivy

from ragspine.errors import StoreError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.lexical_filters import (
    ENTITY,
    LANGUAGE,
    PERIOD,
    SENSITIVITY,
    TAGS,
    UNTAGGED,
    Admission,
    Tags,
    clauses,
    tags_key,
)
from ragspine.retrieval.protocol import RetrievalFilters
from ragspine.retrieval.tokenizer import TokenizerMode, tokenize
from ragspine.retrieval.tokenizer_batch import token_strings
from ragspine.storage.chunks import Chunk

META_FILE = "ragspine-lexical.json"
# The files tantivy makes in an index folder (its metadata, locks, temporary files, segments).
_TANTIVY_FILE = re.compile(
    r"meta\.json|\.managed\.json|\.tantivy-[a-z-]+\.lock|\.tmp\w*|[0-9a-f]{32}\.\w+"
)
# 2: sensitivity and tags are fast fields, entity/period/language stored (post-filtering).
FORMAT_VERSION = 2
# The writer flushes a segment each time its arena fills (the arena grows as it is used, so a
# small ingest never takes it all). Larger means fewer segments, each one's term dictionary
# written once: at a million chunks 600 MB built in 34 s where 256 MB took 51 s, peak RSS
# 765 MB against 583 MB (bench_retrieval.py, 2 cores).
WRITER_HEAP_BYTES = 600_000_000
# How deep an unfiltered search ranks before the filters are checked: at a million chunks
# 160 hits cost what 20 do (block-max WAND), and enough pass most filters.
PREFETCH = 160
_TEXT = "text"
_CHUNK_ID = "chunk_id"
_DOC_ID = "doc_id"


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(_TEXT, tokenizer_name="whitespace", index_option="freq")
    builder.add_bytes_field(_CHUNK_ID, stored=True)
    builder.add_text_field(_DOC_ID, tokenizer_name="raw", index_option="basic")
    for name in (ENTITY, PERIOD, LANGUAGE):
        builder.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    # add_integer_field: add_unsigned_field panics on Python ints in tantivy 0.27.
    builder.add_integer_field(SENSITIVITY, indexed=True, fast=True)
    builder.add_integer_field(TAGS, fast=True)
    return builder.build()


class LexicalIndex:
    """A BM25 index of chunks (open one with ``open``); writes become visible at ``commit()``."""

    def __init__(
        self,
        index: tantivy.Index,
        path: Path | None,
        meta: dict[str, Any],
        *,
        read_only: bool = False,
    ) -> None:
        self._index = index
        self._schema = index.schema
        self._path = path
        self._read_only = read_only
        self._writer: tantivy.IndexWriter | None = None
        self.mode = TokenizerMode.parse(meta["tokenizer"])
        self._committed: dict[str, str] = dict(meta["doc_versions"])
        self._versions = dict(self._committed)
        self._tags: dict[int, Tags] = {}

    @classmethod
    def open(cls, path: Path | None, *, mode: TokenizerMode = TokenizerMode.BIGRAM) -> LexicalIndex:
        """The index in directory ``path`` (created if missing), or in memory for ``None``.

        An index of an older format is made again, empty. Raises ``StoreError`` when the
        directory holds an index built with another tokenizer mode or a newer format, or files
        that are not a lexical index.
        """
        fresh: dict[str, Any] = {"tokenizer": mode.value, "doc_versions": {}}
        if path is None:
            return cls(tantivy.Index(_schema()), None, fresh)
        meta_path = path / META_FILE
        if meta_path.exists() and _format(meta_path) < FORMAT_VERSION:
            shutil.rmtree(path)
        if meta_path.exists():
            meta = _read_meta(meta_path)
            if meta["tokenizer"] != mode.value:
                raise StoreError(
                    f"lexical index {path} was built with tokenizer {meta['tokenizer']!r}, "
                    f"not {mode.value!r}; delete the directory to rebuild it"
                )
            return cls(tantivy.Index.open(str(path)), path, meta)
        if path.exists() and any(path.iterdir()):
            if not all(_TANTIVY_FILE.fullmatch(p.name) for p in path.iterdir()):
                raise StoreError(f"{path} is not empty and holds no lexical index ({META_FILE})")
            # Only tantivy's files and no metadata (written last): a creation cut short by a
            # killed process. The index is derived data; it is made again.
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(), path=str(path), reuse=False)
        _write_meta(meta_path, fresh)
        return cls(index, path, fresh)

    @classmethod
    def open_read_only(
        cls, path: Path, *, mode: TokenizerMode = TokenizerMode.BIGRAM
    ) -> LexicalIndex | None:
        """A searcher over the index in ``path``, or ``None`` when there is no usable index
        there (missing, half-written, or built with another format or tokenizer mode).

        Nothing on disk is created or changed, and writing through it is a ``StoreError``.
        """
        meta_path = path / META_FILE
        if not meta_path.is_file():
            return None
        try:
            meta = _read_meta(meta_path)
            if meta["tokenizer"] != mode.value:
                return None
            return cls(tantivy.Index.open(str(path)), path, meta, read_only=True)
        except (StoreError, ValueError, KeyError):
            return None

    # ------------------------------------------------------------------ writes

    def add(self, chunks: Sequence[Chunk], *, tokens: Sequence[str] | None = None) -> None:
        """Queue chunks for indexing and record ``chunk.version`` as their document's version.

        ``tokens``, when given, holds for each chunk ``" ".join(tokenize(chunk.indexed_text,
        self.mode))`` computed elsewhere (``tokenizer_batch.token_strings``, e.g. in worker
        processes); by default it is computed here, for the whole batch at once. A held chunk
        (``Chunk.held``, instruction-like text awaiting review) is not indexed: no query can
        find it until a reviewer's approval re-indexes its document.
        """
        if not chunks:
            return
        if tokens is None:
            tokens = token_strings([chunk.indexed_text for chunk in chunks], self.mode)
        elif len(tokens) != len(chunks):
            raise ValueError(f"{len(tokens)} token strings for {len(chunks)} chunks")
        # Build every document first, so a bad chunk rejects the batch before any is queued.
        documents = [
            _document(chunk, text)
            for chunk, text in zip(chunks, tokens, strict=True)
            if not chunk.held
        ]
        writer = self._writer_for_update()
        for document in documents:
            writer.add_document(document)
        for chunk in chunks:
            self._versions[chunk.doc_id] = chunk.version

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Queue the removal of every chunk of these documents (chunks added later survive)."""
        for doc_id in doc_ids:
            self._writer_for_update().delete_documents_by_term(_DOC_ID, doc_id)
            self._versions.pop(doc_id, None)

    def set_doc_versions(self, versions: Mapping[str, str]) -> None:
        """Replace the whole ``{doc_id: version}`` map (saved at the next ``commit``).

        For callers whose notion of a document's version is not ``chunk.version``.
        """
        self._versions = dict(versions)

    def commit(self) -> None:
        """Make queued writes durable and visible to ``search``, then save the versions.

        The writer (and tantivy's lock on the directory) is released once background merges
        end, so another ``LexicalIndex`` on the same directory can write next.
        """
        if self._read_only:
            raise StoreError(f"lexical index {self._path} was opened read-only")
        if self._writer is not None:
            self._writer.commit()
            self._writer.wait_merging_threads()
            self._writer = None
        self._committed = dict(self._versions)
        if self._path is not None:
            _write_meta(
                self._path / META_FILE,
                {"tokenizer": self.mode.value, "doc_versions": self._versions},
            )
        self._index.reload()

    def close(self) -> None:
        """Drop uncommitted writes (and version changes) and release the writer lock."""
        self._versions = dict(self._committed)
        if self._writer is not None:
            self._writer.rollback()
            self._writer.wait_merging_threads()
            self._writer = None

    def __enter__(self) -> LexicalIndex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _writer_for_update(self) -> tantivy.IndexWriter:
        if self._read_only:
            raise StoreError(f"lexical index {self._path} was opened read-only")
        if self._writer is None:
            self._writer = self._index.writer(WRITER_HEAP_BYTES)
        return self._writer

    # ------------------------------------------------------------------ reads

    def __len__(self) -> int:
        """Committed chunks, deleted ones excluded."""
        return self._index.searcher().num_docs

    def doc_versions(self) -> dict[str, str]:
        """``{doc_id: version}`` as recorded by ``add`` or ``set_doc_versions``.

        Uncommitted changes are included until ``close`` drops them. A caller syncs
        incrementally by deleting the documents whose version changed (or that are gone) and
        adding the chunks of new or changed ones.
        """
        return dict(self._versions)

    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[tuple[str, float]]:
        """``(chunk_id, bm25 score)`` of the best ``top_k`` allowed chunks, best first."""
        # Query terms are deduplicated: a repeated word in a question is not a stronger signal.
        terms = list(dict.fromkeys(tokenize(query, self.mode)))
        if not terms or top_k <= 0:
            return []
        searcher = self._index.searcher()
        filters = filters or RetrievalFilters()
        text = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, _TEXT, t))
                for t in terms
            ]
        )
        hits = self._post_filtered(searcher, text, top_k, Admission.of(filters, clearance))
        if hits is not None:
            return _top(searcher, hits, top_k)
        # Tied scores come back in segment order, and segments depend on how writer threads
        # split the work: fetch past the cut, deeper while the last hit ties the k-th, and
        # break ties by chunk id, so the same index content always ranks the same way.
        filtered = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, text), *clauses(self._schema, filters, clearance)]
        )
        fetch = 2 * top_k
        found = searcher.search(filtered, fetch, count=False).hits
        while len(found) == fetch and found[-1][0] >= found[top_k - 1][0]:
            fetch *= 4
            found = searcher.search(filtered, fetch, count=False).hits
        return _top(searcher, found, top_k)

    def _post_filtered(
        self, searcher: tantivy.Searcher, text: tantivy.Query, top_k: int, admission: Admission
    ) -> list[tuple[Any, tantivy.DocAddress]] | None:
        """The admitted hits of the unfiltered ranking that certainly hold the filtered top
        ``top_k`` with all their ties, or ``None`` when ``PREFETCH`` hits do not settle it."""
        found = searcher.search(text, max(PREFETCH, 2 * top_k), count=False).hits
        addresses = [address for _, address in found]
        ranks = searcher.fast_field_values(SENSITIVITY, addresses)
        keys = searcher.fast_field_values(TAGS, addresses)
        if None in ranks or None in keys:
            return None
        admitted = [
            hit
            for hit, rank, key in zip(found, ranks, keys, strict=True)
            if admission.admits(int(rank or 0), self._tags_of(key, searcher, hit[1]))
        ]
        if len(found) < max(PREFETCH, 2 * top_k):
            return admitted  # every chunk that matches a term was ranked
        # A hit not fetched scores at most the last one fetched: only admitted hits scoring
        # more are certain, with every tie of theirs among them.
        certain = [hit for hit in admitted if hit[0] > found[-1][0]]
        return certain if len(certain) >= top_k else None

    def _tags_of(self, key: Any, searcher: tantivy.Searcher, address: tantivy.DocAddress) -> Tags:
        """A hit's tags by its key, read from the document store the first time a key is seen."""
        tags = self._tags.get(key)
        if tags is None:
            document = searcher.doc(address)
            tags = Tags.of(document[ENTITY], document[PERIOD], document[LANGUAGE][0])
            self._tags[key] = tags
        return tags


def _top(
    searcher: tantivy.Searcher, found: list[tuple[Any, tantivy.DocAddress]], top_k: int
) -> list[tuple[str, float]]:
    """The best ``top_k`` of ``found`` (best first), ties broken by chunk id.

    Only hits scoring at least the ``top_k``-th score can make the cut, so only theirs are
    loaded from the document store (each load decompresses a block: ~0.1 ms at 1M chunks).
    """
    if len(found) > top_k:
        cut = found[top_k - 1][0]
        found = [hit for hit in found if hit[0] >= cut]
    hits = [(searcher.doc(address)[_CHUNK_ID][0].decode(), score) for score, address in found]
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:top_k]


def _document(chunk: Chunk, tokens: str) -> tantivy.Document:
    document = tantivy.Document()
    document.add_text(_TEXT, tokens)
    document.add_bytes(_CHUNK_ID, chunk.chunk_id.encode())
    document.add_text(_DOC_ID, chunk.doc_id)
    for entity in chunk.entities or (UNTAGGED,):
        document.add_text(ENTITY, entity)
    for period in chunk.periods or (UNTAGGED,):
        document.add_text(PERIOD, period)
    document.add_text(LANGUAGE, chunk.language)
    document.add_integer(SENSITIVITY, Sensitivity.parse(chunk.sensitivity).rank)
    document.add_integer(TAGS, tags_key(chunk.entities, chunk.periods, chunk.language))
    return document


def is_current(path: Path) -> bool:
    """Whether directory ``path`` holds a lexical index of this format (any tokenizer mode)."""
    meta_path = path / META_FILE
    return meta_path.is_file() and _format(meta_path) == FORMAT_VERSION


def _format(meta_path: Path) -> int:
    """The format an index's metadata names; 0 when it cannot be read."""
    try:
        found = json.loads(meta_path.read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        return 0
    return found if isinstance(found, int) else 0


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read lexical index metadata {path}: {exc}") from exc
    if meta.get("format") != FORMAT_VERSION:
        raise StoreError(
            f"lexical index {path.parent} has format {meta.get('format')!r}, "
            f"expected {FORMAT_VERSION}; delete the directory to rebuild it"
        )
    return meta


def _write_meta(path: Path, meta: dict[str, Any]) -> None:
    """Write atomically, so a crash leaves the previous metadata rather than half a file."""
    temporary = path.with_suffix(".tmp")
    payload = {"format": FORMAT_VERSION, **meta}
    temporary.write_text(json.dumps(payload, ensure_ascii=False, sort_keys=True), "utf-8")
    os.replace(temporary, path)
