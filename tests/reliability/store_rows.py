"""What a store holds, document by document, in a form two runs can be compared by: the rows
each document contributes (manifest, facts, text blocks, chunks, review items, document audit)
with the columns that differ between two honest runs (timestamps, review item ids, where the
file was read from) normalised, read through ``WorkspaceStoreProtocol`` so a SQLite workspace
and a PostgreSQL schema are read alike. Also the checks for what a crash may leave on disk.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import asdict
from pathlib import Path, PurePath
from typing import Any

from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retriever import document_versions, lexical_path
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.workspace import DB_NAME, Workspace

# Columns whose value differs between two clean runs of the same input.
_VOLATILE = frozenset({"ingested_at", "created_at", "resolved_at", "item_id", "at"})

Rows = dict[str, Any]
DocumentRows = dict[str, tuple[Rows, ...]]


def _row(value: object) -> Rows:
    row = {k: v for k, v in asdict(value).items() if k not in _VOLATILE}  # type: ignore[call-overload]
    if "source_path" in row:
        # An upload is stored under a fresh batch folder each time: its name is what counts.
        row["source_path"] = PurePath(row["source_path"]).name
    return row


def document_rows(store: WorkspaceStoreProtocol) -> dict[str, DocumentRows]:
    """Every document's rows, normalised: ``{doc_id: {table: rows}}``."""
    with store.snapshot():
        documents = store.list_documents()
        facts = store.list_facts()
        review = store.list_review(None)
        out: dict[str, DocumentRows] = {}
        doc_ids = {d.doc_id for d in documents} | {f.source_doc_id for f in facts}
        doc_ids |= {r.doc_id for r in review}
        by_id = {d.doc_id: d for d in documents}
        for doc_id in sorted(doc_ids):
            manifest = by_id.get(doc_id)
            out[doc_id] = {
                "document": (_row(manifest),) if manifest is not None else (),
                "facts": tuple(_row(f) for f in facts if f.source_doc_id == doc_id),
                "blocks": tuple(_row(b) for b in store.list_blocks(doc_id)),
                "chunks": tuple(_row(c) for c in store.list_chunks(doc_id)),
                "review": tuple(_row(r) for r in review if r.doc_id == doc_id),
                "audit": tuple(_row(a) for a in store.document_audit(doc_id)),
            }
    return out


def workspace_rows(root: Path) -> dict[str, DocumentRows]:
    """:func:`document_rows` of a workspace folder; ``{}`` when the command was killed before
    it made the store."""
    if not (root / DB_NAME).is_file():
        return {}
    with Workspace.open(root).fact_store() as store:
        return document_rows(store)


def half_documents(found: dict[str, DocumentRows], *versions: dict[str, DocumentRows]) -> list[str]:
    """The documents of ``found`` that equal none of their versions in ``versions`` (each a
    clean run's rows): a document must be whole — one clean version — or absent."""
    return sorted(
        doc_id
        for doc_id, rows in found.items()
        if not any(rows == version.get(doc_id) for version in versions)
    )


def difference(found: DocumentRows | None, expected: DocumentRows | None) -> str:
    """Which tables of one document differ, and how, for an anomaly's message."""
    parts = []
    for table in sorted((found or {}).keys() | (expected or {}).keys()):
        mine, theirs = (found or {}).get(table, ()), (expected or {}).get(table, ())
        if mine != theirs:
            extra = [r for r in mine if r not in theirs][:2]
            missing = [r for r in theirs if r not in mine][:2]
            parts.append(
                f"{table}: {len(mine)} rows vs {len(theirs)}; extra {extra}; missing {missing}"
            )
    return "; ".join(parts)


def index_matches_store(root: Path) -> bool:
    """Whether the workspace's search index holds exactly the store's documents, at their
    stored versions, and each one's chunks."""
    workspace = Workspace.open(root)
    index = LexicalIndex.open_read_only(lexical_path(workspace))
    if index is None:
        return False
    with index, workspace.fact_store(read_only=True) as store:
        return index.doc_versions() == document_versions(store) and len(index) == len(
            store.list_chunks()
        )


def held_locks(folder: Path) -> list[str]:
    """Lock files under ``folder`` some process still holds (a dead one's flock is free)."""
    held = []
    for path in sorted(folder.rglob("*.lock")):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(str(path.relative_to(folder)))
        finally:
            os.close(fd)
    return held


def partial_files(folder: Path) -> list[str]:
    """Files under ``folder`` a writer names while it writes them (upload parts, temporary
    files): none may outlive the writer."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.name.startswith((".part-", "tmp")) or p.suffix in (".tmp", ".partial")
    )
