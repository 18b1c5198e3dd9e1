"""The CJK-aware tokenizer: bigrams, rjieba words, Latin words, NFKC."""

from __future__ import annotations

from collections import Counter

import pytest

from ragspine.retrieval.tokenizer import TokenizerMode, tokenize

BIGRAM, JIEBA, BOTH = TokenizerMode.BIGRAM, TokenizerMode.JIEBA, TokenizerMode.BOTH


def bag(tokens: list[str]) -> Counter[str]:
    """Tokens are a bag for BM25: compare counts, not order."""
    return Counter(tokens)


def test_chinese_run_becomes_overlapping_bigrams() -> None:
    assert bag(tokenize("香港收入增长")) == bag(["香港", "港收", "收入", "入增", "增长"])


def test_lone_cjk_character_is_a_unigram() -> None:
    assert tokenize("险") == ["险"]
    assert bag(tokenize("a险b，寿")) == bag(["a", "b", "险", "寿"])


def test_bigrams_do_not_cross_latin_or_punctuation() -> None:
    assert bag(tokenize("香港FY2024收入，增长")) == bag(["fy2024", "香港", "收入", "增长"])


def test_latin_words_lower_cased_and_split_on_punctuation() -> None:
    assert tokenize("Revenue GROWTH, Net_Profit (end.Next)") == [
        "revenue",
        "growth",
        "net",
        "profit",
        "end",
        "next",
    ]


def test_decimals_stay_one_token_thousands_separators_split() -> None:
    assert tokenize("VONB margin 8.2% on 1,234 cases") == [
        "vonb",
        "margin",
        "8.2",
        "on",
        "1",
        "234",
        "cases",
    ]


def test_non_latin_alphabets_are_words() -> None:
    assert tokenize("Café Москва Ελλάδα") == ["café", "москва", "ελλάδα"]


def test_full_width_is_normalised() -> None:
    assert tokenize("ＦＹ２０２４ Ｒｅｖｅｎｕｅ") == ["fy2024", "revenue"]
    assert bag(tokenize("收入８．２％")) == bag(["8.2", "收入"])


def test_kana_and_hangul_are_cjk() -> None:
    assert bag(tokenize("タワー 한국어")) == bag(["タワ", "ワー", "한국", "국어"])


@pytest.mark.parametrize("mode", list(TokenizerMode))
def test_tokenless_text(mode: TokenizerMode) -> None:
    assert tokenize("", mode) == []
    assert tokenize("，。！ -- ** ", mode) == []


def test_jieba_mode_cuts_words() -> None:
    assert bag(tokenize("香港保险公司收入增长 Revenue", JIEBA)) == bag(
        ["revenue", "香港", "保险公司", "收入", "增长"]
    )


def test_jieba_mode_cuts_each_run_separately() -> None:
    # "港" and "收" are in different runs: no word may span the Latin word between them.
    assert bag(tokenize("香港FY2024收入", JIEBA)) == bag(["fy2024", "香港", "收入"])


def test_latin_words_are_the_same_in_every_mode() -> None:
    text = "ＦＹ２０２４ Revenue 8.2% 香港保险公司"
    latin = ["fy2024", "revenue", "8.2"]
    for mode in TokenizerMode:
        assert tokenize(text, mode)[:3] == latin


def test_both_mode_concatenates_bigram_and_jieba_streams() -> None:
    text = "香港保险公司 revenue 收入"
    latin = bag(["revenue"])
    both = bag(tokenize(text, BOTH))
    assert both == bag(tokenize(text, BIGRAM)) + bag(tokenize(text, JIEBA)) - latin
    assert both["收入"] == 2  # a two-character word is in both streams
    assert both["revenue"] == 1


def test_mode_parse() -> None:
    assert TokenizerMode.parse("JIEBA") is JIEBA
    assert TokenizerMode.parse(" both ") is BOTH
    assert TokenizerMode.parse(BIGRAM) is BIGRAM
    with pytest.raises(ValueError, match="valid options: bigram, jieba, both"):
        TokenizerMode.parse("ngram")
