"""Ingest files into a workspace: read → map tables to facts → check conflicts → store.

Each file is handled alone: whatever goes wrong reading or mapping it — a corrupt file, a limit
exceeded, a library's surprise — fails that file with a message naming it and the reason, and
the rest of the batch goes on; only a store that cannot be written stops the batch. A file
whose bytes, metadata sidecar, extractor and mapping (profile) are all unchanged is skipped;
changed metadata alone is re-applied without re-reading the file; a changed file replaces
everything its previous version contributed in one transaction, keeping the review decisions
on items that did not change.

A folder is compared with what was ingested from it before: a new file with the bytes of a
document that vanished from the folder is that document renamed (it moves, in one
transaction); the documents still missing are reported, or retired with ``prune``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from ragspine.errors import IngestError, StoreError, UsageError
from ragspine.ingestion.instructions import describe, find_instructions
from ragspine.ingestion.isolation import library_notes
from ragspine.ingestion.model import ExtractedDocument
from ragspine.ingestion.readers import SUPPORTED_SUFFIXES, reader_for
from ragspine.ingestion.readers.boundary import describe as describe_error
from ragspine.ingestion.review import carry_over
from ragspine.ingestion.safety import SafetyLimits, WorkBudget, check_file
from ragspine.ingestion.sensitivity import (
    SensitivityDecision,
    content_sensitivity,
    decide_sensitivity,
)
from ragspine.ingestion.tables import (
    CandidateFact,
    ReviewCandidate,
    ReviewReason,
    map_table,
)
from ragspine.profile.glossary import ENTITY, Glossary, glossary_for
from ragspine.profile.matching import detect_language, mask
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import find_periods
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.chunking import chunk_blocks
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import DocumentRecord, ReviewItem, TextBlockRow
from ragspine.storage.facts import Fact
from ragspine.storage.protocol import WorkspaceStoreProtocol

# Bumped whenever the readers extract more or differently, so unchanged files already in a
# workspace are read again on the next ingest. 2: chart values, OCR'd scans, borderless and
# multi-column PDF pages, Word headers/footers/text boxes, titles above a sheet's grid,
# year-like values and unreadable cells, relative-period headers. 3: instruction-like passages
# held for review.
EXTRACTOR_VERSION = "3"
METADATA_SUFFIX = ".meta.json"


class Outcome(StrEnum):
    INGESTED = "ingested"
    SKIPPED = "skipped"
    METADATA = "metadata updated"
    RENAMED = "renamed"
    FAILED = "failed"


# What a file that read without error but yielded nothing is told.
NOTHING_FOUND = "no text or figures found"
# What the per-file boundary says of an exception no reader turned into a reason: a library's
# surprise the fuzzer (tests/reliability/test_reader_fuzz.py) counts as a crash to fix.
UNEXPECTED = "could not be read"


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest; ``problem`` says why something found in a folder cannot be (a named
    pipe, a sub-folder that cannot be listed), so it fails by name instead of vanishing."""

    doc_id: str
    path: Path
    problem: str = ""


@dataclass(frozen=True)
class FileResult:
    doc_id: str
    outcome: Outcome
    facts: int = 0
    blocks: int = 0
    review: int = 0
    error: str = ""
    renamed_from: str = ""
    decisions_kept: int = 0
    sensitivity: str = ""
    # An applied ``sensitivity_override``, or a lower sidecar level ignored without one.
    sensitivity_note: str = ""
    warnings: tuple[str, ...] = ()


@dataclass
class IngestReport:
    results: list[FileResult] = field(default_factory=list)
    dry_run: bool = False
    folders: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # ingested from the folders, now gone
    pruned: list[str] = field(default_factory=list)  # those, retired by ``prune``

    def count(self, outcome: Outcome) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def facts(self) -> int:
        return sum(r.facts for r in self.results)

    @property
    def blocks(self) -> int:
        return sum(r.blocks for r in self.results)

    @property
    def review(self) -> int:
        return sum(r.review for r in self.results)

    @property
    def failures(self) -> list[FileResult]:
        return [r for r in self.results if r.outcome == Outcome.FAILED]

    @property
    def sensitivity_notes(self) -> list[FileResult]:
        return [r for r in self.results if r.sensitivity_note]

    @property
    def warned(self) -> list[FileResult]:
        return [r for r in self.results if r.warnings]

    @property
    def renames(self) -> list[FileResult]:
        return [r for r in self.results if r.outcome == Outcome.RENAMED]

    @property
    def decisions_kept(self) -> int:
        return sum(r.decisions_kept for r in self.results)

    @property
    def retired(self) -> list[str]:
        """Document ids no longer in the store: pruned, or the old names of renamed files."""
        return [*self.pruned, *(r.renamed_from for r in self.renames)]


