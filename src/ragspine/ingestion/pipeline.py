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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from ragspine.errors import IngestError, StoreError
from ragspine.ingestion.copies import Copies, as_copy, is_copy, recorded_version
from ragspine.ingestion.discovery import SourceFile, discover
from ragspine.ingestion.file_metadata import (
    METADATA_SUFFIX,
    override_note,
    read_metadata,
    stored_level,
    update_metadata,
)
from ragspine.ingestion.isolation import library_notes
from ragspine.ingestion.model import HIDDEN_MARK, ExtractedDocument
from ragspine.ingestion.readers import reader_for
from ragspine.ingestion.readers.boundary import describe as describe_error
from ragspine.ingestion.review import carry_over
from ragspine.ingestion.rows import build
from ragspine.ingestion.safety import SafetyLimits, WorkBudget, check_file
from ragspine.ingestion.table_results import CandidateFact
from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import DocumentRecord
from ragspine.storage.protocol import WorkspaceStoreProtocol

# Discovery and the sidecar's name live in their own modules; callers import them from here.
__all__ = [
    "EXTRACTOR_VERSION",
    "METADATA_SUFFIX",
    "NOTHING_FOUND",
    "UNEXPECTED",
    "FileResult",
    "IngestReport",
    "Outcome",
    "SourceFile",
    "discover",
    "extractor_version",
    "ingest",
    "mapping_version",
]

# Bumped whenever the readers extract more or differently, so unchanged files already in a
# workspace are read again on the next ingest. 2: chart values, OCR'd scans, borderless and
# multi-column PDF pages, Word headers/footers/text boxes, titles above a sheet's grid,
# year-like values and unreadable cells, relative-period headers. 3: instruction-like passages
# held for review. 4: hidden sheets, rows, columns, slides and text skipped; a document read
# with them is recorded as "4+hidden", so switching ``include_hidden`` reads it again.
EXTRACTOR_VERSION = "4"


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
    hidden: int = 0  # hidden cells, slides or text runs skipped (``ingestion.model.hidden_note``)


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


