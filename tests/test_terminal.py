"""``ragspine.terminal``: what it strips, what it keeps, and that JSON stays the same value."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from ragspine.terminal import plain, plain_json, plain_text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b]0;new title\x07b", "ab"),  # OSC ended by BEL
        ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC ended by ST
        ("a\x1b]0;never ended", "a"),
        ("a\x1b]0;ends at the line\nnext", "a\nnext"),
        ("\x1b[31mred\x1b[0m \x1b[2J\x1b[1;1H", "red "),  # CSI colour, erase, move
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS (sixel)
        ("a\x1bcb\x1b7c", "abc"),  # two-character escapes
        ("a\x9b31mb", "a31mb"),  # 8-bit CSI: the control goes, the rest is harmless text
        ("bell\x07 del\x7f nul\x00 cr\r", "bell del nul cr"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("[/bold] [red]收入[/red] 1,320", "[/bold] [red]收入[/red] 1,320"),
    ],
)
def test_plain_strips_escape_sequences_and_controls(raw: str, shown: str) -> None:
    assert plain(raw) == shown


def test_plain_text_is_never_parsed_as_markup() -> None:
    console = Console(record=True, width=80, color_system=None)

    console.print(plain_text("[/bold] [red]x[/red]\x1b[31m"))

    assert console.export_text() == "[/bold] [red]x[/red]\n"


def test_plain_json_is_the_same_value_without_raw_controls() -> None:
    value = {"doc": "memo\x1b]0;t\x07\x9b31m\x7f\x85.md", "text": "收入 [/bold]"}
    document = json.dumps(value, ensure_ascii=False)

    shown = plain_json(document)

    assert json.loads(shown) == value
    assert not any(0x7F <= ord(c) < 0xA0 or ord(c) < 0x20 for c in shown)
    assert "收入 [/bold]" in shown
