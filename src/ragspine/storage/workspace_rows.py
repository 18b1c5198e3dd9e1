"""How the workspace stores' tables map to Python, for both backends: the column lists their
statements name, and the rows of documents, text blocks, chunks and review items turned into
tuples and back (lists of names and JSON as each backend's :class:`Dialect` stores them)."""

from __future__ import annotations

from typing import Any

from ragspine.storage.chunks import Chunk
from ragspine.storage.dialect import Dialect
from ragspine.storage.documents import (
    SUSPICIOUS_INSTRUCTION,
    DocumentRecord,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)

DOC_COLUMNS = (
    "doc_id, source_path, content_hash, metadata_hash, size_bytes, kind, sensitivity, "
    "extractor_version, mapping_version, ingested_at, n_facts, n_blocks, n_review, "
    "content_sensitivity, n_hidden"
)
BLOCK_COLUMNS = (
    "doc_id, position, locator, kind, title, text, sensitivity, language, entities, periods"
)
CHUNK_COLUMNS = (
    "chunk_id, doc_id, locator, title, text, entities, periods, language, sensitivity, version"
)
# A chunk is held while a suspicious_instruction item on its passage is not approved. Derived
# on every read rather than stored, so a decision takes effect at once and the schema stays.
_HELD = (
    "EXISTS (SELECT 1 FROM review_items r WHERE r.doc_id = chunks.doc_id AND "
    f"r.locator = chunks.locator AND r.reason = '{SUSPICIOUS_INSTRUCTION}' AND "
    f"r.state <> '{ReviewState.APPROVED.value}')"
)
CHUNK_SELECT = f"{CHUNK_COLUMNS}, {_HELD}"
REVIEW_INSERT = (
    "doc_id, locator, reason, detail, proposed, state, sensitivity, created_at, resolved_at, "
    "corrected_value"
)
REVIEW_COLUMNS = f"item_id, {REVIEW_INSERT}"


def manifest_row(
    record: DocumentRecord, now: str, n_facts: int, n_blocks: int, n_review: int
) -> tuple[object, ...]:
    """A document's manifest row, in ``DOC_COLUMNS`` order."""
    return (
        record.doc_id,
        record.source_path,
        record.content_hash,
        record.metadata_hash,
        record.size_bytes,
        record.kind,
        record.sensitivity,
        record.extractor_version,
        record.mapping_version,
        record.ingested_at or now,
        n_facts,
        n_blocks,
        n_review,
        record.content_sensitivity,
        record.n_hidden,
    )


def block_row(dialect: Dialect, block: TextBlockRow) -> tuple[object, ...]:
    return (
        block.doc_id,
        block.position,
        block.locator,
        block.kind,
        block.title,
        block.text,
        block.sensitivity,
        block.language,
        dialect.pack_names(block.entities),
        dialect.pack_names(block.periods),
    )


def block_from_row(dialect: Dialect, row: tuple[Any, ...]) -> TextBlockRow:
    doc_id, position, locator, kind, title, text, sensitivity, language, entities, periods = row
    return TextBlockRow(
        doc_id,
        position,
        locator,
        kind,
        title,
        text,
        sensitivity,
        language,
        entities=dialect.unpack_names(entities),
        periods=dialect.unpack_names(periods),
    )


def chunk_row(dialect: Dialect, chunk: Chunk) -> tuple[object, ...]:
    return (
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.title,
        chunk.text,
        dialect.pack_names(chunk.entities),
        dialect.pack_names(chunk.periods),
        chunk.language,
        chunk.sensitivity,
        chunk.version,
    )


def chunk_from_row(dialect: Dialect, row: tuple[Any, ...]) -> Chunk:
    chunk_id, doc_id, locator, title, text, entities, periods, language, sens, version, held = row
    return Chunk(
        chunk_id,
        doc_id,
        locator,
        title,
        text,
        dialect.unpack_names(entities),
        dialect.unpack_names(periods),
        language,
        sens,
        version,
        bool(held),
    )


def review_row(dialect: Dialect, item: ReviewItem, doc_id: str, now: str) -> tuple[object, ...]:
    """An item's row in ``REVIEW_INSERT`` order (a new item is created ``now``)."""
    return (
        doc_id,
        item.locator,
        item.reason,
        item.detail,
        dialect.pack_json(item.proposed),
        item.state.value,
        item.sensitivity,
        item.created_at or now,
        item.resolved_at,
        item.corrected_value,
    )


def review_from_row(dialect: Dialect, row: tuple[Any, ...]) -> ReviewItem:
    item_id, doc_id, locator, reason, detail, proposed, state, sens, created, resolved, fixed = row
    return ReviewItem(
        doc_id=str(doc_id),
        locator=str(locator),
        reason=str(reason),
        detail=str(detail),
        proposed=dialect.unpack_json(proposed),
        item_id=int(item_id),
        state=ReviewState(str(state)),
        sensitivity=str(sens),
        created_at=str(created),
        resolved_at=str(resolved),
        corrected_value=float(fixed) if fixed is not None else None,
    )
