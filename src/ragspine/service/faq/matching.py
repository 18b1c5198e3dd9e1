"""The key a question and a FAQ text are compared by: the same question typed differently reads
as one key.

The agent's question folding comes first (invisible characters out, full-width letters and
digits folded, spaces inside Chinese dropped); the key then folds punctuation to its narrow
form too, drops every space and the letter case, and loses the sentence's closing marks, so
"ＲＢＣ是什么？", "rbc 是什么" and "RBC是什么" share one key while any other word makes another.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from ragspine.agent.normalize import normalize_question
from ragspine.profile.matching import alias_key


@lru_cache(maxsize=1024)  # pure, and asked of every question the service answers
def faq_key(text: str) -> str:
    """The comparison key of ``text``; two texts match a FAQ item exactly when keys are equal."""
    folded = alias_key(unicodedata.normalize("NFKC", normalize_question(text)))
    end = len(folded)
    # Closing marks such as ? ! . 。 … (Unicode "other punctuation"); brackets and quotes stay,
    # they belong to the words they enclose.
    while end and unicodedata.category(folded[end - 1]) == "Po":
        end -= 1
    return folded[:end]
