"""Footnote marks a PDF draws as small raised characters ("1,300" then a small "1" set
higher): on the text layer they are plain digits, so "1,300¹" would read as 13,001. Each such
character is rewritten as the superscript it shows ("¹", "⁽", "⁾"), so the footnote rules that
read "1,300¹" in a workbook or a Word table read it in a PDF too — never as a digit.

A character is a raised mark when it follows its base character on the text layer (content
streams draw a mark right after the text it annotates), is at most ``_SMALLER`` of the base's
size, starts within one base-size of the base's end, and sits at least ``_RAISED`` of the base's
size above the base's baseline. Marks that follow a mark keep the first mark's base.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from pdfplumber.page import Page

_SMALLER = 0.8
_RAISED = 0.15
_SUPERSCRIPT = str.maketrans("0123456789()+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾⁺⁻")


def mark_superscripts(page: Page) -> int:
    """Rewrite the page's raised footnote characters in place; return how many there were."""
    chars: list[dict[str, Any]] = page.chars
    if len({round(float(c["size"]), 1) for c in chars}) < 2:
        return 0  # one font size: nothing can be raised and smaller
    marked = 0
    base: dict[str, Any] | None = None
    for previous, char in pairwise(chars):
        anchor = base if base is not None and _is_mark(previous) else previous
        if _raised_after(anchor, previous, char):
            char["text"] = str(char["text"]).translate(_SUPERSCRIPT)
            char["ragspine_mark"] = True
            base = anchor
            marked += 1
        else:
            base = None
    return marked


def _is_mark(char: dict[str, Any]) -> bool:
    return bool(char.get("ragspine_mark"))


def _raised_after(base: dict[str, Any], previous: dict[str, Any], char: dict[str, Any]) -> bool:
    size, base_size = float(char["size"]), float(base["size"])
    if size > _SMALLER * base_size or str(char["text"]).isspace():
        return False
    gap = float(char["x0"]) - float(previous["x1"])
    if not -0.5 <= gap <= base_size:
        return False
    # pdfplumber measures from the top of the page: a raised character's bottom is smaller.
    lift = float(base["bottom"]) - float(char["bottom"])
    overlaps = float(char["bottom"]) > float(base["top"])
    return overlaps and lift >= _RAISED * base_size
