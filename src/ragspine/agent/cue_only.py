"""Whether a question is made of a cue alone, or asks about a topic of its own.

"and its share?", "what about its share of the whole?" and "占比呢？" are a cue nothing
computes, asked of the previous figure (``agent.conversation``). "tell me about the share
buyback" or "what about the share price?" hold the same cue word but name a topic of their
own ("buyback", "price"): they are new questions, never the previous figure's qualifier. What
is left of a question once its cue words, the profile's names (metrics, units, channels,
groups), filler words and punctuation are taken out tells the two apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ragspine.agent.analysis_cues import CUE_WORDS
from ragspine.agent.filler_words import FILLER_ZH, STOPWORDS_EN
from ragspine.agent.normalize import normalize_question
from ragspine.agent.period_breakdown import breakdown_cues
from ragspine.profile.glossary import glossary_for
from ragspine.profile.model import DomainProfile

__all__ = ["asks_only_the_cue"]

# What a follow-up wraps a cue in: "what about", "how about", "那…呢", "还有…".
_FOLLOW_UP_ZH = (
    "那么",
    "那",
    "呢",
    "还有",
    "它的",
    "它",
    "其",
    "该",
    "这个",
    "请问",
    "怎么样",
    "如何",
)
_FOLLOW_UP_EN = frozenset(
    {"about", "its", "their", "also", "then", "too", "so", "ok", "okay", "whole", "overall"}
)
_WORD_EN = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class _Vocabulary:
    words_en: frozenset[str]  # every English word that is a name, cue or filler
    phrases_zh: tuple[str, ...]  # every Chinese name, cue or filler, longest first


def _build(profile: DomainProfile) -> _Vocabulary:
    names = [entry.alias for entry in glossary_for(profile).terms.entries()]
    for group in profile.groups:
        names += [group.name_zh, group.name_en, *group.aliases]
    phrases = [*names, *CUE_WORDS, *(word for word, _ in breakdown_cues())]
    words_en = {w for phrase in phrases for w in _WORD_EN.findall(phrase.casefold())}
    zh = {p for p in (*phrases, *FILLER_ZH, *_FOLLOW_UP_ZH) if _CJK.search(p)}
    return _Vocabulary(
        frozenset(words_en | STOPWORDS_EN | _FOLLOW_UP_EN),
        tuple(sorted(zh, key=len, reverse=True)),
    )


def asks_only_the_cue(question: str, cue_texts: Iterable[str], profile: DomainProfile) -> bool:
    """True when nothing but the cue (``cue_texts``: the words the parser read it from, a
    ratio's words too), names, fillers and punctuation is left of ``question``."""
    vocabulary = profile.compiled("cue-only-vocabulary", _build)
    text = normalize_question(question).casefold()
    for cue in sorted(cue_texts, key=len, reverse=True):
        text = text.replace(cue.casefold(), " ")
    for phrase in vocabulary.phrases_zh:
        if phrase in text:
            text = text.replace(phrase, " ")
    if _CJK.search(text):
        return False
    return all(word in vocabulary.words_en for word in _WORD_EN.findall(text))
