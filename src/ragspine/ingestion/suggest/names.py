"""Names read out of document labels for a draft profile: a label without its units, periods
and footnote marks; an English and a Chinese name printed side by side; and the code a name
gets.

Only what the project's own readers explain is removed from a label (``unit_markers`` for
units, ``periods`` for periods and relative years), so a name proposed here is exactly the
text the table mapper will be left to match against the profile's aliases.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from ragspine.ingestion.labels import _FOOTNOTE_MARKS  # the mapper's own footnote marks
from ragspine.ingestion.unit_markers import read_units
from ragspine.ingestion.unit_words import Marker
from ragspine.profile.fiscal_calendar import FiscalCalendar, Period
from ragspine.profile.matching import CJK, mask
from ragspine.profile.periods import find_periods, find_relative_years

# What may stand between the two halves of a bilingual label ("Sales 销售", "Sales / 销售",
# "销售（Sales）"), and what is trimmed from the ends of a name.
_SEPARATORS = " \t/|｜()（）[]【】"
_TRIM = " \t-–—_:：/|｜,，.。;；、&+*#·"
_EMPTY_BRACKETS = re.compile(r"[(（\[【]\s*[)）\]】]")
_SPACES = re.compile(r"\s+")
_LATIN = re.compile(r"[A-Za-z]")
_TRAILING_WORD = re.compile(r"(?:\s+(?:of|the|and|in|for))+$", re.IGNORECASE)


@dataclass(frozen=True)
class Witness(FiscalCalendar):
    """A calendar that notes the months the text's period expressions end in: ``ended`` for
    "year ended 31 March 2025" / "截至2025年3月31日止年度", ``dated`` for a date alone
    ("31 Mar 2025")."""

    ended: list[int] = field(default_factory=list, compare=False, hash=False)
    dated: list[int] = field(default_factory=list, compare=False, hash=False)

    def period_ending(self, year: int, month: int, months: int) -> Period | None:
        if months == 12:
            self.ended.append(month)
        return FiscalCalendar(self.year_end_month).period_ending(year, month, months)

    def period_of_month(self, year: int, month: int) -> Period:
        self.dated.append(month)
        return FiscalCalendar(self.year_end_month).period_of_month(year, month)


@dataclass(frozen=True)
class LabelParts:
    """A label read apart: the name left once units and periods are taken out, the unit it
    states, whether it names a period, and the year-end months its dates point at."""

    name: str
    marker: Marker | None
    has_period: bool
    ended: tuple[int, ...]
    dated: tuple[int, ...]


def normalized(text: str) -> str:
    return unicodedata.normalize("NFKC", _FOOTNOTE_MARKS.sub(" ", text))


def read_parts(text: str, *, prose: bool = False) -> LabelParts:
    """``text`` without its unit markers, period expressions and relative years."""
    clean = normalized(text)
    units = read_units(clean, None, prose=prose)
    spans = list(units.spans)
    unnamed: list[tuple[int, int]] = []
    witness = Witness()
    periods = find_periods(clean, calendar=witness, unnamed=unnamed)
    spans += [(p.start, p.end) for p in periods] + unnamed
    relative = find_relative_years(mask(clean, spans))
    spans += [(r.start, r.end) for r in relative]
    return LabelParts(
        name=tidy(mask(clean, spans)),
        marker=units.marker,
        has_period=bool(periods or unnamed or relative),
        ended=tuple(witness.ended),
        dated=tuple(witness.dated),
    )


def tidy(text: str) -> str:
    """Spaces collapsed, empty brackets and dangling punctuation or joining words removed."""
    previous = None
    while previous != text:
        previous = text
        text = _EMPTY_BRACKETS.sub(" ", text)
        text = _SPACES.sub(" ", text).strip(_TRIM)
        text = _TRAILING_WORD.sub("", text)
    return _balanced(text)


def _balanced(text: str) -> str:
    """A bracket left open or closed alone by a masked unit is dropped."""
    for opening, closing in (("(", ")"), ("（", "）")):
        if text.count(opening) != text.count(closing):
            text = text.replace(opening, " ").replace(closing, " ")
    return _SPACES.sub(" ", text).strip(_TRIM)


def has_cjk(text: str) -> bool:
    return CJK.search(text) is not None


def has_latin(text: str) -> bool:
    return _LATIN.search(text) is not None


def bilingual(text: str) -> tuple[str, str] | None:
    """(English, Chinese) when ``text`` is an English name and a Chinese one side by side,
    apart by a space, a slash, a bar or brackets; None otherwise ("EBITDA利润率" is one name)."""
    cjk = [i for i, ch in enumerate(text) if CJK.match(ch)]
    latin = [i for i, ch in enumerate(text) if _LATIN.match(ch)]
    if not cjk or not latin:
        return None
    if latin[-1] < cjk[0]:
        cut_from, cut_to = latin[-1] + 1, cjk[0]
        first, second = text[:cut_from], text[cut_to:]
        english, chinese = first, second
    elif cjk[-1] < latin[0]:
        cut_from, cut_to = cjk[-1] + 1, latin[0]
        first, second = text[:cut_from], text[cut_to:]
        english, chinese = second, first
    else:
        return None
    if not any(ch in _SEPARATORS for ch in text[cut_from:cut_to]):
        return None
    english, chinese = tidy(english), tidy(chinese)
    if not english or not chinese or has_latin(chinese) or has_cjk(english):
        return None
    return english, chinese


def make_code(name: str, prefix: str) -> str:
    """UPPER_SNAKE_CASE from an English name; a name without Latin letters gets ``prefix``
    and a digest of itself, so the code is the same on every run."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    words = re.findall(r"[A-Za-z0-9]+", ascii_name)
    if words and has_latin(ascii_name):
        code = "_".join(words).upper()
        return code if code[0].isalpha() else f"{prefix}_{code}"
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8].upper()
    return f"{prefix}_{digest}"
