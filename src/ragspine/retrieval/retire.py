"""Retire documents from a workspace's derived indexes (BM25 and every saved vector set).

The indexes follow the store on their own — opening a retriever syncs them with the manifest —
but a pruned, renamed or removed document's passages should not wait on disk for the next
question: this drops them as soon as the store has let the document go.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from ragspine.retrieval import lexical, vectors
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retriever import INDEX_DIR
from ragspine.retrieval.vectors import VectorIndex
from ragspine.workspace import Workspace


def forget_documents(workspace: Workspace, doc_ids: Collection[str]) -> None:
    """Delete every indexed chunk and vector of ``doc_ids`` (indexes not built are skipped)."""
    if not doc_ids:
        return
    root = workspace.root / INDEX_DIR
    if (root / "lexical" / lexical.META_FILE).is_file():
        index = LexicalIndex.open(root / "lexical")
        index.delete_documents(doc_ids)
        index.commit()
    for folder in sorted(root.glob("vectors-*")):
        _forget_vectors(folder, doc_ids)


def _forget_vectors(folder: Path, doc_ids: Collection[str]) -> None:
    meta_path = folder / vectors.META_FILE
    if not meta_path.is_file():
        return
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    index = VectorIndex.open(folder, meta["backend"], int(meta["dimension"]), engine=meta["engine"])
    index.delete_documents(doc_ids)
    index.save()