def discover(paths: Sequence[Path]) -> list[SourceFile]:
    """Supported files under ``paths``, identified by their path relative to the given root.

    A folder's files are named relative to that folder ("decks/review.pptx"), so two
    ``report.pdf`` in different folders never collide; a file given directly is named by its
    file name. Missing paths are a usage error. What a folder holds that cannot be read — a
    named pipe, a socket, a broken link, a sub-folder that cannot be listed — comes back with
    its ``problem``, to fail by name.
    """
    found: dict[str, SourceFile] = {}
    for root in paths:
        if not root.exists():
            raise UsageError(f"{root}: no such file or folder")
        if root.is_dir():
            candidates: Iterable[SourceFile] = _folder(root)
        else:
            # A file named directly is always attempted, so an unsupported type fails loudly
            # instead of vanishing; in folders only supported types are picked up.
            candidates = [SourceFile(root.name, root)]
        for candidate in candidates:
            found.setdefault(candidate.doc_id, candidate)
    return [found[k] for k in sorted(found)]


def _folder(root: Path) -> Iterator[SourceFile]:
    """The supported files under ``root`` (hidden ones left out), and what cannot be read."""
    unlisted: list[OSError] = []
    for folder, subfolders, names in os.walk(root, onerror=unlisted.append):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for name in names:
            if name.startswith("."):
                continue
            path = Path(folder, name)
            doc_id = path.relative_to(root).as_posix()
            if not path.is_file():
                yield SourceFile(doc_id, path, _not_regular(path))
            elif path.suffix.lower() in SUPPORTED_SUFFIXES and not name.endswith(METADATA_SUFFIX):
                yield SourceFile(doc_id, path)
    for error in unlisted:
        path = Path(error.filename)
        where = path.relative_to(root).as_posix()
        reason = f"cannot read folder: {error.strerror or describe_error(error)}"
        yield SourceFile(f"{root.name if where == '.' else where}/", path, reason)


def _not_regular(path: Path) -> str:
    try:
        mode = path.stat().st_mode
    except OSError:
        return "broken link: its target does not exist"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "a device, not a regular file"


def mapping_version(profile: DomainProfile) -> str:
    """Changes whenever the profile does, so a new alias re-maps unchanged files."""
    digest = hashlib.sha256(profile.model_dump_json().encode("utf-8")).hexdigest()
    return f"1-{digest[:16]}"


def ingest(
    paths: Sequence[Path],
    store: WorkspaceStoreProtocol,
    profile: DomainProfile,
    *,
    dry_run: bool = False,
    limits: SafetyLimits | None = None,
    on_file: Callable[[FileResult], None] | None = None,
    files: Sequence[SourceFile] | None = None,
    prune: bool = False,
) -> IngestReport:
    """Ingest ``paths`` (or pre-discovered ``files``) in document-id order.

    Documents earlier ingested from under a folder of ``paths`` and absent from it now are
    renamed when a new file has their bytes; the others are listed in ``missing``, or retired
    first (one transaction each) when ``prune`` is true, so a file that was renamed and edited
    is not held up as a conflict with its own old name.
    """
    glossary = glossary_for(profile)
    version = mapping_version(profile)
    sources = list(files) if files is not None else discover(paths)
    folders = [p for p in paths if p.is_dir()]
    gone = _vanished(store, folders, sources)
    moves = _renames(sources, gone, store)
    left = [d.doc_id for d in gone if d.doc_id not in {m.doc_id for m in moves.values()}]
    report = IngestReport(dry_run=dry_run, folders=[str(f) for f in folders])
    if prune:
        for doc_id in left:
            if not dry_run:
                store.remove_document(doc_id)
            report.pruned.append(doc_id)
    else:
        report.missing = left
    for source in sources:
        with library_notes() as notes:
            result = _ingest_one(
                source,
                store,
                glossary,
                version,
                dry_run,
                limits or SafetyLimits(),
                moves.get(source.doc_id),
            )
        result = replace(result, warnings=(*result.warnings, *notes))
        report.results.append(result)
        if on_file is not None:
            on_file(result)
    return report


