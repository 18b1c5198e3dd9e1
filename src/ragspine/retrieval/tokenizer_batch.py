"""Many texts tokenized at once by compiled string kernels: ``tokenize``'s tokens, without its
per-chunk Python loop.

At a million chunks the regex ``findall`` calls of ``tokenizer.tokenize`` cost more than tantivy
takes to index their tokens. For the ``BIGRAM`` mode the same steps run here as polars
expressions over a whole batch (Rust's ``regex`` and Unicode tables, no Python object per
token), about twice as fast per chunk:

* NFKC, then lower-case (``str.normalize``, ``str.to_lowercase``);
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


def token_strings(texts: Sequence[str], mode: TokenizerMode = TokenizerMode.BIGRAM) -> list[str]:
    """For each text, ``" ".join(tokenize(text, mode))``: what a lexical index stores."""
    if mode is not TokenizerMode.BIGRAM or len(texts) < MIN_BATCH:
        return [" ".join(tokenize(text, mode)) for text in texts]
    return _bigram_batch(texts)


def _bigram_batch(texts: Sequence[str]) -> list[str]:
    import polars as pl  # the index writer's dependency; questions never load it

    # Lazy, so polars runs the three token streams on its threads side by side.
    text = pl.col("raw").str.normalize("NFKC").str.to_lowercase()
    cjk = pl.col("text").str.replace_all(_NOT_CJK, " ")
    tokens = pl.concat_list(
        pl.col("text").str.extract_all(_WORD),
        pl.col("cjk").str.extract_all(_EVEN_OR_LONE),
        pl.col("cjk").str.replace_all(_RUN_START, "$1").str.extract_all(_PAIR),
    )
    frame = pl.LazyFrame({"raw": list(texts)}, schema={"raw": pl.String})
    frame = frame.select(text.alias("text")).with_columns(cjk.alias("cjk"))
    return frame.select(tokens.list.join(" ")).collect().to_series().to_list()
