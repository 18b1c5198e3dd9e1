"""The rows a read document is stored as: its facts, text blocks, chunks and review items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

from ragspine.ingestion.conflicts import check_conflicts, set_aside_hidden
from ragspine.ingestion.discovery import SourceFile
from ragspine.ingestion.file_metadata import decide
from ragspine.ingestion.instructions import describe, find_instructions
from ragspine.ingestion.model import HIDDEN_MARK, ExtractedDocument
from ragspine.ingestion.safety import WorkBudget
from ragspine.ingestion.sensitivity import SensitivityDecision, content_sensitivity
from ragspine.ingestion.tables import (
    CandidateFact,
    ReviewCandidate,
    ReviewReason,
    map_table,
)
from ragspine.profile.glossary import ENTITY, Glossary
from ragspine.profile.matching import detect_language, mask
from ragspine.profile.periods import find_periods
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.chunking import chunk_blocks
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import CLEARANCE_CONFLICT, ReviewItem, TextBlockRow
from ragspine.storage.facts import Fact
from ragspine.storage.protocol import WorkspaceStoreProtocol


@dataclass
class Built:
    sensitivity: SensitivityDecision
    facts: list[Fact]
    blocks: list[TextBlockRow]
    review: list[ReviewItem]
    chunks: list[Chunk]
    # Conflicts with facts above the writer's clearance: never counted in the result.
    above: list[ReviewItem] = field(default_factory=list)
    # Of those, the ones that held their fact back: counted as facts, as if stored.
    withheld: int = 0
    # Figures read from hidden content that a visible statement of their key overrules.
    set_aside: list[CandidateFact] = field(default_factory=list)


def build(
    source: SourceFile,
    document: ExtractedDocument,
    glossary: Glossary,
    metadata: dict[str, object],
    store: WorkspaceStoreProtocol,
    content_hash: str,
    version: str,
    replaced: str,
    budget: WorkBudget,
    clearance: Sensitivity = Sensitivity.RESTRICTED,
    *,
    extractor: str,
) -> Built:
    """A document's rows; each fact records ``extractor``, the readers' version without the
    ``+hidden`` mark its document record may carry — unless the fact was read from a hidden
    cell, which it then records with the mark."""
    profile = glossary.profile
    text = "\n".join(
        [b.text for b in document.blocks]
        + [c.text for t in document.tables for row in t.cells for c in row]
    )
    decision = decide(content_sensitivity(source.path.name, text, profile), metadata)
    level = decision.level
    title = _doc_title(document, source)
    candidates: list[CandidateFact] = []
    pending: list[ReviewCandidate] = []
    for table in document.tables:
        budget.tick(f"table {table.locator_prefix}")
        mapped = map_table(table, glossary, title)
        candidates += mapped.facts
        pending += mapped.review
    for issue in document.issues:
        reason = (
            ReviewReason.NEEDS_OCR if "ocr" in issue.reason.lower() else ReviewReason.UNREADABLE
        )
        pending.append(ReviewCandidate(issue.locator, reason, issue.reason))
    own = {source.doc_id, replaced}
    candidates, set_aside = set_aside_hidden(own, candidates, store, clearance)
    accepted, conflicts = check_conflicts(own, candidates, store, clearance, level)

    def as_fact(candidate: CandidateFact) -> Fact:
        entity = profile.entity(candidate.entity)
        return Fact(
            candidate.metric_code,
            candidate.entity,
            entity.geography if entity else "",
            candidate.channel,
            candidate.period.type,
            candidate.period.period,
            candidate.value,
            candidate.unit,
            source.doc_id,
            candidate.locator,
            sensitivity=level.value,
            source_file_hash=content_hash,
            extractor_version=f"{extractor}{HIDDEN_MARK}" if candidate.hidden else extractor,
            mapping_version=version,
            row_label=candidate.row_label,
        )

    def as_item(p: ReviewCandidate, sensitivity: Sensitivity) -> ReviewItem:
        return ReviewItem(
            doc_id=source.doc_id,
            locator=p.locator,
            reason=p.reason.value,
            detail=p.detail,
            proposed=_proposal(as_fact(p.fact)) if p.fact else None,
            sensitivity=sensitivity.value,
        )

    # A conflict item mentions another document too: it is as sensitive as the more sensitive.
    review = [as_item(p, level) for p in pending] + [
        as_item(c.candidate, Sensitivity.highest(level, c.mentions))
        for c in conflicts
        if not c.above
    ]
    above = [
        replace(
            as_item(c.candidate, Sensitivity.highest(level, c.mentions)),
            reason=CLEARANCE_CONFLICT if c.stored else ReviewReason.CONFLICT.value,
        )
        for c in conflicts
        if c.above
    ]
    withheld = sum(1 for c in conflicts if c.above and not c.stored)
    blocks = [
        _block_row(
            source.doc_id, i, block.locator, block.kind, block.title, block.text, level, glossary
        )
        for i, block in enumerate(document.blocks)
        if block.text.strip()
    ]
    held = _held_passages(blocks, level)
    review += held
    title_entities = _block_row(source.doc_id, 0, "-", "title", "", title, level, glossary)
    chunks = chunk_blocks(
        blocks,
        version=content_hash[:12],
        document_entities=title_entities.entities,
        isolated=frozenset(item.locator for item in held),
    )
    facts = [as_fact(c) for c in accepted]
    return Built(decision, facts, blocks, review, chunks, above, withheld, set_aside)


def _held_passages(blocks: Sequence[TextBlockRow], level: Sensitivity) -> list[ReviewItem]:
    """One ``suspicious_instruction`` item per block holding instruction-like text.

    The item's locator is the block's; chunking keeps such a block in chunks of its own, so
    the store can hold exactly those chunks (``Chunk.held``) until a reviewer approves.
    """
    items: list[ReviewItem] = []
    for block in blocks:
        hits = find_instructions(block.text)
        if hits:
            items.append(
                ReviewItem(
                    doc_id=block.doc_id,
                    locator=block.locator,
                    reason=ReviewReason.SUSPICIOUS_INSTRUCTION.value,
                    detail=describe(hits),
                    sensitivity=level.value,
                )
            )
    return items


def _proposal(fact: Fact) -> dict[str, object]:
    return {k: v for k, v in asdict(fact).items() if k not in ("review_status", "ingested_at")}


def _doc_title(document: ExtractedDocument, source: SourceFile) -> str:
    if document.title:
        return document.title
    for block in document.blocks:
        if block.kind in ("title", "heading") and block.text.strip():
            return block.text.strip().splitlines()[0]
    return source.path.stem


def _block_row(
    doc_id: str,
    position: int,
    locator: str,
    kind: str,
    title: str,
    text: str,
    level: Sensitivity,
    glossary: Glossary,
) -> TextBlockRow:
    """A block with the entities and periods it mentions, for retrieval's metadata filters."""
    both = f"{title}\n{text}"
    masked = mask(both, ((h.start, h.end) for h in glossary.competitors.finditer(both)))
    entities = tuple(
        dict.fromkeys(h.code for h in glossary.match_terms(masked).hits if h.kind == ENTITY)
    )
    periods = tuple(
        dict.fromkeys(
            p.period.label
            for p in find_periods(masked, calendar=glossary.calendar)
            if not p.relative
        )
    )
    return TextBlockRow(
        doc_id,
        position,
        locator,
        kind,
        title,
        text,
        level.value,
        detect_language(text),
        entities,
        periods,
    )
