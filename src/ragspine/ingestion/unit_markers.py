"""Read the unit markers a report writes — "A$'000", "单位：人民币百万元", "(in thousands)",
"€m", "%" — into partial units (kind, currency, scale), and name every unit-like token that
cannot be read fully, so a table is never read under a unit nobody could explain.

Text is scanned once for *atoms* (a currency spelling from CLDR, a scale word, "元", a percent
word, a count word after a unit note); atoms next to each other ("A$" + "million",
"人民币" + "千" + "元") form one *phrase*, read as one marker (``unit_words``). A phrase that
cannot be read (two currencies, a percent with a scale) is unknown. In prose (titles, context
lines) a phrase touching a number ("US$3.5bn", "grew 12%") states a value, not the table's
unit, and is left alone; a lone scale word counts only where a unit is declared: in
parentheses, after a unit note ("单位：", "Unit:", "in …") or as a line of its own. Inside such
parentheses or after a strong unit note, every word must be explained, or the rest is an
unknown token.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from ragspine.ingestion.unit_words import (
    SCALE_ATOMS,
    Atom,
    Hit,
    Marker,
    Phrase,
    Unreadable,
    find_atoms,
    interpret,
    phrases_of,
)
from ragspine.units import UnitKind


@dataclass(frozen=True)
class UnitReading:
    marker: Marker | None
    spans: tuple[tuple[int, int], ...]  # the text explained as unit markers and notes
    unknown: tuple[str, ...]  # unit-like tokens that could not be read


# Unit notes: strong ones declare that a unit follows; "in" only joins a phrase it precedes.
_STRONG_NOTE = re.compile(r"(?:单位|單位|货币单位|貨幣單位)\s*[:：]?\s*|units?\s*[:：]\s*", re.I)
_WEAK_NOTE = re.compile(
    r"(?<![A-Za-z])(?:(?:amounts?|figures?|expressed|stated|presented|denominated)\s+)?in\s+$",
    re.IGNORECASE,
)
# Wording that qualifies a declared unit without changing what it says.
_QUALIFIERS = re.compile(
    r"unless\s+(?:otherwise\s+)?(?:stated|specified|indicated|noted)"
    r"|except\s+(?:for\s+)?(?:per[\s-]share\s+(?:data|amounts?|figures?)|percentages?|ratios?"
    r"|where\s+(?:otherwise\s+)?(?:stated|noted|indicated))"
    r"|除(?:非)?另有(?:说明|說明|注明|註明|指明|列明)(?:外|者)?",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"[\s,，;；:：/()（）\[\]【】'’\-–—.。、]+|(?<![A-Za-z])(?:in|of|and)(?![A-Za-z])"
)
_NUMBER_BEFORE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*$")
_NUMBER_AFTER = re.compile(r"^\s*[(\-−]?\d")
_DOLLARISH = re.compile(r"(?<![A-Za-z$])[A-Z]{1,3}\$")
_PAREN = re.compile(r"[(（]([^()（）]*)[)）]")
_YEAR = re.compile(r"(?:19|20)\d\d")


def read_units(text: str, reporting_currency: str | None, *, prose: bool) -> UnitReading:
    """The marker ``text`` declares (its phrases merged), the spans they and their notes cover,
    and the unit-like tokens it holds that cannot be read. ``text`` is NFKC-normalised."""
    return _read(text, reporting_currency, prose)


@lru_cache(maxsize=8192)
def _read(text: str, reporting: str | None, prose: bool) -> UnitReading:
    # Every step is linear in the text (spans found by bisection, cover read from a mask): a
    # damaged file can repeat a header thousands of times in one cell.
    hits = find_atoms(text)
    atoms = _mask(len(text), [(h.start, h.end) for h in hits])
    unknown = [m.group() for m in _DOLLARISH.finditer(text) if not all(atoms[m.start() : m.end()])]
    notes = {m.end(): m.start() for m in _STRONG_NOTE.finditer(text)}
    if not hits and not notes:
        return UnitReading(None, (), tuple(unknown))
    parens = [m.span(1) for m in _PAREN.finditer(text)]
    spans: list[tuple[int, int]] = []
    markers: list[Marker] = []  # declared in parentheses, after a note or on their own line
    free: list[Marker] = []  # "US$m" in a running sentence
    phrases = phrases_of(text, hits)
    for phrase in phrases:
        if prose and _touches_number(text, phrase):
            continue  # "US$3.5bn", "grew 12%": a value the prose states, not the table's unit
        note = notes.get(phrase.start)
        noted = note is not None
        weak = _WEAK_NOTE.search(text, max(0, phrase.start - _NOTE_REACH), phrase.start)
        inside = _within(parens, phrase.start, phrase.end)
        declared = noted or inside or (len(phrases) == 1 and _alone(text, phrase))
        if not (declared or weak is not None or _stands_alone(phrase, prose)):
            continue
        try:
            found = interpret(phrase, text, reporting, noted=noted)
        except Unreadable:
            unknown.append(text[phrase.start : phrase.end])
            continue
        (markers if declared or not prose else free).append(found)
        begin = note if note is not None else weak.start() if weak else phrase.start
        spans.append((begin, phrase.end))
    unknown += _unexplained(text, [(s, e) for e, s in notes.items()], parens, hits, atoms, spans)
    # A sentence naming several units ("Value in US$ billions; all other amounts in US$ millions")
    # describes a table of mixed units: it declares none, and each line's own header decides.
    marker = _merge(markers, unknown) if markers else _merge(free, [])
    return UnitReading(marker, tuple(spans), tuple(dict.fromkeys(unknown)))


def _stands_alone(phrase: Phrase, prose: bool) -> bool:
    """Whether a phrase outside parentheses and notes still declares a unit: a currency with a
    scale ("US$m", "百万美元") or "%" anywhere; in a header, also a currency or a scale word."""
    atoms = {h.atom for h in phrase.hits}
    if Atom.CURRENCY in atoms and atoms & set(SCALE_ATOMS):
        return True
    if Atom.YUAN in atoms and Atom.CJK_SCALE in atoms:
        return True
    if any(h.spelling == "%" for h in phrase.hits) or Atom.UNREAD in atoms:
        return True
    if prose:
        return False
    return (
        bool(atoms & {Atom.CURRENCY, Atom.SCALE, Atom.PERCENT, Atom.UNREAD}) or Atom.YUAN in atoms
    )


def _touches_number(text: str, phrase: Phrase) -> bool:
    before = _NUMBER_BEFORE.search(text, max(0, phrase.start - _NOTE_REACH), phrase.start)
    if before is not None and not _YEAR.fullmatch(before.group(1)):
        return True
    return _NUMBER_AFTER.match(text[phrase.end :]) is not None


def _alone(text: str, phrase: Phrase) -> bool:
    rest = text[: phrase.start] + " " + text[phrase.end :]
    return not _FILLER.sub("", rest)


_NOTE_REACH = 64  # how far before a phrase its note ("amounts in ") or number is looked for


def _mask(length: int, spans: list[tuple[int, int]]) -> bytearray:
    """1 for each character some span covers."""
    mask = bytearray(length)
    for start, end in spans:
        mask[start:end] = b"\x01" * (end - start)
    return mask


def _within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies inside one of ``spans`` (sorted, not overlapping)."""
    i = bisect_right(spans, start, key=lambda span: span[0]) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


