"""Question normalization: the one text the gate and the parser read, whatever was typed.

Pasted or hostile questions carry characters that look like nothing or like something else:
zero-width and bidi controls inside a name ("甲\\u200b乙"), full-width letters and digits
("ＡＢＣ", "２０２３年"), spaces typed between the characters of a Chinese name ("甲 乙").
``normalize_question`` folds all of them so "甲\\u200b乙" reads as "甲乙"; the question as typed
is kept for display by the caller, and the security gate screens both texts.

The folding itself lives in ``profile.normalize`` so ingestion screens document prose with the
same rule; this module is the agent's name for it.
"""

from __future__ import annotations

from ragspine.profile.normalize import normalize_question

__all__ = ["normalize_question"]
