"""The fast character conversion gives exactly the dicts pdfplumber's own conversion gives.

pdfplumber's ``Page.process_object`` is the reference: every object of every page of the demo
corpus's PDFs, and of a page drawn here with colours, a rectangle, Chinese text and a media
box that does not start at the origin, is converted both ways and compared key by key, in
order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from pdfminer.layout import LTContainer, LTItem
from pdfplumber.page import Page
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from ragspine.demo.corpus import generate_corpus
from ragspine.ingestion.readers import pdf_chars
from ragspine.ingestion.readers.pdf_chars import convert_chars_fast, process_object

CJK_FONT = "STSong-Light"


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("pdf-chars")
    generate_corpus(root / "demo", ocr=False)
    drawn = root / "drawn.pdf"
    pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    page = canvas.Canvas(str(drawn), pageCompression=0)
    page.setFillColorRGB(0.2, 0.4, 0.6)
    page.drawString(72, 700, "Revenue 1,320")
    page.setFillColorCMYK(0.1, 0.2, 0.3, 0.4)
    page.drawString(72, 680, "Operating profit 350")
    page.setFont(CJK_FONT, 12)
    page.drawString(72, 660, "营业收入 1,320")
    page.rect(60, 600, 200, 50)
    page.save()
    # The same page with its media box moved off the origin (same length: offsets stay valid).
    shifted = root / "shifted.pdf"
    data = drawn.read_bytes()
    assert b"/MediaBox [ 0 0 " in data
    shifted.write_bytes(data.replace(b"/MediaBox [ 0 0 ", b"/MediaBox [ 9 7 "))
    return [*sorted((root / "demo").rglob("*.pdf")), drawn, shifted]


def _layout_objects(items: list[Any]) -> Iterator[LTItem]:
    for item in items:
        if isinstance(item, LTContainer):
            yield from _layout_objects(item._objs)
        else:
            yield item


@pytest.mark.parametrize("unicode_norm", [None, "NFKC"])
def test_every_object_converts_to_the_same_dict(pdfs: list[Path], unicode_norm: str | None) -> None:
    compared = 0
    seen: set[str] = set()
    for path in pdfs:
        with pdfplumber.open(path, unicode_norm=unicode_norm) as pdf:
            for page in pdf.pages:
                for obj in _layout_objects(page.layout._objs):
                    expected = Page.process_object(page, obj)
                    assert list(process_object(page, obj).items()) == list(expected.items())
                    compared += 1
                    seen.add(expected["object_type"])
    assert compared > 1000 and {"char", "rect", "image"} <= seen, (compared, seen)


def _comparable(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    # A picture's stream is an object of the open file: compare what it holds instead.
    return [(k, v.attrs if k == "stream" else v) for k, v in obj.items()]


def test_a_page_reads_the_same_objects_either_way(pdfs: list[Path]) -> None:
    for path in pdfs:
        with pdfplumber.open(path) as plain, pdfplumber.open(path) as fast:
            for before, after in zip(plain.pages, fast.pages, strict=True):
                convert_chars_fast(after)
                assert list(after.objects) == list(before.objects)
                for kind, objects in before.objects.items():
                    assert [_comparable(o) for o in after.objects[kind]] == [
                        _comparable(o) for o in objects
                    ]


def test_the_fast_path_is_taken_exactly_with_a_verified_pdfplumber(pdfs: list[Path]) -> None:
    # A pdfplumber release the comparisons above were not run against turns the fast path off
    # (correct, but slower; bench_ingest shows it), so an upgrade never breaks ingestion. To
    # take it again: run this file against the new version with it added to VERIFIED_VERSIONS.
    verified = str(pdfplumber.__version__) in pdf_chars.VERIFIED_VERSIONS
    assert pdf_chars.fast_path_available() is verified
    with pdfplumber.open(pdfs[-1]) as pdf:
        page = pdf.pages[0]
        convert_chars_fast(page)
        assert ("process_object" in vars(page)) is verified


def test_an_unverified_pdfplumber_converts_as_before(
    pdfs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_chars, "VERIFIED_VERSIONS", frozenset({"0.0.0"}))
    with pdfplumber.open(pdfs[-1]) as pdf:
        page = pdf.pages[0]
        convert_chars_fast(page)
        assert "process_object" not in vars(page)
