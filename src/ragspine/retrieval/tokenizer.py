"""CJK-aware tokenizer for lexical retrieval: Latin words lower-cased, CJK runs as bigrams or words.

Text is NFKC-normalised first (full-width ``ＦＹ２０２４`` reads as ``fy2024``), then:

* **Latin/digit words** — maximal runs of non-CJK word characters (any script: Latin,
  Greek, Cyrillic, accented letters), lower-cased. A decimal number stays one token
  (``8.2`` rather than ``8`` + ``2``): in financial reports "8.2%" and "8%" are different
  facts. Thousands separators are not joined (``1,234`` → ``1`` + ``234``); underscores and
  punctuation separate words.
* **CJK runs** (Han, kana, Hangul) — by ``TokenizerMode``: overlapping character bigrams
  (``BIGRAM``), ``rjieba`` words (``JIEBA``), or both streams (``BOTH``).

The result is a bag of tokens for BM25, not a sequence: Latin words come first, then the CJK
tokens, and the order carries no meaning. Every step is a regex ``findall`` or a C-level string
method — no per-character Python loop — because at a million chunks tokenization costs more
than indexing.
"""

from __future__ import annotations

import re
import unicodedata

from ragspine.enums import ParseableEnum

# The CJK ranges as a character-class body; ``tokenizer_batch`` writes the same class in Rust.
CJK_CLASS = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
_WORD = re.compile(rf"[0-9]+(?:\.[0-9]+)+|[^\W_{CJK_CLASS}]+")
_CJK_RUN = re.compile(rf"[{CJK_CLASS}]+")
# Overlapping bigrams in two non-overlapping passes, which is cheaper than a lookahead at
# every position: pairs starting at even offsets of each run (plus a lone character as a
# unigram), then pairs starting at odd offsets.
_EVEN_BIGRAMS = re.compile(rf"[{CJK_CLASS}]{{2}}|(?<![{CJK_CLASS}])[{CJK_CLASS}](?![{CJK_CLASS}])")
_ODD_BIGRAMS = re.compile(rf"(?<=[{CJK_CLASS}])[{CJK_CLASS}]{{2}}")


class TokenizerMode(ParseableEnum, label="tokenizer mode"):
    """How CJK runs become tokens (Latin words are the same in every mode)."""

    BIGRAM = "bigram"
    JIEBA = "jieba"
    BOTH = "both"


def tokenize(text: str, mode: TokenizerMode = TokenizerMode.BIGRAM) -> list[str]:
    """The tokens of ``text`` (a bag: order carries no meaning), empty for token-less text."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    tokens = _WORD.findall(text)
    if mode != TokenizerMode.JIEBA:
        tokens += _EVEN_BIGRAMS.findall(text)
        tokens += _ODD_BIGRAMS.findall(text)
    if mode != TokenizerMode.BIGRAM:
        tokens += _jieba_words(text)
    return tokens


def _jieba_words(text: str) -> list[str]:
    runs = _CJK_RUN.findall(text)
    if not runs:
        return []
    import rjieba  # only the JIEBA and BOTH modes need its dictionary

    # One call for all runs; the space separators come back as tokens and vanish in split().
    return " ".join(rjieba.cut(" ".join(runs))).split()
