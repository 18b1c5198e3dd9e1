"""Batched tokenization: exactly ``tokenize``'s tokens, in its order, for every text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragspine.retrieval.tokenizer import TokenizerMode, tokenize
from ragspine.retrieval.tokenizer_batch import MIN_BATCH, token_strings

# The cases of test_tokenizer.py and the corners where Python's and Rust's Unicode rules could
# part: final sigma, dotted I, combining marks, compatibility forms, CJK beside Latin, kana,
# Hangul, extension B, lone and odd-length runs, underscores, decimals.
CASES = [
    "",
    "，。！ -- ** ",
    "险",
    "a险b，寿",
    "香港收入增长",
    "香港收入增长率",
    "香港FY2024收入，增长",
    "Revenue GROWTH, Net_Profit (end.Next)",
    "VONB margin 8.2% on 1,234 cases",
    "Café Москва Ελλάδα ΟΔΟΣ ΟΔΟΣ.",
    "İstanbul ǅemal ß",
    "ＦＹ２０２４ Ｒｅｖｅｎｕｅ 收入８．２％",
    "タワー 한국어 ｶﾀｶﾅ",
    "2024年度x年y_年_ 年\u0301 Ｅ\u0301年",
    "x² ½ ① ㍿ ﬁnance 𠀋𠀌 𠀍",
    "1.2.3 .5 5. 8..2 v2.0beta",
    "保险公司 保险 公司 保",
]


def expected(texts: list[str], mode: TokenizerMode = TokenizerMode.BIGRAM) -> list[str]:
    return [" ".join(tokenize(text, mode)) for text in texts]


def test_each_case_in_a_batch() -> None:
    texts = CASES * (MIN_BATCH // len(CASES) + 1)
    assert len(texts) >= MIN_BATCH
    assert token_strings(texts) == expected(texts)


def test_small_batches_give_the_same() -> None:
    assert token_strings(CASES[:3]) == expected(CASES[:3])


def test_jieba_modes_tokenize_in_python() -> None:
    texts = CASES * 4
    for mode in (TokenizerMode.JIEBA, TokenizerMode.BOTH):
        assert token_strings(texts, mode) == expected(texts, mode)


# Characters Python's Unicode tables assign (Cn are unassigned, Cs surrogates), weighted
# toward the scripts, digits and separators the tokenizer treats differently.
_MIXED = st.one_of(
    st.characters(exclude_categories=("Cn", "Cs")),
    st.sampled_from("香港收入增长率保险タワー한국어 .,_8２，。ΣσİéÉ\u0301"),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4E10),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(_MIXED, max_size=40), min_size=MIN_BATCH, max_size=MIN_BATCH + 20))
def test_any_text(texts: list[str]) -> None:
    assert token_strings(texts) == expected(texts)


def test_the_nfkc_shortcut_holds_for_every_character_it_trusts() -> None:
    """Each full-width form is replaced by exactly NFKC's image of it, and each character the
    batch leaves unnormalised is its own NFKC and combines with nothing."""
    import re
    import sys
    import unicodedata

    from ragspine.retrieval.tokenizer_batch import FULL_WIDTH, FULL_WIDTH_NFKC, NFKC_STABLE

    assert [unicodedata.normalize("NFKC", c) for c in FULL_WIDTH] == FULL_WIDTH_NFKC
    stable = re.compile(f"[{NFKC_STABLE}]")
    trusted = [chr(c) for c in range(sys.maxunicode + 1) if stable.fullmatch(chr(c))]
    assert len(trusted) > 128 + 20_000
    for character in trusted:
        assert unicodedata.normalize("NFKC", character) == character, hex(ord(character))
        assert unicodedata.combining(character) == 0, hex(ord(character))
        assert unicodedata.category(character) not in ("Mn", "Mc", "Me"), hex(ord(character))


def test_texts_that_need_nfkc_and_texts_that_do_not_share_a_batch() -> None:
    stable = ["香港收入增长，８．２％", "Revenue 8.2%", "《年报》“增长”—「保险」"]
    unstable = ["ﬁnance ① ㍿", "Ｅ\u0301年", "x² ½ café", "\u00a0NBSP…"]
    texts = (stable + unstable) * (MIN_BATCH // 7 + 1)
    assert token_strings(texts) == expected(texts)
