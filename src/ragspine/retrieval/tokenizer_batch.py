"""Many texts tokenized at once by compiled string kernels: ``tokenize``'s tokens, without its
per-chunk Python loop.

At a million chunks the regex ``findall`` calls of ``tokenizer.tokenize`` cost more than tantivy
takes to index their tokens. For the ``BIGRAM`` mode the same steps run here as polars
expressions over a whole batch (Rust's ``regex`` and Unicode tables, no Python object per
token), about twice as fast per chunk:

* NFKC, then lower-case (``str.normalize``, ``str.to_lowercase``). NFKC costs a third of the
  batch, and most report text needs none of it beyond full-width forms: those are replaced by
  their NFKC images (``str.replace_many``), and only the texts that still hold a character
  outside ``NFKC_STABLE`` are normalised. Both steps give NFKC's result exactly: NFKC
  decomposes a full-width form to that same ASCII character first, and no string of stable
  characters (none of them combining, each its own NFKC) changes under NFKC;
* Latin/digit words: decimals first, then runs of letters and digits that are not CJK —
  ``[\\p{L}\\p{N}]`` is exactly Python's ``[^\\W_]`` on every character Python's Unicode
  tables assign;
* CJK: every non-CJK stretch becomes one space, so a run stands between spaces; pairs from
  each run's first character, a lone character as a unigram (``\\b``: only spaces border a
  run); then each run's first character dropped and pairs again (the odd bigrams).

The result is the string ``" ".join(tokenize(text, mode))`` for each text, token for token and
in the same order (``tests/retrieval/test_tokenizer_batch.py`` pins it). Queries keep using
``tokenize``. The ``JIEBA`` and ``BOTH`` modes, and batches too small to repay polars' fixed
cost per call, take ``tokenize`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragspine.retrieval.tokenizer import CJK_CLASS, TokenizerMode, tokenize

# Below this many texts, polars' fixed cost per call (~1 ms) exceeds what it saves; the first
# call in a process also pays ~0.1 s to start polars.
MIN_BATCH = 64

_WORD = rf"[0-9]+(?:\.[0-9]+)+|[[\p{{L}}\p{{N}}]--[{CJK_CLASS}]]+"
_NOT_CJK = rf"[^{CJK_CLASS}]+"
_RUN_START = rf"(^| )[{CJK_CLASS}]"
_EVEN_OR_LONE = rf"[{CJK_CLASS}]{{2}}|\b[{CJK_CLASS}]\b"
_PAIR = rf"[{CJK_CLASS}]{{2}}"
# Full-width ASCII forms and the ideographic space, and what NFKC makes of each.
FULL_WIDTH = [chr(code) for code in range(0xFF01, 0xFF5F)] + ["\u3000"]
FULL_WIDTH_NFKC = [chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)] + [" "]
# Characters NFKC leaves alone in any string of them: ASCII, CJK ideographs (unified and
# extension A) and common Chinese punctuation (、。《》「」『』 — ‘’“”);
# ``tests/retrieval/test_tokenizer_batch.py`` checks each.
NFKC_STABLE = (
    "\x00-\x7f\u2014\u2018\u2019\u201c\u201d\u3001\u3002\u300a-\u300f\u3400-\u4dbf\u4e00-\u9fff"
)


def token_strings(texts: Sequence[str], mode: TokenizerMode = TokenizerMode.BIGRAM) -> list[str]:
    """For each text, ``" ".join(tokenize(text, mode))``: what a lexical index stores."""
    if mode is not TokenizerMode.BIGRAM or len(texts) < MIN_BATCH:
        return [" ".join(tokenize(text, mode)) for text in texts]
    return _bigram_batch(texts)


def _bigram_batch(texts: Sequence[str]) -> list[str]:
    import polars as pl  # the index writer's dependency; questions never load it

    raw = pl.Series("raw", texts, dtype=pl.String).str.replace_many(FULL_WIDTH, FULL_WIDTH_NFKC)
    unstable = raw.str.contains(f"[^{NFKC_STABLE}]").arg_true()
    if len(unstable):
        raw = raw.scatter(unstable, raw.gather(unstable).str.normalize("NFKC"))
    # Lazy, so polars runs the three token streams on its threads side by side.
    text = pl.col("raw").str.to_lowercase()
    cjk = pl.col("text").str.replace_all(_NOT_CJK, " ")
    tokens = pl.concat_list(
        pl.col("text").str.extract_all(_WORD),
        pl.col("cjk").str.extract_all(_EVEN_OR_LONE),
        pl.col("cjk").str.replace_all(_RUN_START, "$1").str.extract_all(_PAIR),
    )
    frame = pl.LazyFrame({"raw": raw})
    frame = frame.select(text.alias("text")).with_columns(cjk.alias("cjk"))
    return frame.select(tokens.list.join(" ")).collect().to_series().to_list()
