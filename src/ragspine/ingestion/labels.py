"""Read table headers, titles and captions into controlled codes.

A header *label* maps only when every character is accounted for: aliases (longest first),
period expressions, unit markers (``unit_markers``: "Sales (A$ m)", "销售额（港币百万元）"),
punctuation and a few connecting words; footnote marks ("Sales¹") are dropped first. "其他" +
a metric alias ("other <metric>") leaves "其他" unexplained, so it does not map to that metric —
it goes to review. A header may name its year relative to the document ("本年", "上年同期",
"Prior year", "PY"): the reading keeps the offset and the table mapper resolves it against the
period the table's title or the document names.
Titles and captions are prose, so there aliases are found as substrings instead, after
competitor names are masked.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

from ragspine.ingestion.unit_markers import read_units
from ragspine.ingestion.unit_words import Marker
from ragspine.profile.glossary import CHANNEL, ENTITY, METRIC, Glossary
from ragspine.profile.matching import AliasHit, mask
from ragspine.profile.periods import Period, find_periods, find_relative_years

# Relative periods in documents are resolved against the document's own period, never against
# a date: the reference date only feeds find_periods' relative rules, which are ignored here.
_ANY_DAY = date(2000, 1, 1)
_CONNECTORS = re.compile(
    r"[\s\-–—_:：/|()（）\[\]【】,，.。;；、&+*#]|(?<![A-Za-z])(?:of|the|and|in|for)(?![A-Za-z])"
    r"|的|和|及|与",
    re.IGNORECASE,
)


# Footnote marks a label may carry ("Sales¹", "Sales⁽²⁾"): removed before NFKC reads them
# as digits.
_FOOTNOTE_MARKS = re.compile(r"⁽[⁰¹²³⁴⁵⁶⁷⁸⁹a-z]+⁾|[⁰¹²³⁴⁵⁶⁷⁸⁹]+|[†‡]")


@dataclass(frozen=True)
class LabelReading:
    text: str
    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    relative_years: tuple[int, ...] = ()  # offsets of "本年" (0), "上年" (-1) … in the label
    unit: Marker | None = None
    unknown_units: tuple[str, ...] = ()  # unit-like tokens in the text nobody could read
    covered: bool = True

    @property
    def blank(self) -> bool:
        return not self.text.strip()

    @property
    def key(self) -> str:
        """Codes in a fixed order (period, metric, entity, channel), e.g. "FY2024"."""
        parts = [p.label for p in self.periods]
        return "/".join([*parts, *self.metrics, *self.entities, *self.channels])


def read_label(text: str, glossary: Glossary, *, prose: bool = False) -> LabelReading:
    """Codes named by ``text``; ``covered`` is False when something in a label is unexplained."""
    clean = unicodedata.normalize("NFKC", _FOOTNOTE_MARKS.sub(" ", text))
    spans: list[tuple[int, int]] = []
    if prose:
        clean = mask(clean, ((h.start, h.end) for h in glossary.competitors.finditer(clean)))
    units = read_units(clean, glossary.profile.company.reporting_currency, prose=prose)
    spans += units.spans
    periods = [p for p in find_periods(clean, _ANY_DAY, glossary.calendar) if not p.relative]
    spans += [(p.start, p.end) for p in periods]
    relative = find_relative_years(mask(clean, spans))
    spans += [(r.start, r.end) for r in relative]
    terms = glossary.match_terms(mask(clean, spans))
    spans += [(h.start, h.end) for h in terms.hits]
    residual = _CONNECTORS.sub("", mask(clean, spans))
    return LabelReading(
        text=text,
        metrics=_codes(terms.hits, METRIC),
        entities=_codes(terms.hits, ENTITY),
        channels=_codes(terms.hits, CHANNEL),
        periods=tuple(dict.fromkeys(p.period for p in periods)),
        relative_years=tuple(dict.fromkeys(r.offset for r in relative)),
        unit=units.marker,
        unknown_units=units.unknown,
        covered=prose or not (residual or terms.other_metrics or units.unknown),
    )


def _codes(hits: list[AliasHit], kind: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(h.code for h in hits if h.kind == kind))