def mapping_version(profile: DomainProfile) -> str:
    """Changes whenever the profile does, so a new alias re-maps unchanged files; and whenever
    the mapping records more (2: each fact's row label), so those are read again too."""
    digest = hashlib.sha256(profile.model_dump_json().encode("utf-8")).hexdigest()
    return f"2-{digest[:16]}"


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
    clearance: Sensitivity = Sensitivity.RESTRICTED,
    include_hidden: bool = False,
) -> IngestReport:
    """Ingest ``paths`` (or pre-discovered ``files``) in document-id order.

    ``clearance`` is the writer's (an upload's API key; the operator's command line sees
    everything): a conflict with a fact above it is resolved per clearance
    (``conflicts.check_conflicts``), so nothing the report says depends on what the writer may
    not see.

    Documents earlier ingested from under a folder of ``paths`` and absent from it now are
    renamed when a new file has their bytes; the others are listed in ``missing``, or retired
    first (one transaction each) when ``prune`` is true, so a file that was renamed and edited
    is not held up as a conflict with its own old name. Hidden sheets, rows, columns, slides
    and text are skipped and counted unless ``include_hidden``.
    """
    glossary = glossary_for(profile)
    version = mapping_version(profile)
    sources = list(files) if files is not None else discover(paths)
    folders = [p for p in paths if p.is_dir()]
    gone = _vanished(store, folders, sources)
    moves = _renames(sources, gone, store)
    left = [d.doc_id for d in gone if d.doc_id not in {m.doc_id for m in moves.values()}]
    report = IngestReport(dry_run=dry_run, folders=[str(f) for f in folders])
    copies = Copies(store)
    if prune:
        for doc_id in left:
            if not dry_run:
                store.remove_document(doc_id)
            copies.removed(doc_id)
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
                clearance,
                include_hidden=include_hidden,
                copies=copies,
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
    clearance: Sensitivity = Sensitivity.RESTRICTED,
    *,
    include_hidden: bool = False,
    copies: Copies | None = None,
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
        metadata = read_metadata(source.path)
        metadata_hash = hashlib.sha256(
            json.dumps(metadata, sort_keys=True).encode("utf-8")
        ).hexdigest()
        previous = store.get_document(source.doc_id)
        copies = copies or Copies(store)
        replaced = moved_from.doc_id if moved_from else source.doc_id
        original = copies.original(content_hash, source.doc_id, replaced)
        # A copy whose original was retired is read again, to hold the rows itself.
        orphan = previous is not None and is_copy(previous) and original is None
        if (
            previous
            and not orphan
            and (
                previous.content_hash,
                previous.extractor_version,
                recorded_version(previous),
            )
            == (content_hash, extractor_version(include_hidden), version)
        ):
            if previous.metadata_hash == metadata_hash:
                return FileResult(source.doc_id, Outcome.SKIPPED)
            if previous.content_sensitivity:
                level, note = update_metadata(
                    source.doc_id, source.path, previous, metadata, metadata_hash, store, dry_run
                )
                return FileResult(
                    source.doc_id, Outcome.METADATA, sensitivity=level, sensitivity_note=note
                )
            # Ingested before the content's level was stored: read it again to learn it.
        check_file(source.path, limits)
        budget = WorkBudget(source.path, limits)
        document = reader_for(source.path, budget, include_hidden=include_hidden).read(source.path)
        _within(budget, document)
        built = build(
            source,
            document,
            glossary,
            metadata,
            store,
            content_hash,
            version,
            replaced,
            budget,
            clearance,
            extractor=EXTRACTOR_VERSION,
        )
        earlier = store.list_review(doc_id=replaced)
        kept = carry_over(earlier, built.review)
        # Apart, so the result counts none of them (a fact one holds back counts as stored).
        above = carry_over(earlier, built.above)
        record = DocumentRecord(
            doc_id=source.doc_id,
            source_path=str(source.path.resolve()),
            content_hash=content_hash,
            metadata_hash=metadata_hash,
            size_bytes=source.path.stat().st_size,
            kind=source.path.suffix.lower().lstrip("."),
            sensitivity=built.sensitivity.level.value,
            extractor_version=extractor_version(include_hidden),
            mapping_version=version,
            content_sensitivity=built.sensitivity.content.value,
            n_hidden=document.hidden,
        )
        # Carried approvals come last: one may restate a key this document states first.
        facts = [*built.facts, *kept.facts]
        rows = as_copy(record, [*kept.items, *above.items], built.blocks, built.chunks, original)
        if not dry_run:
            store.replace_document(
                rows.record,
                [*facts, *above.facts],
                rows.blocks,
                rows.review,
                rows.chunks,
                replaces=moved_from.doc_id if moved_from else None,
                override_note=override_note(source.path, built.sensitivity),
            )
            if moved_from is not None:
                copies.removed(moved_from.doc_id)
        copies.stored(rows.record, holds_rows=original is None)
        level, note = stored_level(store, source.doc_id, built.sensitivity, dry_run)
        reported = len(facts) + (built.withheld if original is None else 0)
        review_count = len(kept.items) if original is None else 0
        return FileResult(
            source.doc_id,
            Outcome.RENAMED if moved_from else Outcome.INGESTED,
            reported,
            len(rows.blocks),
            review_count,
            renamed_from=moved_from.doc_id if moved_from else "",
            decisions_kept=kept.decisions if original is None else 0,
            sensitivity=level,
            sensitivity_note=note,
            warnings=(
                *(
                    rows.warnings
                    or (() if reported or built.blocks or kept.items else (NOTHING_FOUND,))
                ),
                *set_aside_note(built.set_aside),
            ),
            hidden=document.hidden,
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


# The hidden cells a set-aside note names; the rest are counted.
_NAMED = 3


def set_aside_note(set_aside: Sequence[CandidateFact]) -> tuple[str, ...]:
    """The warning for figures read from hidden content that visible content overruled."""
    if not set_aside:
        return ()
    named = ", ".join(f.locator for f in set_aside[:_NAMED])
    more = f" and {len(set_aside) - _NAMED} more" if len(set_aside) > _NAMED else ""
    figures = "figure" if len(set_aside) == 1 else "figures"
    return (
        f"{len(set_aside)} hidden {figures} set aside: visible content states the same key "
        f"with another value ({named}{more})",
    )


def extractor_version(include_hidden: bool) -> str:
    """The extractor version a document read this way is recorded with."""
    return f"{EXTRACTOR_VERSION}{HIDDEN_MARK}" if include_hidden else EXTRACTOR_VERSION


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
