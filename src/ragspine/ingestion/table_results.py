"""What mapping a table yields: candidate facts, review items and the reasons they carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ragspine.profile.periods import Period

# No honest figure is this large in its normalised unit: 1e15 millions of dollars is ten
# million times world GDP, 1e15 % or 1e15 visitors is nonsense. Past it, and for values that
# overflowed to infinity (400 "9"s, 1e308 scaled by a "billion" label), a cell is a review item.
ABSURD_MAGNITUDE = 1e15


# Unmapped labels reviewed one by one per axis of a table; the rest are counted in one item.
MAX_UNMAPPED_ITEMS = 200


class ReviewReason(StrEnum):
    CONFLICT = "conflict"
    UNMAPPED_LABEL = "unmapped_label"
    AMBIGUOUS_ENTITY = "ambiguous_entity"
    MISSING_ENTITY = "missing_entity"
    MISSING_PERIOD = "missing_period"
    MISSING_METRIC = "missing_metric"
    LOW_CONFIDENCE = "low_confidence"
    UNIT_MISMATCH = "unit_mismatch"
    UNIT_UNKNOWN = "unit_unknown"
    NEEDS_OCR = "needs_ocr"
    UNREADABLE = "unreadable"
    ABSURD_VALUE = "absurd_value"
    AMBIGUOUS_CELL = "ambiguous_cell"
    SUSPICIOUS_INSTRUCTION = "suspicious_instruction"


@dataclass(frozen=True)
class CandidateFact:
    """A fact as read from a table, before the document's lineage fields are attached."""

    metric_code: str
    entity: str
    channel: str
    period: Period
    value: float
    unit: str
    locator: str
    # Read from a cell the file hides (only with ``include_hidden``): never outranks a visible
    # statement of its key (``ingestion.conflicts.set_aside_hidden``).
    hidden: bool = False
    # The label of the line that names the metric (the row's label when the title names it),
    # as the document writes it: the answer line shows which row answered.
    row_label: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.metric_code, self.entity, self.period.type, self.period.period, self.channel)


@dataclass(frozen=True)
class ReviewCandidate:
    locator: str
    reason: ReviewReason
    detail: str
    fact: CandidateFact | None = None


@dataclass
class TableMapping:
    facts: list[CandidateFact] = field(default_factory=list)
    review: list[ReviewCandidate] = field(default_factory=list)
