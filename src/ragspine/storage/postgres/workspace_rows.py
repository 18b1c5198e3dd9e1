"""How the workspace store's tables map to Python: the column lists its statements name, and
the rows of text blocks, chunks and review items turned into tuples and back."""

from __future__ import annotations

from typing import Any

from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    SUSPICIOUS_INSTRUCTION,
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
# Held while a suspicious_instruction item on the passage is not approved: derived on every
# read, as in SQLite, so a decision takes effect at once.
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
REVIEW_MARKS = ", ".join("%s" for _ in REVIEW_INSERT.split(","))


def marks(count: int) -> str:
    """The placeholders of an ``INSERT`` of ``count`` columns."""
    return ", ".join("%s" for _ in range(count))


def block_row(block: TextBlockRow) -> tuple[object, ...]:
    return (
        block.doc_id,
        block.position,
        block.locator,
        block.kind,
        block.title,
        block.text,
        block.sensitivity,
        block.language,
        list(block.entities),
        list(block.periods),
    )


def block_from_row(row: tuple[Any, ...]) -> TextBlockRow:
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
        entities=tuple(entities),
        periods=tuple(periods),
    )


def chunk_row(chunk: Chunk) -> tuple[object, ...]:
    return (
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.title,
        chunk.text,
        list(chunk.entities),
        list(chunk.periods),
        chunk.language,
        chunk.sensitivity,
        chunk.version,
    )


def chunk_from_row(row: tuple[Any, ...]) -> Chunk:
    chunk_id, doc_id, locator, title, text, entities, periods, language, sens, version, held = row
    return Chunk(
        chunk_id,
        doc_id,
        locator,
        title,
        text,
        tuple(entities),
        tuple(periods),
        language,
        sens,
        version,
        bool(held),
    )


def review_from_row(row: tuple[Any, ...]) -> ReviewItem:
    item_id, doc_id, locator, reason, detail, proposed, state, sens, created, resolved, fixed = row
    return ReviewItem(
        doc_id=str(doc_id),
        locator=str(locator),
        reason=str(reason),
        detail=str(detail),
        proposed=dict(proposed) if proposed is not None else None,
        item_id=int(item_id),
        state=ReviewState(str(state)),
        sensitivity=str(sens),
        created_at=str(created),
        resolved_at=str(resolved),
        corrected_value=float(fixed) if fixed is not None else None,
    )
