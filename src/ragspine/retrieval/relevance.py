"""Topic terms: the words of a text that say what it is about, for the narrative relevance floor.

A passage can rank high for a question by sharing only the entity, the company or the year
(a deck's opening line "this review covers last year's results" for a question about
a subsidiary's regulatory impact).
Those are what retrieval *filters* on, not what a question asks, so they are masked out here,
with question words, period words and CJK bigrams around a function character (的, 是 …).
What is left — regulation, impact, growth — is the topic. A question's topic takes
in its bilingual rewrite (``rewrite_query``), so an English question meets a Chinese passage.

Sharing a word is not always sharing a topic: in "股息政策" (dividend policy) the word 政策 is
modified by 股息, and a sentence about a "会计政策" (accounting policy) shares only that head
word under another modifier. :class:`Topic` does not count such a match on its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ragspine.profile.glossary import ENTITY, Glossary
from ragspine.profile.matching import mask
from ragspine.profile.memo import Memo, memo_for
from ragspine.profile.periods import find_periods
from ragspine.retrieval.rewrite import rewrite_query
from ragspine.retrieval.tokenizer import tokenize

# Words that ask rather than tell, and period words: every question and report has them.
_STOP_WORDS = frozenset(
    {
        *("what", "why", "how", "which", "who", "when", "where", "whose"),
        *("did", "does", "do", "is", "are", "was", "were", "be", "been", "has", "have", "had"),
        *("the", "a", "an", "of", "in", "on", "at", "for", "to", "and", "or", "with", "by"),
        *("from", "its", "it", "this", "that", "there", "about", "any", "our", "their"),
        *("year", "years", "annual", "quarter", "quarterly", "half", "fiscal", "fy", "period"),
        *("reason", "driver", "because", "up"),
        *("什么", "为什", "如何", "怎么", "么样", "多少", "是否", "哪些", "情况", "原因"),
        *("年度", "财年", "季度", "上半", "下半", "半年", "全年", "本年", "去年", "今年"),
    }
)
_STEM = 6
# A CJK bigram holding one of these is grammar, not topic ("年的", "的经", "是多").
_FUNCTION_CHARS = frozenset("的了在是和与及对为把被这那其之也都而或")


# Verbs of change end a clause rather than name a kind of thing: in 业务增长 the word 增长 is
# what the business did, and 规模同比增长 speaks of growth too, so they are never "modified".
_PREDICATES = frozenset(
    {
        *("增长", "下降", "上升", "减少", "增加", "提升", "改善", "变化", "变动", "影响"),
        *("下滑", "回升", "扩大", "缩小", "波动", "放缓", "加快", "好转", "恶化", "回落"),
    }
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
_COMPOUND = 4
_FUNCTION_SPLIT = re.compile(f"[{''.join(sorted(_FUNCTION_CHARS))}]")


def topic_terms(text: str, glossary: Glossary) -> frozenset[str]:
    """The tokens of ``text`` once entities, competitors and periods are masked out (kept
    per profile: a passage is read again by every question that retrieves it)."""
    memo: Memo[frozenset[str]] = memo_for(glossary.profile, "topic_terms")
    return memo.get(
        text,
        lambda: frozenset(_stem(t) for t in tokenize(_masked(text, glossary)) if _is_topic(t)),
    )


def _masked(text: str, glossary: Glossary) -> str:
    spans = [(h.start, h.end) for h in glossary.match_terms(text).hits if h.kind == ENTITY]
    spans += [(h.start, h.end) for h in glossary.competitors.finditer(text)]
    spans += [(p.start, p.end) for p in find_periods(text, calendar=glossary.calendar)]
    return mask(text, spans)


@dataclass(frozen=True)
class Topic:
    """What a question is about: its topic terms (:func:`question_terms`) and, for the CJK
    words it modifies, the characters that modify them there (政策 → {息} in 股息政策)."""

    terms: frozenset[str]
    modified: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, question: str, glossary: Glossary) -> Topic:
        return cls(question_terms(question, glossary), _modified(question, glossary))

    def __bool__(self) -> bool:
        return bool(self.terms)

    def shared_by(self, text: str, glossary: Glossary) -> bool:
        """Whether ``text`` shares a topic term with the question — not counting a modified
        word that ``text`` only has under other modifiers (会计政策 for 股息政策)."""
        shared = topic_terms(text, glossary) & self.terms
        return any(self._same_word(term, text) for term in shared)

    def _same_word(self, term: str, text: str) -> bool:
        modifiers = self.modified.get(term)
        if modifiers is None:
            return True
        starts = (m.start() for m in re.finditer(re.escape(term), text))
        return any(start > 0 and text[start - 1] in modifiers for start in starts)


def _modified(question: str, glossary: Glossary) -> dict[str, frozenset[str]]:
    """The second word of the question's four-character CJK compounds (政策 in 股息政策),
    with the character before it — unless that word also starts a compound of its own.

    Only two-word compounds count: a longer run cannot be cut into words without a
    dictionary, and a modifier is what a short noun compound is made of.
    """
    before: dict[str, set[str]] = {}
    leading: set[str] = set()
    runs = _CJK_RUN.findall(_masked(question, glossary))
    # Function characters (的, 是 ...) end a word: 的股息政策是什么 holds the run 股息政策.
    for run in (part for r in runs for part in _FUNCTION_SPLIT.split(r) if len(part) > 1):
        leading.add(run[:2])
        head = run[2:]
        if len(run) == _COMPOUND and _is_topic(head) and head not in _PREDICATES:
            before.setdefault(head, set()).add(run[1])
    return {t: frozenset(c) for t, c in before.items() if t not in leading}


def question_terms(question: str, glossary: Glossary) -> frozenset[str]:
    """The topic of a question, of its other-language rewrite and of that rewrite's own
    rewrite: the round trip brings back the usual word for a colloquial one (亏钱 → loss →
    亏损), which is the word a report uses."""
    variants = rewrite_query(question, glossary)
    back = [w for v in variants[1:] for w in rewrite_query(v, glossary)[1:]]
    return frozenset().union(*(topic_terms(v, glossary) for v in (*variants, *back)))


def _stem(token: str) -> str:
    """A Latin word's first letters: "regulatory" meets "regulation", "perform" meets
    "performance" (a floor, not a ranking, so a crude stem is enough)."""
    return token[:_STEM] if token.isascii() else token


def _is_topic(token: str) -> bool:
    if token in _STOP_WORDS or token.replace(".", "").isdigit():
        return False
    if token.isascii():
        return len(token) > 1
    return not _FUNCTION_CHARS.intersection(token)