def _unexplained(
    text: str,
    notes: list[tuple[int, int]],
    parens: list[tuple[int, int]],
    hits: list[Hit],
    atoms: bytearray,
    spans: list[tuple[int, int]],
) -> list[str]:
    """Words after a strong unit note, or in parentheses that hold a unit atom, that no marker
    or qualifier explains ("(A$ lakh)", "单位：千桶")."""
    found: list[str] = []
    covered = _mask(len(text), spans)
    starts = [h.start for h in hits]
    for i, (_, start) in enumerate(notes):
        limit = notes[i + 1][0] if i + 1 < len(notes) else len(text)
        end = _clause_end(text, start, limit)  # a note's clause ends where the next begins
        if not _explained(text, start, end, covered):
            found.append(text[start:end].strip())
    for start, end in parens:
        for c_start, c_end in _clauses(text, start, end):
            first = bisect_left(starts, c_start)
            holds_atom = first < len(hits) and hits[first].end <= c_end
            # A number inside ("(A$950m in 2023)") makes it a statement, not a unit.
            numbered = any(c.isdigit() for c in _blank(text, c_start, c_end, atoms))
            if holds_atom and not numbered and not _explained(text, c_start, c_end, covered):
                found.append(text[c_start:c_end].strip())
    return found


def _blank(text: str, start: int, end: int, mask: bytearray) -> str:
    """``text[start:end]`` with each character ``mask`` covers made a space."""
    return "".join(" " if mask[i] else text[i] for i in range(start, end))


_CLAUSE_SEPARATOR = re.compile(r"[,，;；、]")


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated parts of ``text[start:end]`` ("按渠道，百万美元" is two)."""
    cuts = [start, *(m.end() for m in _CLAUSE_SEPARATOR.finditer(text, start, end))]
    return [(a, b) for a, b in zip(cuts, [*cuts[1:], end], strict=True)]


_CLAUSE_END = re.compile(r"[;；。\n)）]|,\s*(?![^,]*(?:unless|except|除))")


def _clause_end(text: str, start: int, limit: int) -> int:
    found = _CLAUSE_END.search(text, start, limit)
    return found.start() if found else limit


def _explained(text: str, start: int, end: int, covered: bytearray) -> bool:
    rest = _QUALIFIERS.sub(" ", _blank(text, start, end, covered))
    return not _FILLER.sub("", rest)


def _merge(markers: list[Marker], unknown: list[str]) -> Marker | None:
    """One marker from a text's phrases; phrases that disagree are an unknown token."""
    if not markers:
        return None
    first = markers[0]
    for other in markers[1:]:
        for field in ("kind", "currency", "scale"):
            a, b = getattr(first, field), getattr(other, field)
            if a is not None and b is not None and a != b:
                unknown.append(f"{first.text} / {other.text}")
                return None
        first = Marker(
            first.kind or other.kind,
            first.currency or other.currency,
            first.scale if first.scale is not None else other.scale,
            f"{first.text} {other.text}",
        )
    return first


def read_affix(text: str, reporting_currency: str | None) -> Marker | None:
    """The marker a cell writes around its number ("A$", "m", "亿元", "%"); ``ValueError``
    when the text around the number is not wholly a unit marker."""
    text = text.strip()
    if not text:
        return None
    hits = find_atoms(text)
    atoms = _mask(len(text), [(h.start, h.end) for h in hits])
    if not hits or _FILLER.sub("", _blank(text, 0, len(text), atoms)):
        raise ValueError(f"{text!r} is not a unit marker")
    phrases = phrases_of(text, hits)
    if len(phrases) != 1:
        raise ValueError(f"{text!r} holds two unit markers")
    try:
        marker = interpret(phrases[0], text, reporting_currency, noted=False, affix=True)
    except Unreadable as exc:
        raise ValueError(f"{text!r}: {exc}") from None
    if marker.kind == UnitKind.COUNT:
        raise ValueError(f"{text!r} is not a unit marker")
    return marker
