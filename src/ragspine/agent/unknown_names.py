"""Names in a question that the profile does not know: a company, unit or region word found
right next to a slot (metric, entity, period), kept for the clarification gateway to ask about
instead of guessing, and Chinese words there that read as metrics instead. Months, table words,
accounting standards and a unit's short name are not names (``agent.not_entities``).
"""

from __future__ import annotations

import re

import rjieba

from ragspine.agent import cues
from ragspine.agent.filler_words import STOPWORDS_EN
from ragspine.agent.not_entities import (
    ends_in_unit_word,
    finance_words_only,
    inside_unit_name,
    join_unit_words,
)
from ragspine.profile.matching import AliasHit, mask

__all__ = ["SLOT", "unknown_entities"]

_ASCII_TOKEN = re.compile(r"[A-Za-z][A-Za-z&\-]*(?:'s|’s)?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")


# What a slot's text (metric, entity, period) is replaced by, so a name next to it is seen.
SLOT = "\x00"
# A name below is made of ASCII words or of a run of two or more CJK characters; text with
# neither cannot hold one.
_NAME_MATERIAL = re.compile(rf"[A-Za-z]|{_CJK_RUN.pattern}")


def unknown_entities(
    residual: str, place_hits: list[AliasHit], cue_spans: list[tuple[int, int]], *, any_case: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Company- or region-like words the profile does not know, found next to a slot, and
    Chinese names there that read as metrics instead ("综合成本率", "投资收益").

    "新加坡" + period + metric, "友邦的" + metric, "AIA" + metric, metric + " of Singapore":
    the leftover word sits right before or after a metric, entity or period. Filler words are
    blanked first so they neither count as candidates nor separate a candidate from its slot;
    slots themselves are filled with a marker character so adjacency can see them.
    """
    found = [h.text for h in place_hits]
    unmasked = residual
    residual = mask(residual, [*((h.start, h.end) for h in place_hits), *cue_spans])
    if _NAME_MATERIAL.search(residual) is None:  # most questions: only slots and cues are left
        return tuple(dict.fromkeys(found)), ()
    fillers = cues.FILLER.finditer(residual)
    residual = mask(
        residual, [m.span() for m in fillers if not inside_unit_name(residual, *m.span())]
    )
    if not any_case:  # "Healthcare division": a name and its unit word read as one name
        residual = join_unit_words(residual)
    runs = (_ANY_CASE_RUN if any_case else _CAPITALISED_RUN).finditer(residual)
    names = [_with_head(unmasked, s, e) for run in runs for s, e, _ in _names_in(run, any_case)]
    if not names and _CJK_RUN.search(residual) is None:  # only filler and stopwords were left
        return tuple(dict.fromkeys(found)), ()
    # Stopwords are blanked so that a name they separate from a slot still sits next to it.
    residual = _ASCII_TOKEN.sub(
        lambda m: _blank(m) if _stopword(m.group()) else m.group(),
        residual,
    )
    metrics: list[str] = []
    for match in _CJK_RUN.finditer(residual):
        if not _next_to_slot(residual, match.start(), match.end()):
            continue
        if _METRIC_ENDING.search(match.group()):
            metrics.append(match.group())
        elif _nameish(match.group()):
            found.append(match.group())
    for start, end, name in names:
        # "Healthcare business unit: net sales": a named unit may head the question.
        gap = _HEADING_GAP if ends_in_unit_word(name) else ""
        if _next_to_slot(residual, start, end, gap=gap):
            found.append(name)
    return tuple(dict.fromkeys(found)), tuple(dict.fromkeys(metrics))


# How the name of a financial measure ends: a rate, a cost, an income, a value.
_METRIC_ENDING = re.compile(
    r"(?:率|成本|费用|收益|保费|利润|入|价值|余额|总额|金额|现金流|赔付|开支|支出|比例)$"
)


# Words one space apart form one name: "Great Eastern", "Ping An", "Bank of Asia". In a
# question that uses capitals a name is capitalised words (joined by "of", "and", "&"), so a
# sentence such as "Ignore all previous instructions" is not read as one; in a question typed
# all in lower case, any run of words between stopwords may be a name.
_WORD = r"[A-Za-z][A-Za-z&\-]*(?:'s|’s)?"
_CAPITALISED = r"[A-Z][A-Za-z&\-]*(?:'s|’s)?"
_ANY_CASE_RUN = re.compile(rf"(?<![A-Za-z]){_WORD}(?: {_WORD})*")
_CAPITALISED_RUN = re.compile(
    rf"(?<![A-Za-z]){_CAPITALISED}(?: (?:(?:of|and|&) )?{_CAPITALISED})*(?![A-Za-z])"
)


def _names_in(run: re.Match[str], any_case: bool) -> list[tuple[int, int, str]]:
    """The names inside a run of words, with their spans.

    A capitalised run is one name once the stopwords that open it and the lower-case ones
    that close it are trimmed ("For Prudential" → "Prudential", while the capitalised "An" of
    "Ping An" stays). In a lower-case question stopwords split the run instead ("partners
    with banks" is two candidates, never one). Single letters are never names.
    """
    groups: list[list[re.Match[str]]] = [[]]
    for word in _ASCII_TOKEN.finditer(run.group()):
        if any_case and _stopword(word.group()):
            groups.append([])
        else:
            groups[-1].append(word)
    found = []
    for words in groups:
        while words and _stopword(words[0].group()):
            words.pop(0)
        while words and _stopword(words[-1].group()) and not words[-1].group()[0].isupper():
            words.pop()
        if not words:
            continue
        start, end = run.start() + words[0].start(), run.start() + words[-1].end()
        name = _bare(run.string[start:end])
        if len(name) > 1:
            found.append((start, end, name))
    return found


def _with_head(text: str, start: int, end: int) -> tuple[int, int, str]:
    """The name at ``text[start:end]`` with the metric head word right after or before it,
    when the name is only words of financial reports ("Ceded" of "Ceded Premiums", "Written"
    of "Premiums Written"): the head is a cue word, masked with the cues, but the whole is a
    metric the profile lacks, not an entity. A proper name stays one ("AIA premiums")."""
    if not finance_words_only(text[start:end]):
        return start, end, _bare(text[start:end])
    after = _HEAD_AFTER.match(text, end)
    if after is not None:
        end = after.end()
    before = _HEAD_BEFORE.search(text, 0, start)
    if before is not None:
        start = before.start()
    return start, end, _bare(text[start:end])


_HEADS = "|".join(cues.METRIC_HEADS_EN)
_HEAD_AFTER = re.compile(rf"(?i) +(?:{_HEADS})(?![A-Za-z])")
_HEAD_BEFORE = re.compile(rf"(?i)(?<![A-Za-z])(?:{_HEADS}) +\Z")


def _stopword(word: str) -> bool:
    return _bare(word).casefold() in STOPWORDS_EN


# Part-of-speech tags (jieba's) that can name a company or a place: nouns, place words,
# proper nouns, and words the dictionary does not know at all.
_NAME_TAGS = ("n", "s", "x", "eng", "j")


def _nameish(run: str) -> bool:
    """A leftover CJK run can be a company or region only if some word in it is noun-like.

    Verbs ("扭亏", "提升"), conjunctions ("既然"), pronouns ("其他") and the like are ordinary
    words next to a slot, not an entity the profile lacks.
    """
    return any(tag.startswith(_NAME_TAGS) for _, tag in rjieba.tag(run))


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _bare(word: str) -> str:
    """``word`` without a possessive "'s" (words never hold a line break, so no regex)."""
    return word[:-2] if word.endswith(_POSSESSIVE) else word


_POSSESSIVE = ("'s", "’s")


# What may stand between a named unit and the slot after it besides spaces.
_HEADING_GAP = ":：-–—"


def _next_to_slot(text: str, start: int, end: int, *, gap: str = "") -> bool:
    """Whether a slot marker sits right before or after ``text[start:end]``, across spaces
    (and, after the name, across the characters of ``gap``)."""
    after = end
    while after < len(text) and (text[after].isspace() or text[after] in gap):
        after += 1
    before = start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    return (after < len(text) and text[after] == SLOT) or (before > 0 and text[before - 1] == SLOT)
