"""The words a unit is written with, and how words side by side make one marker.

Text is scanned once for *atoms* (a currency spelling from CLDR, a scale word, "元", a percent
word, a count word); atoms next to each other ("A$" + "million", "人民币" + "千" + "元") form
one *phrase*, which ``interpret`` reads as one ``Marker`` — or refuses (``Unreadable``: two
currencies, a percent with a scale). Where a text declares its unit, and what it leaves
unexplained, is ``unit_markers``' business.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from ahocorasick_rs import AhoCorasick, MatchKind

from ragspine.units import UnitKind, currency_spellings, resolve


@dataclass(frozen=True)
class Marker:
    """A partial unit: what one marker states. ``kind`` is None for a bare scale ("(in
    thousands)"); ``scale`` is the power of ten a written number is worth (-2 for "bps")."""

    kind: UnitKind | None
    currency: str | None
    scale: int | None
    text: str


class Atom(Enum):
    CURRENCY = "currency"
    SCALE = "scale"  # may stand alone where a unit is declared
    SHORT = "short"  # "m", "k", "bn": a scale only beside a currency or a number
    CJK_SCALE = "cjk_scale"  # "万", "百万": a scale only beside 元/a currency or declared
    YUAN = "yuan"
    PERCENT = "percent"
    COUNT = "count"  # only after a strong unit note
    UNREAD = "unread"  # a scale word the engine does not read ("lakh", "crore"): never a unit


_ENGLISH_SCALES = {
    "thousand": 3,
    "thousands": 3,
    "'000": 3,
    "’000": 3,
    "'000s": 3,
    "000s": 3,
    "000's": 3,
    "million": 6,
    "millions": 6,
    "100 million": 8,
    "hundred million": 8,
    "hundred millions": 8,
    "billion": 9,
    "billions": 9,
    "trillion": 12,
    "trillions": 12,
}
_SHORT_SCALES = {"k": 3, "m": 6, "mn": 6, "mm": 6, "mio": 6, "bn": 9, "b": 9, "tn": 12}
_CJK_SCALES = {
    "百": 2,
    "千": 3,
    "万": 4,
    "萬": 4,
    "十万": 5,
    "十萬": 5,
    "百万": 6,
    "百萬": 6,
    "千万": 7,
    "千萬": 7,
    "亿": 8,
    "億": 8,
    "十亿": 9,
    "十億": 9,
    "百亿": 10,
    "百億": 10,
    "千亿": 11,
    "千億": 11,
    "万亿": 12,
    "萬億": 12,
}
_PERCENTS = {
    "%": 0,
    "percent": 0,
    "per cent": 0,
    "percentage": 0,
    "百分比": 0,
    "bps": -2,
    "bp": -2,
    "basis points": -2,
    "基点": -2,
    "基點": -2,
}
# South Asian scale words: unit-like, so a table declaring them goes to review, never to a
# default scale.
_UNREAD_SCALES = ("lakh", "lakhs", "lac", "lacs", "crore", "crores")
# A currency's hundredth ("US cents", "港仙", "US¢"): a dividend of 38.5 cents is 0.385 of the
# currency, so the words are unit-like too, never read as the currency itself.
_SUBUNITS = ("cent", "cents", "¢", "pence", "penny", "港仙", "美分")
_COUNTS = ("人", "名", "个", "個", "家", "户", "戶", "股", "persons", "people", "number", "shares")
_YUAN = ("元", "圆", "圓")

_GLUE = re.compile(r"^[\s'’]*(?:(?:of|in)\s+)?$", re.IGNORECASE)
_WORD_CHARS = frozenset(string.ascii_letters + string.digits)


