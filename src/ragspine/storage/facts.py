"""The fact: one number, keyed by metric/entity/period/channel, that knows where it came from."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from datetime import UTC, datetime

from ragspine.enums import ParseableEnum
from ragspine.profile.periods import PERIOD_TYPES
from ragspine.profile.sensitivity import Sensitivity

DEFAULT_CHANNEL = "TOTAL"

# (metric_code, entity, period_type, period, channel): what a question asks for.
FactKey = tuple[str, str, str, str, str]


class ReviewStatus(ParseableEnum, label="review status"):
    """Whether a fact may answer questions. Only ``approved`` facts are ever visible to queries."""

    APPROVED = "approved"
    PENDING = "pending"
    REJECTED = "rejected"


# Every text field a fact cannot do without: the key (what it measures), the unit (how to read
# the value) and the lineage (where it came from: docs/architecture.md, invariant 2).
_REQUIRED_TEXT = (
    "metric_code",
    "entity",
    "geography",
    "channel",
    "period_type",
    "period",
    "unit",
    "source_doc_id",
    "source_locator",
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One stored number with its key, unit, lineage, sensitivity and review state.

    Construction validates and normalises: ``sensitivity`` becomes the canonical level name,
    ``review_status`` the canonical status value, ``value`` a finite float and ``ingested_at``
    (when given) a canonical UTC timestamp, so facts compare equal after a store round trip.
    """

    metric_code: str
    entity: str
    geography: str
    channel: str
    period_type: str
    period: str
    value: float
    unit: str
    source_doc_id: str
    source_locator: str
    sensitivity: str = Sensitivity.INTERNAL.value
    review_status: str = ReviewStatus.APPROVED.value
    source_file_hash: str | None = None
    extractor_version: str | None = None
    mapping_version: str | None = None
    ingested_at: str | None = None
    # The label of the table line the value was read from, as the document writes it
    # ("Cost of sales excluding depreciation", "销售成本（港币百万元）"): which row answered.
    row_label: str | None = None

    def __post_init__(self) -> None:
        for name in _REQUIRED_TEXT:
            text = getattr(self, name)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"Fact.{name} must be a non-empty string, got {text!r}")
        if self.period_type not in PERIOD_TYPES:
            valid = ", ".join(PERIOD_TYPES)
            raise ValueError(
                f"unknown Fact.period_type {self.period_type!r}; valid options: {valid}"
            )
        if not (len(self.period) == 4 and self.period.isascii() and self.period.isdigit()):
            raise ValueError(f"Fact.period must be a four-digit year, got {self.period!r}")
        object.__setattr__(self, "value", _finite_float(self.value))
        object.__setattr__(self, "sensitivity", Sensitivity.parse(self.sensitivity).value)
        object.__setattr__(self, "review_status", ReviewStatus.parse(self.review_status).value)
        if self.ingested_at is not None:
            object.__setattr__(self, "ingested_at", normalize_timestamp(self.ingested_at))
        object.__setattr__(self, "row_label", row_label_text(self.row_label))

    @property
    def natural_key(self) -> FactKey:
        return (self.metric_code, self.entity, self.period_type, self.period, self.channel)

    @property
    def period_label(self) -> str:
        """``FY2024`` for a fiscal year; ``2025H1`` or ``2025Q3`` for a half or a quarter."""
        if self.period_type == "FY":
            return f"FY{self.period}"
        return f"{self.period}{self.period_type}"


FACT_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(Fact))


# A label is shown in answer lines: a pathological one (a whole paragraph in a header cell)
# is cut here, once, so every store, listing and answer shows the same text.
MAX_ROW_LABEL = 200


def row_label_text(label: object) -> str | None:
    """A row label as stored: its whitespace runs as single spaces (a header cell's line
    breaks), at most ``MAX_ROW_LABEL`` characters; ``None`` when it says nothing."""
    if label is None:
        return None
    if not isinstance(label, str):
        raise ValueError(f"Fact.row_label must be a string or None, got {label!r}")
    text = " ".join(label.split())
    if len(text) > MAX_ROW_LABEL:
        text = text[: MAX_ROW_LABEL - 1] + "…"
    return text or None


def _finite_float(value: object) -> float:
    # bool is an int subclass; a True/False "value" is always an extraction bug.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"Fact.value must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"Fact.value must be finite, got {value!r}")
    return float(value)


def utc_timestamp(moment: datetime | None = None) -> str:
    """``moment`` (default: now) as the canonical ISO-8601 UTC text stored in ``ingested_at``."""
    moment = datetime.now(UTC) if moment is None else moment
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def normalize_timestamp(raw: str) -> str:
    """Rewrite an ISO-8601 timestamp in the canonical form.

    One fixed width and offset makes text order equal time order, which is what lets a store
    pick "the most recently ingested" fact with a plain ``ORDER BY``. A timestamp without an
    offset is read as UTC, the only zone this field is documented to hold.
    """
    try:
        moment = datetime.fromisoformat(raw)
    except (TypeError, ValueError):
        raise ValueError(f"Fact.ingested_at must be an ISO-8601 timestamp, got {raw!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return utc_timestamp(moment)
