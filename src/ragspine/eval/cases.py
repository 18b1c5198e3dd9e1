"""The golden answer set: judged questions over the demo corpus, as typed cases.

Each JSONL line is one case: the question, the reference date and clearance it is asked with,
the corpus it is asked over (``demo.corpora``: the demo corpus unless it names another), its
tags, and what a correct answer does (``expect``): which clarification mode the gateway
takes, whether the answer must be a refusal, which facts it must state and cite (value, unit,
document and locator, judged against the corpus's ground truth), which narrative documents
answer it, which documents it must cite, and strings that must never appear (RESTRICTED text
for an uncleared caller, a number planted in the question or in a document). A case the engine
currently gets wrong carries ``known_issue``: it is still asked and reported, but kept out of
the gates.

Three splits ship, each scored on every run and reported apart: ``dev`` (``golden.jsonl``), the
set the parser may be tuned against; ``regression`` (``golden_regression.jsonl``), once held out
but since tuned against, so now a second regression set; and ``heldout``
(``golden_heldout.jsonl``), written from the corpus specification and docs only by someone who
never saw the engine's failures, committed as written and reported as aggregates only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from ragspine.agent.types import ClarifyMode
from ragspine.demo.corpora import Corpus
from ragspine.eval.jsonl import read_records
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity

# The demo's "today": relative periods in the set (去年, last quarter) were judged against it.
DEFAULT_REFERENCE_DATE = date(2026, 11, 26)


# Modes that never answer with a value: a case expecting them must expect a refusal.
REFUSING_MODES = frozenset({ClarifyMode.ASK_FIRST, ClarifyMode.OUT_OF_SCOPE_ENTITY})


@dataclass(frozen=True)
class ExpectedValue:
    """A fact the answer must state (value and unit) and cite (document and locator)."""

    metric: str
    entity: str
    period_label: str
    channel: str
    value: float
    unit: str
    doc: str
    locator: str

    @property
    def key(self) -> str:
        """``METRIC/ENTITY/PERIOD/CHANNEL``, for messages."""
        return f"{self.metric}/{self.entity}/{self.period_label}/{self.channel}"


@dataclass(frozen=True)
class ExpectedPending:
    """A value waiting in review (say, a restatement) that the answer must disclose, with the
    document stating it: shown as pending beside the approved fact, never as the answer."""

    value: float
    unit: str
    doc: str


@dataclass(frozen=True)
class Expectation:
    """What a correct answer does; a field left unset is not checked."""

    mode: ClarifyMode | None = None
    reason: str | None = None
    assumed: Mapping[str, str] | None = None
    refuse: bool | None = None
    values: tuple[ExpectedValue, ...] = ()
    derived: tuple[str, ...] = ()
    narrative_docs: tuple[str, ...] = ()
    cited_docs: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    pending: tuple[ExpectedPending, ...] = ()


@dataclass(frozen=True)
class GoldenCase:
    """One judged question; ``known_issue`` keeps a case the engine gets wrong out of the gates."""

    id: str
    question: str
    reference_date: date = DEFAULT_REFERENCE_DATE
    tags: tuple[str, ...] = ()
    clearance: Sensitivity = DEFAULT_CLEARANCE
    expect: Expectation = field(default_factory=Expectation)
    corpus: Corpus = Corpus.DEMO
    known_issue: str = ""
    note: str = ""
    # The conversation's earlier user questions, oldest first: the case is a follow-up.
    previous: tuple[str, ...] = ()


class Split(StrEnum):
    """Which part of the shipped golden set: the tuning set, the second regression set, or the
    held-out test set."""

    DEV = "dev"
    REGRESSION = "regression"
    HELDOUT = "heldout"

    @property
    def file_name(self) -> str:
        return "golden.jsonl" if self is Split.DEV else f"golden_{self.value}.jsonl"

    @property
    def held_out(self) -> bool:
        """Reported as aggregates only: a case id seen failing is a case someone tunes for."""
        return self is Split.HELDOUT


# Split names whose reports show aggregates only unless the caller asks for case detail.
HELD_OUT_SPLITS = frozenset(split.value for split in Split if split.held_out)


# --------------------------------------------------------------------------- loading


def default_golden_path(split: Split = Split.DEV) -> Path:
    """One split of the golden set shipped in the package."""
    return Path(str(resources.files("ragspine.eval").joinpath("data", split.file_name)))


def load_golden(path: str | Path | None = None, *, split: Split = Split.DEV) -> list[GoldenCase]:
    """Read a golden JSONL set (default: the shipped ``split``); errors name the file and line."""
    source = Path(path) if path is not None else default_golden_path(split)
    return read_records(source, parse_case, "golden set")


_CASE_FIELDS = {
    "id",
    "question",
    "reference_date",
    "tags",
    "clearance",
    "expect",
    "corpus",
    "known_issue",
    "note",
    "previous",
}
_EXPECT_FIELDS = {
    "mode",
    "reason",
    "assumed",
    "refuse",
    "values",
    "derived",
    "narrative_docs",
    "cited_docs",
    "forbidden",
    "pending",
}
_PENDING_FIELDS = {"value", "unit", "doc"}
_VALUE_FIELDS = {"metric", "entity", "period_label", "channel", "value", "unit", "doc", "locator"}


def parse_case(line: str) -> GoldenCase:
    """One JSONL line as a case; a ValueError says what is wrong with it."""
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise ValueError("each line must be one JSON object")
    _check_fields(raw, _CASE_FIELDS, "field")
    expect_raw = raw.get("expect", {})
    if not isinstance(expect_raw, dict):
        raise ValueError("'expect' must be an object")
    return GoldenCase(
        id=_text(raw, "id"),
        question=_text(raw, "question"),
        reference_date=_date(raw.get("reference_date")),
        tags=_strings(raw, "tags"),
        clearance=Sensitivity.parse(_text(raw, "clearance", DEFAULT_CLEARANCE.value)),
        expect=_expectation(expect_raw),
        corpus=Corpus.parse(_text(raw, "corpus", Corpus.DEMO.value)),
        known_issue=_text(raw, "known_issue", ""),
        note=_text(raw, "note", ""),
        previous=_strings(raw, "previous"),
    )


def _expectation(raw: dict[str, Any]) -> Expectation:
    _check_fields(raw, _EXPECT_FIELDS, "expect field")
    mode = ClarifyMode.parse(_text(raw, "mode")) if "mode" in raw else None
    refuse = raw.get("refuse")
    if refuse is not None and not isinstance(refuse, bool):
        raise ValueError("'expect.refuse' must be true or false")
    values = raw.get("values", [])
    if not isinstance(values, list):
        raise ValueError("'expect.values' must be a list of value objects")
    expect = Expectation(
        mode=mode,
        reason=_text(raw, "reason") if "reason" in raw else None,
        assumed=_assumed(raw.get("assumed")),
        refuse=refuse,
        values=tuple(_value(item) for item in values),
        derived=_strings(raw, "derived"),
        narrative_docs=_strings(raw, "narrative_docs"),
        cited_docs=_strings(raw, "cited_docs"),
        forbidden=_strings(raw, "forbidden"),
        pending=tuple(_pending(item) for item in _list(raw, "pending")),
    )
    _check_consistent(expect)
    return expect


def _check_consistent(expect: Expectation) -> None:
    """Reject expectations no answer can meet, so a typo cannot hide as a failing case."""
    if expect.refuse and (expect.values or expect.derived):
        raise ValueError("a case expecting a refusal cannot expect values")
    if expect.mode in REFUSING_MODES and expect.refuse is False:
        raise ValueError(f"mode {expect.mode.value} never answers; set refuse to true")
    if expect.reason is not None and expect.mode is None:
        raise ValueError("'expect.reason' needs 'expect.mode'")
    if expect.assumed is not None and expect.mode is not ClarifyMode.ANSWER_WITH_ASSUMPTIONS:
        raise ValueError("'expect.assumed' needs mode answer_with_assumptions")


def _list(raw: dict[str, Any], name: str) -> list[Any]:
    items = raw.get(name, [])
    if not isinstance(items, list):
        raise ValueError(f"'expect.{name}' must be a list of objects")
    return items


def _pending(item: Any) -> ExpectedPending:
    if not isinstance(item, dict) or set(item) != _PENDING_FIELDS:
        raise ValueError(f"pending value {item!r} must have exactly {sorted(_PENDING_FIELDS)}")
    value = item["value"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"pending value {item!r}: 'value' must be a number")
    return ExpectedPending(float(value), str(item["unit"]), str(item["doc"]))


def _value(item: Any) -> ExpectedValue:
    if not isinstance(item, dict):
        raise ValueError(f"value {item!r} must be an object")
    missing = sorted(_VALUE_FIELDS - set(item))
    if missing:
        raise ValueError(f"value {item!r} lacks {', '.join(missing)}")
    _check_fields(item, _VALUE_FIELDS, "value field")
    number = item["value"]
    if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
        raise ValueError(f"value {item!r}: 'value' must be a finite number")
    return ExpectedValue(
        metric=_text(item, "metric"),
        entity=_text(item, "entity"),
        period_label=_text(item, "period_label"),
        channel=_text(item, "channel"),
        value=float(number),
        unit=_text(item, "unit"),
        doc=_text(item, "doc"),
        locator=_text(item, "locator"),
    )


def _assumed(raw: Any) -> Mapping[str, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise ValueError("'expect.assumed' must map slot names to strings")
    return dict(raw)


def _check_fields(raw: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        valid = ", ".join(sorted(allowed))
        raise ValueError(f"unknown {what}(s) {', '.join(unknown)}; valid: {valid}")


def _text(raw: dict[str, Any], key: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise ValueError(f"'{key}' must be a non-empty string")
    return value


def _strings(raw: dict[str, Any], key: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"'{key}' must be a list of non-empty strings")
    return tuple(value)


def _date(raw: Any) -> date:
    if raw is None:
        return DEFAULT_REFERENCE_DATE
    if not isinstance(raw, str):
        raise ValueError("'reference_date' must be a YYYY-MM-DD string")
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"'reference_date' {raw!r} is not a YYYY-MM-DD date") from None
