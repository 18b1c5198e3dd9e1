"""pdfplumber's conversion of a page's characters into dicts, to the same dicts, faster.

pdfplumber turns each object pdfminer laid out into a dict (``Page.process_object``); for a
character that means running every attribute through ``resolve_all`` (a floating-point
coordinate comes back as it went in) and decoding the colour space's name again. On a page of
text that conversion costs more than pdfminer's own reading of the page. ``convert_chars_fast``
makes one page convert its characters here instead: the same keys in the same order with the
same values, taking the values that cannot hold a PDF reference as they are (``resolve_all``
returns them, or an equal copy of a tuple of them) and decoding each colour space name once.
Every other object (rectangles, curves, images) is converted by pdfplumber itself.

It mirrors pdfplumber's own code, so it is used only with the pdfplumber versions it was
checked against (``tests/ingestion/readers/test_pdf_chars.py`` compares both conversions, key
by key, on every character of the demo corpus's PDFs); with any other version pdfplumber
converts every object as before.
"""

from __future__ import annotations

from types import MethodType
from typing import Any
from unicodedata import normalize as normalize_unicode

import pdfplumber
from pdfminer.layout import LTChar, LTItem
from pdfplumber.page import ALL_ATTRS, Page, fix_fontname_bytes
from pdfplumber.utils.pdfinternals import resolve_all, resolve_and_decode

# The pdfplumber versions whose ``Page.process_object`` this module reproduces.
VERIFIED_VERSIONS = frozenset({"0.11.10"})
# Types ``resolve_all`` hands back unchanged: nothing in them can be a PDF reference.
_PLAIN = frozenset({int, float, bool, str, bytes, type(None)})
# ``resolve_and_decode`` of a colour space's name: the same for every character using it.
_DECODED: dict[str, Any] = {}
_DECODED_MAX = 1024  # a file naming more colour spaces than this has the rest decoded each time


def fast_path_available() -> bool:
    """Whether the installed pdfplumber is one this module reproduces."""
    return str(pdfplumber.__version__) in VERIFIED_VERSIONS


def convert_chars_fast(page: Page) -> None:
    """Make ``page`` (not yet parsed) convert its characters here; other objects unchanged."""
    if fast_path_available():
        page.process_object = MethodType(process_object, page)  # type: ignore[method-assign]


def process_object(page: Page, obj: LTItem) -> dict[str, Any]:
    """``Page.process_object(page, obj)``: the same dict, built faster for a character."""
    if type(obj) is not LTChar:
        return Page.process_object(page, obj)
    attr = {
        key: value if type(value) in _PLAIN else _resolved(value)
        for key, value in obj.__dict__.items()
        if key in ALL_ATTRS
    }
    attr["object_type"] = "char"
    attr["page_number"] = page.page_number
    for space in ("ncs", "scs"):
        if hasattr(obj, space):
            attr[space] = _decoded(getattr(obj, space).name)
    text = obj.get_text()
    norm = page.pdf.unicode_norm
    attr["text"] = normalize_unicode(norm, text) if norm is not None else text
    state = obj.graphicstate
    attr["stroking_color"] = state.scolor if isinstance(state.scolor, tuple) else (state.scolor,)
    attr["non_stroking_color"] = (
        state.ncolor if isinstance(state.ncolor, tuple) else (state.ncolor,)
    )
    if isinstance(attr["fontname"], bytes):
        attr["fontname"] = fix_fontname_bytes(attr["fontname"])
    mb_x0, mb_top = page.mediabox[:2]
    if "y0" in attr:
        attr["top"] = (page.height - attr["y1"]) + mb_top
        attr["bottom"] = (page.height - attr["y0"]) + mb_top
        attr["doctop"] = page.initial_doctop + attr["top"]
    if "x0" in attr and mb_x0 != 0:
        attr["x0"] = attr["x0"] + mb_x0
        attr["x1"] = attr["x1"] + mb_x0
    return attr


def _resolved(value: Any) -> Any:
    """``resolve_all(value)``; a tuple of plain values (a character's matrix) as it is, where
    ``resolve_all`` would copy it unchanged."""
    if type(value) is tuple and all(type(item) in _PLAIN for item in value):
        return value
    return resolve_all(value)


def _decoded(name: Any) -> Any:
    if type(name) is not str:
        return resolve_and_decode(name)
    if name in _DECODED:
        return _DECODED[name]
    decoded = resolve_and_decode(name)
    if len(_DECODED) < _DECODED_MAX:
        _DECODED[name] = decoded
    return decoded
