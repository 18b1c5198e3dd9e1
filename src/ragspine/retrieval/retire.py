"""Retire documents from a workspace's saved vector sets without loading their model.

A vector set is embedded by one backend, which a later command may not be able to load (the
``dense`` extra is optional): dropping a pruned, renamed or removed document's vectors needs
only the set's own metadata.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from ragspine.retrieval import vectors
from ragspine.retrieval.vectors import VectorIndex


def saved_doc_ids(folder: Path) -> set[str]:
    """The documents a saved vector set holds (none when the folder holds no set)."""
    meta_path = folder / vectors.META_FILE
    if not meta_path.is_file():
        return set()
    return set(json.loads(meta_path.read_text(encoding="utf-8"))["doc_versions"])


def forget_vectors(folder: Path, doc_ids: Collection[str]) -> None:
    """Delete every saved vector of ``doc_ids`` from the set in ``folder``."""
    meta_path = folder / vectors.META_FILE
    if not doc_ids or not meta_path.is_file():
        return
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    index = VectorIndex.open(folder, meta["backend"], int(meta["dimension"]), engine=meta["engine"])
    index.delete_documents(doc_ids)
    index.save()
