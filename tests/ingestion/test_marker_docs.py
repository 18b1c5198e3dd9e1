"""docs/ingestion.md lists every unit word the reader knows: a spelling added to the reader's
vocabulary without a line in the docs fails here."""

from __future__ import annotations

from pathlib import Path

from ragspine.ingestion import unit_words

SECTION = "## Unit markers"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "ingestion.md"


def unit_marker_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + len(SECTION))]


def test_every_scale_percent_count_and_yuan_spelling_is_documented() -> None:
    section = unit_marker_section().lower()
    vocabulary = [
        *unit_words._ENGLISH_SCALES,
        *unit_words._SHORT_SCALES,
        *unit_words._CJK_SCALES,
        *unit_words._PERCENTS,
        *unit_words._COUNTS,
        *unit_words._YUAN,
        *unit_words._UNREAD_SCALES,
    ]
    assert len(vocabulary) > 50  # the tables were read, not an empty module
    missing = [word for word in vocabulary if word.lower() not in section]
    assert missing == []
