"""Syncing many documents into a ``LexicalIndex`` a few thousand chunks at a time.

``LexicalIndex.add`` tokenizes a batch in one call (``tokenizer_batch``), which a document's
dozen chunks would not repay; here the next batch is tokenized on a worker thread while the
current one is indexed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.tokenizer_batch import token_strings
from ragspine.storage.chunks import Chunk

# Chunks per ``add`` when syncing many documents: enough to repay a batched tokenization.
ADD_BATCH = 5_000


def add_in_batches(index: LexicalIndex, documents: Iterable[Sequence[Chunk]]) -> None:
    """Add the chunks of many documents a few thousand at a time: ``add`` tokenizes a batch
    in one call (``tokenizer_batch``), which a document's dozen chunks would not repay.

    From the second batch on, the next batch is tokenized on a worker thread while the current
    one is indexed (polars releases the interpreter while it works), so tokenizing, building
    documents and tantivy's own indexing threads keep both cores of a small machine busy
    (bench_retrieval.py: a million chunks built in about a fifth less time). ``documents`` is
    read on the calling thread only.
    """
    batches = _batches(documents)
    first = next(batches, None)
    if first is None:
        return
    second = next(batches, None)
    if second is None:
        index.add(first)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragspine-tokenize") as pool:

        def tokenized(batch: list[Chunk]) -> Future[list[str]]:
            return pool.submit(token_strings, [c.indexed_text for c in batch], index.mode)

        current, tokens = first, tokenized(first)
        for following in itertools.chain((second,), batches):
            upcoming = tokenized(following)
            index.add(current, tokens=tokens.result())
            current, tokens = following, upcoming
        index.add(current, tokens=tokens.result())


def _batches(documents: Iterable[Sequence[Chunk]]) -> Iterator[list[Chunk]]:
    """The documents' chunks in lists of at least ``ADD_BATCH`` (the last may be shorter)."""
    batch: list[Chunk] = []
    for chunks in documents:
        batch += chunks
        if len(batch) >= ADD_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
