from __future__ import annotations

from pathlib import Path

import pytest

from ragspine.errors import IngestError
from ragspine.ingestion.model import LocatorStyle
from ragspine.ingestion.readers.text_reader import TextReader

MARKDOWN = """\
Prepared for the board.

# 收入 Revenue

Hong Kong revenue grew 10%
on strong demand.

单位：百万美元

| Metric | FY2023 | **FY2024** |
|:-------|-------:|-----------:|
| REVENUE | 1,200 | 1,320 |
| Note \\| with pipe | 5 |

## Outlook ##

```python
# not a heading

still code
```

| A | B |
| - | - |
| 1 | 2 |
"""


def test_markdown_headings_start_sections(tmp_path: Path) -> None:
    path = tmp_path / "memo.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    document = TextReader().read(path)
    assert [(b.locator, b.kind, b.text, b.title) for b in document.blocks] == [
        ("section=0,para=1", "paragraph", "Prepared for the board.", ""),
        ("section=1,heading", "heading", "收入 Revenue", "收入 Revenue"),
        (
            "section=1,para=1",
            "paragraph",
            "Hong Kong revenue grew 10%\non strong demand.",
            "收入 Revenue",
        ),
        ("section=1,para=2", "paragraph", "单位：百万美元", "收入 Revenue"),
        ("section=2,heading", "heading", "Outlook", "Outlook"),
        (
            "section=2,para=1",
            "paragraph",
            "```python\n# not a heading\n\nstill code\n```",
            "Outlook",
        ),
    ]
    assert document.title == "收入 Revenue"


def test_markdown_pipe_tables_are_grids_per_section(tmp_path: Path) -> None:
    path = tmp_path / "memo.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    first, second = TextReader().read(path).tables
    assert (first.locator_prefix, first.locator_style) == ("section=1,table=1", LocatorStyle.GRID)
    assert [[c.text for c in row] for row in first.cells] == [
        ["Metric", "FY2023", "FY2024"],
        ["REVENUE", "1,200", "1,320"],
        ["Note | with pipe", "5", ""],
    ]
    assert first.title == "收入 Revenue"
    assert first.context == ("单位：百万美元", "Hong Kong revenue grew 10%\non strong demand.")
    assert second.locator_prefix == "section=2,table=1"
    assert (second.title, [[c.text for c in row] for row in second.cells]) == (
        "Outlook",
        [["A", "B"], ["1", "2"]],
    )


def test_plain_text_is_paragraphs_in_section_zero(tmp_path: Path) -> None:
    path = tmp_path / "notes.TXT"
    path.write_text("# not a heading\nline two\n\n\n| a | b |\n|---|---|\n", encoding="utf-8")
    document = TextReader().read(path)
    assert [(b.locator, b.text) for b in document.blocks] == [
        ("section=0,para=1", "# not a heading\nline two"),
        ("section=0,para=2", "| a | b |\n|---|---|"),
    ]
    assert document.tables == []


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("\ufeff香港收入".encode(), "香港收入"),  # UTF-8 with BOM
        ("香港收入增长".encode("gb18030"), "香港收入增长"),
        ("香港收入".encode("utf-16"), "香港收入"),  # UTF-16 with BOM
    ],
)
def test_encodings(tmp_path: Path, data: bytes, text: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    assert [b.text for b in TextReader().read(path).blocks] == [text]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"revenue \x80\xff grew", "cannot decode text as UTF-8 or GB18030"),
        (b"rev\x00enue", "binary content"),
    ],
)
def test_undecodable_text_is_an_ingest_error(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "garbled.txt"
    path.write_bytes(data)
    with pytest.raises(IngestError, match=rf"garbled\.txt: {reason}"):
        TextReader().read(path)


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("# Outlook", "Outlook"),
        ("## Outlook ##", "Outlook"),
        ("### Outlook\t#  ", "Outlook"),
        ("# Outlook#", "Outlook#"),
        ("# C# and F# ##", "C# and F#"),
        ("# ##", "##"),
        ("# a" + " " * 20_000 + "b", "a" + " " * 20_000 + "b"),
    ],
)
def test_markdown_heading_text_drops_only_a_closing_sequence(
    tmp_path: Path, line: str, title: str
) -> None:
    path = tmp_path / "memo.md"
    path.write_text(f"{line}\n\nbody\n", encoding="utf-8")
    assert TextReader().read(path).blocks[0].text == title


@pytest.mark.parametrize("line", ["#Outlook", "####### x"])
def test_markdown_lines_that_are_not_headings(tmp_path: Path, line: str) -> None:
    path = tmp_path / "memo.md"
    path.write_text(f"{line}\n", encoding="utf-8")
    assert [b.kind for b in TextReader().read(path).blocks] == ["paragraph"]


def test_a_pipe_line_over_a_long_non_delimiter_line_is_a_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "memo.md"
    path.write_text("| a |\n|-" + " " * 20_000 + "x\n", encoding="utf-8")
    document = TextReader().read(path)
    assert (document.tables, len(document.blocks)) == ([], 1)
