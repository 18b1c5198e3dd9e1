"""Text bound for a terminal made inert: no escape sequences, no control characters, no markup.

File names and document text come from files nobody vetted. Printed raw, an OSC sequence
retitles the window and a CSI sequence recolours or erases the screen; handed to Rich as a
string, a ``[/bold]`` in a folder name is parsed as markup and crashes the command.
"""

from __future__ import annotations

import re

from rich.text import Text

__all__ = ["plain", "plain_json", "plain_text"]

# One pass, each branch anchored on its first character, so the cost stays linear in the text.
# An unterminated string sequence ends at the next ESC or line break, as a terminal would not
# wait forever either.
_CONTROL = re.compile(
    r"\x1b[\]P^_X][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC, DCS, PM, APC, SOS strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI: parameters, intermediates, final byte
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other C0 and C1 controls; tab and newline stay
)

# JSON escapes the C0 controls (ESC included) itself, but passes DEL and the C1 controls through.
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)}


def plain(text: str) -> str:
    """``text`` without escape sequences and control characters other than tab and newline."""
    return _CONTROL.sub("", text)


def plain_text(text: str) -> Text:
    """``text`` as a Rich ``Text``: cleaned by :func:`plain` and never parsed as markup."""
    return Text(plain(text))


def plain_json(document: str) -> str:
    """A JSON ``document`` with DEL and C1 controls as ``\\u`` escapes: the same JSON value,
    inert in a terminal (those characters can only occur inside its strings)."""
    return document.translate(_JSON_ESCAPES)
