"""Text normalization: the one folding the parser, the gate and ingestion's screens share.

Pasted or hostile text carries characters that look like nothing or like something else:
zero-width and bidi controls inside a name ("甲\\u200b乙"), full-width letters and digits
("ＡＢＣ", "２０２３年"), spaces typed between the characters of a Chinese name ("甲 乙"), runs of
spaces, tabs or line breaks. ``normalize_question`` folds all of them so "甲\\u200b乙" reads as
"甲乙" and every gap between words is one plain space; the text as typed is kept for display by
the caller. It lives here, below the agent and ingestion, so a question and
a document's prose are folded by the same rule.
"""

from __future__ import annotations

import re
import unicodedata

# Format characters that render as nothing: zero-width space / joiners / marks, bidi embeddings,
# overrides and isolates, word joiner and invisible operators, the byte-order mark, soft hyphen.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# Full-width punctuation stays as typed: Chinese text uses "，" and "：" as its own separators,
# and NFKC would turn "甲乙，2024年" into "甲乙,2024年", where "," next to a digit reads as part of
# a number. Letters, digits and every other compatibility form are folded by NFKC.
_KEPT_PUNCTUATION = re.compile("([\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65])")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Chinese is written without spaces, so a space between two CJK characters splits a name.
_SPACE_IN_CJK = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")


def normalize_question(text: str) -> str:
    """``text`` with invisible characters removed, compatibility forms folded (NFKC), spaces
    between CJK characters dropped and every other run of whitespace written as one space (none
    at the ends). Idempotent; text with neither comes back unchanged.

    Readers of the result (the parser's alias matchers above all) may then take every run of
    spaces in it for a span they blanked themselves, never for a gap the user typed.
    """
    # One question is folded three times on its way through (the agent, the parser, the gate's
    # screen of the text as typed): the last text and its folding are kept, one tuple so that
    # a thread never reads one's text with another's result.
    global _last
    last = _last
    if text == last[0]:
        return last[1]
    typed = text
    if not text.isascii():
        # Invisible characters are format characters and every whitespace but the plain space
        # is a separator: neither is printable, so printable text skips both regexes.
        if not text.isprintable():
            text = _INVISIBLE.sub("", text)
        if not unicodedata.is_normalized("NFKC", text):
            text = "".join(
                part if index % 2 else unicodedata.normalize("NFKC", part)
                for index, part in enumerate(_KEPT_PUNCTUATION.split(text))
            )
        if " " in text or not text.isprintable():
            text = _SPACE_IN_CJK.sub("", text)
    # The common case first: single plain spaces (``isprintable`` is False for any other
    # whitespace and for control characters).
    if "  " in text or not text.isprintable() or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    _last = (typed, text)
    return text


_last = ("", "")
