"""Question normalization: invisible, full-width and spaced characters read as plain text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.agent.normalize import normalize_question
from ragspine.profile import normalize


@pytest.mark.parametrize(
    ("typed", "normalized"),
    [
        ("香\u200b港FY2025收入是多少", "香港FY2025收入是多少"),  # zero-width space
        ("香\u200d港\ufeff收入", "香港收入"),  # zero-width joiner, byte-order mark
        ("\u202e香港\u202c收入", "香港收入"),  # bidi override and pop
        ("\u2066HK\u2069 revenue", "HK revenue"),  # bidi isolate
        ("ＡＣＭＥ ＨＫ revenue in FY2025?", "ACME HK revenue in FY2025?"),
        ("香港２０２３年收入是多少", "香港2023年收入是多少"),
        ("Ｇｌｏｂｅｘ FY2025 revenue?", "Globex FY2025 revenue?"),
        ("香 港FY2025收入", "香港FY2025收入"),
        ("香\u3000港FY2025收入", "香港FY2025收入"),  # ideographic space
        ("中 国 内 地 收入", "中国内地收入"),
        # Runs of whitespace, tabs and line breaks are one space; none at the ends.
        ("  What was  Hong\tKong\nrevenue ", "What was Hong Kong revenue"),
        ("香港 \u3000 operating   profit", "香港 operating profit"),
    ],
)
def test_hidden_full_width_and_spaced_characters_fold(typed: str, normalized: str) -> None:
    assert normalize_question(typed) == normalized


@pytest.mark.parametrize(
    "text",
    [
        "What was Hong Kong revenue in FY2024?",
        "香港 operating profit 2024",  # a space between CJK and ASCII stays
        "请问一下，香港FY2025的收入是多少？谢谢！",  # full-width punctuation stays
        "香港，2024年收入",  # "，" must not become "," glued to a year
    ],
)
def test_ordinary_text_is_left_as_typed(text: str) -> None:
    assert normalize_question(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "香\u200b港２０２３年 收入",
        "ＡＣＭＥ\u00a0ＨＫ，revenue",
        "香 \u200b 港",
        " a \t\n b ",
        "\x00 x",
    ],
)
def test_normalization_is_idempotent(text: str) -> None:
    once = normalize_question(text)
    assert normalize_question(once) == once


def test_what_the_fast_path_skips_is_never_printable() -> None:
    # normalize_question skips its invisible-character and CJK-space passes for printable text
    # without a plain space; that is sound only while Python agrees no such character prints.
    from ragspine.profile.normalize import _INVISIBLE

    printable = [chr(c) for c in range(0x110000) if chr(c).isprintable()]
    assert [c for c in printable if _INVISIBLE.match(c)] == []
    assert [c for c in printable if c.isspace() and c != " "] == []


# Texts that fold and texts that do not, so that a sequence drawn from them repeats some,
# alternates others and passes a folded text right after the text it came from.
_REMEMBERED = st.sampled_from(
    ["香\u200b港收入", "香港收入", "ＡＣＭＥ ＨＫ", "ACME HK", "  a  b ", "a b", "", " "]
) | st.text(alphabet="香港 \u200bＡa2２\t", max_size=6)


@given(st.lists(_REMEMBERED, max_size=12))
def test_the_remembered_folding_is_only_ever_served_for_its_own_text(texts: list[str]) -> None:
    for text in texts:
        got = normalize_question(text)
        normalize._last = ("", "")  # forget, then fold it from scratch
        assert got == normalize_question(text)
