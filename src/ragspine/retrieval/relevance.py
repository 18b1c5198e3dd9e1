"""Topic terms: the words of a text that say what it is about, for the narrative relevance floor.

A passage can rank high for a question by sharing only the entity, the company or the year
(a deck's opening line "this review covers last year's results" for a question about
a subsidiary's regulatory impact).
Those are what retrieval *filters* on, not what a question asks, so they are masked out here,
with question words, period words and CJK bigrams around a function character (的, 是 …).
What is left — regulation, impact, growth — is the topic. A question's topic takes
in its bilingual rewrite (``rewrite_query``), so an English question meets a Chinese passage.
"""

from __future__ import annotations

from ragspine.profile.glossary import ENTITY, Glossary
from ragspine.profile.matching import mask
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


def topic_terms(text: str, glossary: Glossary) -> frozenset[str]:
    """The tokens of ``text`` once entities, competitors and periods are masked out."""
    spans = [(h.start, h.end) for h in glossary.match_terms(text).hits if h.kind == ENTITY]
    spans += [(h.start, h.end) for h in glossary.competitors.finditer(text)]
    spans += [(p.start, p.end) for p in find_periods(text, calendar=glossary.calendar)]
    return frozenset(_stem(t) for t in tokenize(mask(text, spans)) if _is_topic(t))


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
