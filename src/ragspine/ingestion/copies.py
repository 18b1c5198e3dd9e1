"""Identical bytes under another name: a copy adds no second set of review items.

The same file uploaded again under another name (or copied to a second folder) would put every
review item in the queue twice — the same cell to decide twice. A document whose bytes equal
those of a document already holding its review items is stored without them: its facts and
passages stay (retrieval folds a passage's copies into one passage citing each file once, and a
fact's key answers once), except a passage held for review in the original, which the copy
leaves out rather than release unreviewed. Its sensitivity still counts (every copy of one
content is raised to the highest level any copy has, see ``storage.workspace_writes.level_copies``
and its PostgreSQL counterpart), and the ingest warns which document holds the review items.
When that document is retired, the copy is read again on its next ingest (``ragspine documents
remove`` does it at once) and holds them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    SUSPICIOUS_INSTRUCTION,
    DocumentRecord,
    ReviewItem,
    TextBlockRow,
)
from ragspine.storage.protocol import WorkspaceStoreProtocol


def copy_note(original: str) -> str:
    """The warning a copy's ingest gives."""
    return f"same content as {original}: its review items are not queued twice (see {original})"


@dataclass(frozen=True)
class DocumentRows:
    """What a document stores besides its facts."""

    record: DocumentRecord
    review: list[ReviewItem]
    blocks: list[TextBlockRow]
    chunks: list[Chunk]
    warnings: tuple[str, ...] = ()


def as_copy(
    record: DocumentRecord,
    review: Sequence[ReviewItem],
    blocks: Sequence[TextBlockRow],
    chunks: Sequence[Chunk],
    original: str | None,
) -> DocumentRows:
    """The rows a document stores: all of them, or a copy's (``original`` named) — no review
    items, and no passage an item would have held."""
    if original is None:
        return DocumentRows(record, list(review), list(blocks), list(chunks))
    held = {i.locator for i in review if i.reason == SUSPICIOUS_INSTRUCTION}
    return DocumentRows(
        replace(record, mapping_version=copy_version(record.mapping_version)),
        [],
        [b for b in blocks if b.locator not in held],
        [c for c in chunks if c.locator not in held],
        (copy_note(original),),
    )


class Copies:
    """The documents of one ingest batch by content hash, kept current as files are stored."""

    def __init__(self, store: WorkspaceStoreProtocol) -> None:
        self._holders: dict[str, dict[str, bool]] = {}
        for record in store.list_documents():
            self.stored(record)

    def stored(self, record: DocumentRecord, *, holds_rows: bool | None = None) -> None:
        """Note ``record`` as written (``holds_rows``: whether its rows were stored)."""
        for holders in self._holders.values():
            holders.pop(record.doc_id, None)
        rows = not is_copy(record) and record.n_facts + record.n_blocks + record.n_review > 0
        self._holders.setdefault(record.content_hash, {})[record.doc_id] = (
            rows if holds_rows is None else holds_rows
        )

    def removed(self, doc_id: str) -> None:
        for holders in self._holders.values():
            holders.pop(doc_id, None)

    def original(self, content_hash: str, *names: str) -> str | None:
        """The first document (by id) other than ``names`` that holds the rows of these
        bytes; ``None`` when none does."""
        holders = self._holders.get(content_hash, {})
        found = sorted(d for d, rows in holders.items() if rows and d not in names)
        return found[0] if found else None


# A copy's manifest row records the mapping version with this mark, so a later ingest knows
# it holds no rows of its own.
_COPY_MARK = "+copy"


def copy_version(version: str) -> str:
    return f"{version}{_COPY_MARK}"


def recorded_version(record: DocumentRecord) -> str:
    """The mapping version ``record`` was read with, a copy's mark removed."""
    return record.mapping_version.removesuffix(_COPY_MARK)


def is_copy(record: DocumentRecord) -> bool:
    return record.mapping_version.endswith(_COPY_MARK)


def orphaned_copies(store: WorkspaceStoreProtocol, content_hash: str) -> list[DocumentRecord]:
    """The copies of ``content_hash`` left holding no review items when no document holding
    them remains: what to read again after retiring a document."""
    same = [d for d in store.list_documents() if d.content_hash == content_hash]
    if any(not is_copy(d) for d in same):
        return []
    return same
