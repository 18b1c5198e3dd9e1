"""How the embedded workspace store writes its records as SQLite rows and reads them back
(entities and periods as comma-joined text, a proposal as JSON text); the PostgreSQL store's
counterpart is ``storage/postgres/workspace_rows.py``."""

from __future__ import annotations

import json
from typing import Any

from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import (
    DocumentRecord,
    ReviewItem,
    ReviewState,
    TextBlockRow,
)


def json_text(value: dict[str, object] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def doc_values(record: DocumentRecord) -> tuple[object, ...]:
    """The manifest columns a record brings itself, ``doc_id`` to ``mapping_version``."""
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
    )


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
        ",".join(block.entities),
        ",".join(block.periods),
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
        entities=tuple(filter(None, str(entities).split(","))),
        periods=tuple(filter(None, str(periods).split(","))),
    )


def chunk_row(chunk: Chunk) -> tuple[object, ...]:
    return (
        chunk.chunk_id,
        chunk.doc_id,
        chunk.locator,
        chunk.title,
        chunk.text,
        ",".join(chunk.entities),
        ",".join(chunk.periods),
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
        tuple(filter(None, str(entities).split(","))),
        tuple(filter(None, str(periods).split(","))),
        language,
        sens,
        version,
        bool(held),
    )


def review_from_row(row: tuple[object, ...]) -> ReviewItem:
    item_id, doc_id, locator, reason, detail, proposed, state, sens, created, resolved, fixed = row
    return ReviewItem(
        doc_id=str(doc_id),
        locator=str(locator),
        reason=str(reason),
        detail=str(detail),
        proposed=json.loads(str(proposed)) if proposed else None,
        item_id=int(str(item_id)),
        state=ReviewState(str(state)),
        sensitivity=str(sens),
        created_at=str(created),
        resolved_at=str(resolved),
        corrected_value=float(str(fixed)) if fixed is not None else None,
    )
