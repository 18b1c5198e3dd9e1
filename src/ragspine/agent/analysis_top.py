"""Counted rankings: how many units a ranking shows ("top 3", "bottom two", "the two lowest",
"highest 2", "前3名", "后两名"), as alias entries of kind ``top`` or ``bottom`` whose code is
the count."""

from __future__ import annotations

from ragspine.profile.matching import AliasEntry

_NUMERALS_ZH = "一二三四五六七八九十"
_WORDS_EN = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_TOP_MAX = 10
# The superlatives a count stands after ("top 3", "lowest two") or before ("the two lowest").
_HEADS = {
    "top": ("top", "highest", "largest", "biggest"),
    "bottom": ("bottom", "lowest", "smallest"),
}


def top_entries() -> list[AliasEntry]:
    """Every counted-ranking phrase, for the analyst cue automaton."""
    found = []
    for n in range(1, _TOP_MAX + 1):
        for kind, heads in _HEADS.items():
            for count in (str(n), _WORDS_EN[n - 1]):
                found += [AliasEntry(f"{head} {count}", kind, str(n)) for head in heads]
                found += [AliasEntry(f"{count} {head}", kind, str(n)) for head in heads[1:]]
                found += [AliasEntry(f"{kind}{count}", kind, str(n))] if count.isdigit() else []
        zh = [str(n), _NUMERALS_ZH[n - 1], *(("两",) if n == 2 else ())]
        for count in zh:
            for tail in ("名", "大", "个", "位", *(("",) if count.isdigit() else ())):
                found.append(AliasEntry(f"前{count}{tail}", "top", str(n)))
            for tail in ("名", "位"):
                found.append(AliasEntry(f"后{count}{tail}", "bottom", str(n)))
    return found
