"""The writer's side of the derived indexes: bring them in line with the store after a write.

Called by the commands that change a workspace's documents (ingest, review decisions,
``documents remove``) while they hold the workspace's write lock, so one process at a time
takes tantivy's writer lock and questions only ever read (``retriever.open_retriever``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ragspine.retrieval.embedding import load_backend
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retire import forget_vectors, saved_doc_ids
from ragspine.retrieval.retriever import (
    INDEX_DIR,
    document_versions,
    lexical_path,
    update_lexical,
    update_vectors,
    vectors_path,
)
from ragspine.retrieval.vectors import VectorIndex
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.workspace import Workspace


def refresh_indexes(
    workspace: Workspace, store: SQLiteWorkspaceStore, *, dense: str | None = None
) -> None:
    """Update the BM25 index to the store's documents (building it if missing), drop gone
    documents from every saved vector set, and with ``dense`` (an embedding spec) embed and
    save that backend's set too."""
    with store.snapshot():
        current = document_versions(store)
    with LexicalIndex.open(lexical_path(workspace)) as lexical:
        if update_lexical(store, lexical, current):
            lexical.commit()
    for folder in sorted((workspace.root / INDEX_DIR).glob("vectors-*")):
        forget_vectors(folder, saved_doc_ids(folder) - current.keys())
    if dense:
        backend = load_backend(dense)
        vectors = VectorIndex.open(
            vectors_path(workspace, backend.name), backend.name, backend.dimension
        )
        if update_vectors(store, backend, vectors, current):
            vectors.save()


@contextmanager
def writing(
    workspace: Workspace, *, on_wait: Callable[[], None] | None = None
) -> Iterator[SQLiteWorkspaceStore]:
    """The workspace's store under its write lock, the indexes refreshed when the block ends
    without an error (a review decision on a held passage changes what may be found).

    ``on_wait`` is called once if another writer holds the lock (see ``Workspace.write_lock``).
    """
    with workspace.write_lock(on_wait=on_wait), workspace.fact_store() as store:
        yield store
        refresh_indexes(workspace, store)