def _vanished(
    store: WorkspaceStoreProtocol, folders: Sequence[Path], sources: Sequence[SourceFile]
) -> list[DocumentRecord]:
    """Documents ingested from under ``folders`` whose file is no longer among ``sources``.

    Documents from anywhere else in the workspace are never considered.
    """
    roots = [f.resolve() for f in folders]
    present = {str(s.path.resolve()) for s in sources}
    # A sub-folder that cannot be listed has not lost its documents.
    unlisted = [s.path.resolve() for s in sources if s.problem]
    return [
        d
        for d in store.list_documents()
        if d.source_path not in present
        and any(Path(d.source_path).is_relative_to(root) for root in roots)
        and not any(Path(d.source_path).is_relative_to(folder) for folder in unlisted)
    ]


def _renames(
    sources: Sequence[SourceFile], gone: Sequence[DocumentRecord], store: WorkspaceStoreProtocol
) -> dict[str, DocumentRecord]:
    """New document id → the vanished document with the same bytes (each used once)."""
    by_hash: dict[str, list[DocumentRecord]] = {}
    for document in gone:
        by_hash.setdefault(document.content_hash, []).append(document)
    moves: dict[str, DocumentRecord] = {}
    for source in sources:
        if source.problem or not by_hash or store.get_document(source.doc_id) is not None:
            continue
        try:
            candidates = by_hash.get(_sha256(source.path))
        except OSError:
            continue  # reported when the file itself is ingested
        if candidates:
            moves[source.doc_id] = candidates.pop(0)
    return moves


def _ingest_one(
    source: SourceFile,
    store: WorkspaceStoreProtocol,
    glossary: Glossary,
    version: str,
    dry_run: bool,
    limits: SafetyLimits,
    moved_from: DocumentRecord | None = None,
) -> FileResult:
    """The per-file boundary: any exception reading or mapping the file fails this file alone.

    Readers raise ``IngestError`` with a precise reason where they can; anything else (a
    library's TypeError on a crafted file, a RecursionError) still fails only this file, named
    by its class and message. A store that cannot be written (``StoreError``), Ctrl-C and
    ``SystemExit`` stop the batch: they are not about this file.
    """
    if source.problem:
        return FileResult(source.doc_id, Outcome.FAILED, error=f"{source.path}: {source.problem}")
    try:
        if not source.path.is_file():
            check_file(source.path, limits)  # "not a regular file": a pipe would block the hash
        if source.path.stat().st_size > limits.max_bytes:
            check_file(source.path, limits)  # raises "oversized" before reading the bytes
        content_hash = _sha256(source.path)
        metadata = _metadata(source.path)
        metadata_hash = hashlib.sha256(
            json.dumps(metadata, sort_keys=True).encode("utf-8")
        ).hexdigest()
        previous = store.get_document(source.doc_id)
        if previous and (
            previous.content_hash,
            previous.extractor_version,
            previous.mapping_version,
        ) == (content_hash, EXTRACTOR_VERSION, version):
            if previous.metadata_hash == metadata_hash:
                return FileResult(source.doc_id, Outcome.SKIPPED)
            if previous.content_sensitivity:
                return _update_metadata(source, previous, metadata, metadata_hash, store, dry_run)
            # Ingested before the content's level was stored: read it again to learn it.
        check_file(source.path, limits)
        budget = WorkBudget(source.path, limits)
        document = reader_for(source.path, budget).read(source.path)
        _within(budget, document)
        replaced = moved_from.doc_id if moved_from else source.doc_id
        built = _build(
            source, document, glossary, metadata, store, content_hash, version, replaced, budget
        )
        kept = carry_over(store.list_review(doc_id=replaced), built.review)
        record = DocumentRecord(
            doc_id=source.doc_id,
            source_path=str(source.path.resolve()),
            content_hash=content_hash,
            metadata_hash=metadata_hash,
            size_bytes=source.path.stat().st_size,
            kind=source.path.suffix.lower().lstrip("."),
            sensitivity=built.sensitivity.level.value,
            extractor_version=EXTRACTOR_VERSION,
            mapping_version=version,
            content_sensitivity=built.sensitivity.content.value,
        )
        # Carried approvals come last: one may restate a key this document states first.
        facts = [*built.facts, *kept.facts]
        if not dry_run:
            store.replace_document(
                record,
                facts,
                built.blocks,
                kept.items,
                built.chunks,
                replaces=moved_from.doc_id if moved_from else None,
                override_note=_override_note(source.path, built.sensitivity),
            )
        level, note = _stored_level(store, source.doc_id, built.sensitivity, dry_run)
        return FileResult(
            source.doc_id,
            Outcome.RENAMED if moved_from else Outcome.INGESTED,
            len(facts),
            len(built.blocks),
            len(kept.items),
            renamed_from=moved_from.doc_id if moved_from else "",
            decisions_kept=kept.decisions,
            sensitivity=level,
            sensitivity_note=note,
            warnings=() if facts or built.blocks or kept.items else (NOTHING_FOUND,),
        )
    except IngestError as exc:
        return FileResult(source.doc_id, Outcome.FAILED, error=str(exc))
    except OSError as exc:
        reason = exc.strerror or describe_error(exc)
        return FileResult(source.doc_id, Outcome.FAILED, error=f"{source.path}: {reason}")
    except StoreError:
        raise
    except Exception as exc:  # the boundary itself: no exception escapes one file
        return FileResult(
            source.doc_id,
            Outcome.FAILED,
            error=f"{source.path}: {UNEXPECTED}: {describe_error(exc)}",
        )