@lru_cache(maxsize=1)
def _automaton() -> tuple[AhoCorasick, list[tuple[Atom, object, str]]]:
    atoms: dict[str, tuple[Atom, object]] = {}
    for spelling, codes in currency_spellings().items():
        plain = spelling.replace(" ", "")
        # Short letter symbols ("R", "kr", "Br") read as words far more often than as money.
        if plain.isascii() and plain.isalpha() and len(plain) < 3:
            continue
        atoms[spelling] = (Atom.CURRENCY, codes)
    atoms.update({s: (Atom.SCALE, n) for s, n in _ENGLISH_SCALES.items()})
    atoms.update({s: (Atom.SHORT, n) for s, n in _SHORT_SCALES.items()})
    atoms.update({s: (Atom.CJK_SCALE, n) for s, n in _CJK_SCALES.items()})
    atoms.update({s: (Atom.PERCENT, n) for s, n in _PERCENTS.items()})
    atoms.update({s: (Atom.COUNT, 0) for s in _COUNTS})
    atoms.update({s: (Atom.YUAN, None) for s in _YUAN})
    atoms.update({s: (Atom.UNREAD, None) for s in _UNREAD_SCALES + _SUBUNITS})
    spellings = list(atoms)
    table = [(atoms[s][0], atoms[s][1], s) for s in spellings]
    return AhoCorasick(spellings, matchkind=MatchKind.Standard), table


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    atom: Atom
    value: object
    spelling: str


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def find_atoms(text: str) -> list[Hit]:
    """Leftmost-longest atoms that respect ASCII word edges, left to right, never overlapping."""
    automaton, table = _automaton()
    lowered = text.translate(_ASCII_LOWER)  # length-preserving, unlike str.lower()
    found = automaton.find_matches_as_indexes(lowered, overlapping=True)
    candidates = []
    for index, start, end in found:
        atom, value, spelling = table[index]
        if not _edges_ok(text, start, end):
            continue
        if atom == Atom.CURRENCY and _is_iso_like(spelling) and not text[start:end].isupper():
            continue  # "all", "top", "eur" in prose are words; codes are written in capitals
        if atom == Atom.CURRENCY and text[start:end] in _WORDLIKE_CODES:
            continue
        candidates.append(Hit(start, end, atom, value, spelling))
    candidates.sort(key=lambda h: (h.start, -(h.end - h.start)))
    chosen: list[Hit] = []
    for hit in candidates:
        if not chosen or hit.start >= chosen[-1].end:
            chosen.append(hit)
    return chosen


# ISO codes that are also English words written in capitals ("ALL regions", "TOP 10").
_WORDLIKE_CODES = frozenset({"ALL", "TOP", "CUP", "TRY", "MOP", "BOB", "GEL", "PEN", "MAD", "SOS"})


def _is_iso_like(spelling: str) -> bool:
    return len(spelling) == 3 and spelling.isascii() and spelling.isalpha()


def _edges_ok(text: str, start: int, end: int) -> bool:
    if text[start] in _WORD_CHARS and start > 0 and text[start - 1] in _WORD_CHARS:
        return False
    return not (text[end - 1] in _WORD_CHARS and end < len(text) and text[end] in _WORD_CHARS)


@dataclass(frozen=True)
class Phrase:
    start: int
    end: int
    hits: tuple[Hit, ...]


def phrases_of(text: str, hits: list[Hit]) -> list[Phrase]:
    groups: list[list[Hit]] = []
    for hit in hits:
        if groups and _GLUE.match(text[groups[-1][-1].end : hit.start]):
            groups[-1].append(hit)
        else:
            groups.append([hit])
    return [Phrase(g[0].start, g[-1].end, tuple(g)) for g in groups]


class Unreadable(ValueError):
    pass


def interpret(
    phrase: Phrase, text: str, reporting: str | None, *, noted: bool, affix: bool = False
) -> Marker:
    """The marker a phrase states; ``Unreadable`` when its atoms do not make one unit."""
    by_kind: dict[Atom, list[Hit]] = {}
    for hit in phrase.hits:
        by_kind.setdefault(hit.atom, []).append(hit)
    if any(len(hits) > 1 for hits in by_kind.values()):
        raise Unreadable("the same kind of marker twice")
    kinds = set(by_kind)
    spelled = text[phrase.start : phrase.end]
    if Atom.UNREAD in kinds:
        raise Unreadable(f"{by_kind[Atom.UNREAD][0].spelling!r} is a unit the engine does not read")
    scale_hit = next((by_kind[k][0] for k in SCALE_ATOMS if k in by_kind), None)
    if len(kinds & set(SCALE_ATOMS)) > 1:
        raise Unreadable("two scales")
    scale = int(str(scale_hit.value)) if scale_hit else None
    if Atom.PERCENT in kinds:
        if len(kinds) > 1:
            raise Unreadable("a percent with another unit")
        return Marker(UnitKind.PERCENT, None, int(str(by_kind[Atom.PERCENT][0].value)), spelled)
    if Atom.COUNT in kinds:
        if not noted or kinds - {Atom.COUNT, Atom.CJK_SCALE, Atom.SCALE}:
            raise Unreadable("a count word outside a unit note")
        return Marker(UnitKind.COUNT, None, scale, spelled)
    currency: str | None = None
    if Atom.CURRENCY in kinds:
        hit = by_kind[Atom.CURRENCY][0]
        currency = resolve(hit.spelling, reporting)
        if currency is None:
            raise Unreadable(f"{hit.spelling!r} may name several currencies")
    elif Atom.YUAN in kinds:
        currency = resolve("元", reporting)
    if currency is None and Atom.SHORT in kinds and not affix:
        raise Unreadable("a short scale without a currency")
    return Marker(UnitKind.AMOUNT if currency else None, currency, scale, spelled)


SCALE_ATOMS = (Atom.SCALE, Atom.SHORT, Atom.CJK_SCALE)
