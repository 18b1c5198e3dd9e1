"""Alias matching: one compiled pattern per vocabulary, longest alias first.

ASCII aliases match only on ASCII word edges (an alias "NIC" never matches inside "picnic")
while CJK aliases match as substrings — Python's ``\\b`` treats CJK characters as word
characters, so edges are spelled out with look-arounds. With ``flexible_spaces`` any run of
whitespace may sit between two characters of an alias, so "甲 乙" cannot slip past an alias
"甲乙".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_ASCII_WORD = re.compile(r"[A-Za-z0-9]")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    """ "zh" when the text contains any CJK character, else "en"."""
    return "zh" if CJK.search(text) else "en"


@dataclass(frozen=True)
class AliasEntry:
    alias: str
    kind: str
    code: str


@dataclass(frozen=True)
class AliasHit:
    kind: str
    code: str
    start: int
    end: int
    text: str


def alias_key(alias: str) -> str:
    """The comparison key of an alias: case-folded with all whitespace removed."""
    return "".join(alias.split()).casefold()


class AliasMatcher:
    def __init__(self, entries: Iterable[AliasEntry], *, flexible_spaces: bool = False) -> None:
        self._by_key: dict[str, AliasEntry] = {}
        for entry in entries:
            self._by_key.setdefault(alias_key(entry.alias), entry)
        aliases = sorted(self._by_key.values(), key=lambda e: len(alias_key(e.alias)), reverse=True)
        parts = [_alias_pattern(e.alias, flexible_spaces) for e in aliases]
        self._pattern = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def finditer(self, text: str) -> Iterator[AliasHit]:
        if self._pattern is None:
            return
        for match in self._pattern.finditer(text):
            entry = self._by_key[alias_key(match.group())]
            yield AliasHit(entry.kind, entry.code, match.start(), match.end(), match.group())

    def entries(self) -> list[AliasEntry]:
        return list(self._by_key.values())

    def lookup(self, term: str) -> AliasEntry | None:
        """The entry whose alias equals ``term`` exactly (modulo case and whitespace)."""
        return self._by_key.get(alias_key(term))


def _alias_pattern(alias: str, flexible_spaces: bool) -> str:
    chars = [c for c in alias if not c.isspace()]
    if flexible_spaces:
        body = r"\s*".join(re.escape(c) for c in chars)
    else:
        words = alias.split()
        body = r"\s+".join(re.escape(w) for w in words)
    head = r"(?<![A-Za-z0-9])" if _ASCII_WORD.match(chars[0]) else ""
    tail = r"(?![A-Za-z0-9])" if _ASCII_WORD.match(chars[-1]) else ""
    return f"{head}{body}{tail}"


def mask(text: str, spans: Iterable[tuple[int, int]], fill: str = " ") -> str:
    """Blank out ``spans`` with equal-length filler so offsets stay valid and nothing leaks."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = fill * (end - start)
    return "".join(chars)
