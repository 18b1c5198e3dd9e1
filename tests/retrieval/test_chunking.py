"""Chunks follow the document's structure and stay within the size cap."""

from __future__ import annotations

from ragspine.retrieval.chunking import chunk_blocks
from ragspine.storage.documents import TextBlockRow


def para(n: int, text: str, *, head: str = "page=3", kind: str = "paragraph") -> TextBlockRow:
    return TextBlockRow("memo.pdf", n, f"{head},para={n}", kind, "Review", text, "INTERNAL", "en")


def test_neighbouring_paragraphs_merge_up_to_the_cap() -> None:
    chunks = chunk_blocks([para(1, "a" * 10), para(2, "b" * 10), para(4, "c" * 10)], cap=100)

    assert [(c.locator, c.text) for c in chunks] == [
        ("page=3,para=1-2", f"{'a' * 10} {'b' * 10}"),
        ("page=3,para=4", "c" * 10),  # not next to para 2
    ]
    assert [c.chunk_id for c in chunks] == ["memo.pdf#1", "memo.pdf#2"]


def test_a_long_block_splits_at_sentence_ends_and_keeps_its_locator() -> None:
    text = "Revenue grew. " * 20
    chunks = chunk_blocks([para(1, text.strip())], cap=60)

    assert len(chunks) > 1
    assert all(len(c.text) <= 60 and c.locator == "page=3,para=1" for c in chunks)
    assert all(c.text.endswith("grew.") for c in chunks)
    assert " ".join(c.text for c in chunks) == text.strip()


def test_a_sentence_longer_than_the_cap_is_cut_at_spaces_or_at_the_cap() -> None:
    words = " ".join(f"word{i}" for i in range(2000))  # no sentence end at all
    cjk = "收入增长" * 5000  # no space either
    for text in (words, cjk):
        chunks = chunk_blocks([para(1, text)], cap=600)
        assert len(chunks) >= len(text) // 600
        assert all(0 < len(c.text) <= 600 for c in chunks)
        assert "".join(c.text for c in chunks).replace(" ", "") == text.replace(" ", "")
    cut = chunk_blocks([para(1, words)], cap=600)
    tokens = [token for c in cut for token in c.text.split()]
    assert tokens == words.split()  # no word cut in half