def _within(budget: WorkBudget, document: ExtractedDocument) -> None:
    """Whatever the reader counted already, the extracted form as a whole keeps to the limits."""
    cells = [cell for table in document.tables for row in table.cells for cell in row]
    budget.cells(len(cells))
    budget.rows(sum(table.n_rows for table in document.tables))
    budget.characters(sum(len(b.text) for b in document.blocks) + sum(len(c.text) for c in cells))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _metadata(path: Path) -> dict[str, object]:
    sidecar = _sidecar(path)
    if not sidecar.is_file():
        return {}
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise IngestError(f"{sidecar}: metadata is not valid JSON: {exc}") from None
    except RecursionError:
        raise IngestError(f"{sidecar}: metadata is nested too deeply to be read") from None
    if not isinstance(data, dict):
        raise IngestError(f"{sidecar}: metadata must be a JSON object")
    if "sensitivity" in data:
        try:
            Sensitivity.parse(str(data["sensitivity"]))
        except ValueError as exc:
            raise IngestError(f"{sidecar}: {exc}") from None
    if not isinstance(data.get("sensitivity_override", False), bool):
        raise IngestError(f"{sidecar}: sensitivity_override must be true or false")
    return data


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + METADATA_SUFFIX)


def _decide(content: Sensitivity, metadata: dict[str, object]) -> SensitivityDecision:
    """The content's level combined with the sidecar's ``sensitivity`` (validated earlier)."""
    value = metadata.get("sensitivity")
    requested = Sensitivity.parse(str(value)) if value else None
    return decide_sensitivity(
        content, requested, override=metadata.get("sensitivity_override") is True
    )


def _override_note(path: Path, decision: SensitivityDecision) -> str:
    """The audit log's line for an applied override, or "" when there is none."""
    if not decision.overridden:
        return ""
    return (
        f"{_sidecar(path).name}: sensitivity_override {decision.content.value} -> "
        f"{decision.level.value}"
    )


def _update_metadata(
    source: SourceFile,
    previous: DocumentRecord,
    metadata: dict[str, object],
    metadata_hash: str,
    store: WorkspaceStoreProtocol,
    dry_run: bool,
) -> FileResult:
    """Same bytes, new sidecar: combine the stored content level with it (no re-read), so the
    level comes from the same complete inputs — text blocks and table cells — as a full read."""
    decision = _decide(Sensitivity.parse(previous.content_sensitivity), metadata)
    if not dry_run:
        store.update_document_metadata(
            source.doc_id,
            metadata_hash,
            decision.level.value,
            override_note=_override_note(source.path, decision),
        )
    level, note = _stored_level(store, source.doc_id, decision, dry_run)
    return FileResult(source.doc_id, Outcome.METADATA, sensitivity=level, sensitivity_note=note)


def _stored_level(
    store: WorkspaceStoreProtocol, doc_id: str, decision: SensitivityDecision, dry_run: bool
) -> tuple[str, str]:
    """The level the document was stored at, and the note on it: the decision's own, unless
    a copy of the same content holds a higher level, which the store gave this one too."""
    stored = None if dry_run else store.get_document(doc_id)
    if stored is None or stored.sensitivity == decision.level.value:
        return decision.level.value, decision.note()
    return stored.sensitivity, f"raised to {stored.sensitivity}: a copy of this content holds it"


@dataclass
class _Built:
    sensitivity: SensitivityDecision
    facts: list[Fact]
    blocks: list[TextBlockRow]
    review: list[ReviewItem]
    chunks: list[Chunk]


def _build(
    source: SourceFile,
    document: ExtractedDocument,
    glossary: Glossary,
    metadata: dict[str, object],
    store: WorkspaceStoreProtocol,
    content_hash: str,
    version: str,
    replaced: str,
    budget: WorkBudget,
) -> _Built:
    profile = glossary.profile
    text = "\n".join(
        [b.text for b in document.blocks]
        + [c.text for t in document.tables for row in t.cells for c in row]
    )
    decision = _decide(content_sensitivity(source.path.name, text, profile), metadata)
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
    accepted, conflicts = _check_conflicts({source.doc_id, replaced}, candidates, store)

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
            extractor_version=EXTRACTOR_VERSION,
            mapping_version=version,
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
        as_item(c.candidate, Sensitivity.highest(level, c.mentions)) for c in conflicts
    ]
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
    return _Built(decision, [as_fact(c) for c in accepted], blocks, review, chunks)


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


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@dataclass(frozen=True)
class _Conflict:
    candidate: ReviewCandidate
    mentions: Sensitivity  # the level of the statement it conflicts with


def _check_conflicts(
    own: set[str], candidates: list[CandidateFact], store: WorkspaceStoreProtocol
) -> tuple[list[CandidateFact], list[_Conflict]]:
    """Keep the first statement of each key; a different value later, here or in another
    document already stored, is a conflict for a reviewer — never a silent overwrite.

    ``own`` holds the document's id and the id it replaces (a rename): neither is "another".
    Another document's value is never quoted: that document may be (or become) more sensitive
    than this one, so the item names where the other statement is, not what it says.
    """
    accepted: dict[tuple[str, str, str, str, str], CandidateFact] = {}
    conflicts: list[_Conflict] = []
    for fact in candidates:
        earlier = accepted.get(fact.key)
        if earlier is not None:
            if not (_same(earlier.value, fact.value) and earlier.unit == fact.unit):
                detail = (
                    f"this document also states {earlier.value:g} {earlier.unit} at "
                    f"{earlier.locator}"
                )
                conflicts.append(
                    _Conflict(
                        ReviewCandidate(fact.locator, ReviewReason.CONFLICT, detail, fact),
                        Sensitivity.PUBLIC,
                    )
                )
            continue
        others = [
            o
            for o in store.approved_values(fact.key, exclude_docs=own)
            if not (_same(o.value, fact.value) and o.unit == fact.unit)
        ]
        if others:
            first = others[0]
            detail = f"{first.source_doc_id} states a different value at {first.source_locator}"
            conflicts.append(
                _Conflict(
                    ReviewCandidate(fact.locator, ReviewReason.CONFLICT, detail, fact),
                    Sensitivity.parse(first.sensitivity),
                )
            )
            continue
        accepted[fact.key] = fact
    return list(accepted.values()), conflicts


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
