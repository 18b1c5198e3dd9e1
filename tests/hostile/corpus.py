"""A generator of hostile input files, each with the outcome ingestion must give it.

Every kind is what a careless or malicious user could drop into a folder: crafted cells and
styles, broken PDFs, zip bombs, renamed, truncated, encrypted or empty files, deep nesting,
huge sheets and decks, pathological Unicode, terminal escape sequences, Rich markup in names,
formula injection, and sidecars that try to lower a document's sensitivity. ``write_corpus``
writes the chosen kinds into a folder (the good demo corpus may sit beside them) and
``add_sidecars`` writes the harmless sidecars of the second ingest, which must not lower
anything. Expected outcomes are declared, never read from what the code does today.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import docx
from openpyxl import Workbook
from PIL import Image
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches
from reportlab.pdfgen import canvas

from tests.ingestion.readers.samples import OLE_HEADER, PNG_HEADER, make, office_zip, truncate

MiB = 1024 * 1024


class Expect(StrEnum):
    INGESTS = "ingests"  # stored as a document (its odd parts may become review items)
    FAILS = "fails alone"  # not stored; one output line names the file and a reason
    BOUNDED = "ingests or fails naming a limit"  # resource-heavy: either is fine, a hang is not
    # Nothing usable inside: never silent (a review item, a warning line or a failure).
    REPORTED = "fails alone, or ingests with a review item or a warning"


@dataclass(frozen=True)
class Kind:
    name: str  # the test id
    doc_id: str  # path under the corpus folder
    write: Callable[[Path], None]
    expect: Expect
    reasons: tuple[str, ...] = ()  # a failure must name one of these
    sensitivity: str | None = None  # the level the document must be stored with
    sidecar: str | None = None  # written after the first ingest: must change no level


# Figures in the hostile files use years the demo corpus never states, so no hostile value can
# conflict with a good document's fact and change what the good documents contribute.
YEAR = 2031
LIMIT_WORDS = ("limit", "exceeds", "too many", "too large", "too long", "too deep")
NESTING_WORDS = (*LIMIT_WORDS, "nest", "depth", "recursion", "RecursionError", "XML")
EMPTY_WORDS = ("empty", "no content", "no text", "nothing", "0 blocks", "no readable")


# --------------------------------------------------------------------------- helpers


def _sheet(path: Path, rows: Iterable[Iterable[object]], title: str = "HK") -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = title
    for row in rows:
        sheet.append(list(row))
    book.save(path)


def _rewrite_zip(path: Path, edit: Callable[[str, bytes], bytes | None]) -> None:
    """Rewrite every entry of the package through ``edit`` (None drops the entry)."""
    with zipfile.ZipFile(path) as source:
        entries = [(info.filename, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in entries:
            edited = edit(name, data)
            if edited is not None:
                target.writestr(name, edited)


def _replace_in(part: str, old: bytes, new: bytes) -> Callable[[str, bytes], bytes]:
    def edit(name: str, data: bytes) -> bytes:
        if name != part:
            return data
        assert old in data, f"{old!r} not in {part}"
        return data.replace(old, new, 1)

    return edit


def _nested(depth: int, open_tag: bytes, close_tag: bytes) -> bytes:
    return open_tag * depth + close_tag * depth


# 20,000 levels: far past any XML parser's default depth limit, yet under the 1 MB floor of the
# zip-bomb ratio check (deeper nesting compresses so well that the bomb check refuses it first).
_DEEP = _nested(20_000, b"<n>", b"</n>")


def _pdf(
    path: Path, page: bytes, content: bytes = b"BT /F1 12 Tf 72 700 Td (Revenue) Tj ET"
) -> None:
    """A one-page PDF written object by object with a correct cross-reference table.

    ``page`` is the page dictionary's extra entries, where the crafted values go.
    """
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> " + page + b" >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    path.write_bytes(out.getvalue())


def _markdown(text: str) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_text(text, encoding="utf-8")

    return write


def _raw(data: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_bytes(data)

    return write


def _then(
    first: Callable[[Path], object], second: Callable[[Path], object]
) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        first(path)
        second(path)

    return write


def _valid(path: Path) -> None:
    make(path)


# --------------------------------------------------------------------------- workbooks


def _nines_text_cell(path: Path) -> None:
    _sheet(path, [["收入（百万美元）", f"FY{YEAR}"], ["收入", "9" * 400]])


def _huge_under_billions(path: Path) -> None:
    """1e308 billions is past the largest float once scaled to millions."""
    _sheet(path, [["单位：十亿美元", ""], ["", f"FY{YEAR}"], ["收入", 1e308]])


def _huge_in_the_corner(path: Path) -> None:
    _sheet(path, [["收入（十亿美元）", f"FY{YEAR + 2}"], ["收入", 1e308]])


def _nan_inf_strings(path: Path) -> None:
    periods = [f"FY{YEAR + i}" for i in range(5)]
    _sheet(
        path, [["收入（百万美元）", *periods], ["收入", "NaN", "inf", "-Infinity", "1e999", "nan%"]]
    )


_LAUGHS = b"".join(
    [b'<?xml version="1.0"?>\n<!DOCTYPE worksheet [\n<!ENTITY lol "lol">\n']
    + [
        b'<!ENTITY lol%d "%s">\n' % (n, (b"&lol%d;" % (n - 1) if n > 1 else b"&lol;") * 10)
        for n in range(1, 10)
    ]
    + [b"]>\n"]
)


def _billion_laughs(path: Path) -> None:
    """A sheet whose DTD expands one entity to 10^9 "lol"s (a few hundred bytes on disk)."""
    _sheet(path, [["收入（百万美元）", f"FY{YEAR}"], ["收入", 120]])

    def edit(name: str, data: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return data
        body = data.split(b"?>", 1)[1] if data.startswith(b"<?xml") else data
        return _LAUGHS + body.replace(b"<v>120</v>", b"<v>&lol9;</v>", 1)

    _rewrite_zip(path, edit)


def _bad_font_size(path: Path) -> None:
    _sheet(path, [["收入（百万美元）", f"FY{YEAR}"], ["收入", 120]])
    _rewrite_zip(path, _replace_in("xl/styles.xml", b'<sz val="11"/>', b'<sz val="eleven"/>'))


def _merged_value(path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "HK"
    sheet.append(["收入（百万美元）", f"FY{YEAR}", f"FY{YEAR + 1}"])
    sheet.append(["收入", 500, None])
    sheet.merge_cells("B2:C2")
    book.save(path)


def _duplicate_headers(path: Path) -> None:
    _sheet(path, [["收入（百万美元）", f"FY{YEAR}", f"FY{YEAR}"], ["收入", 310, 320]])


def _formula_injection(path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "HK"
    sheet.append(["收入（百万美元）", f"FY{YEAR}"])
    sheet.append(["=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0"])
    sheet.append(["@SUM(1+1)*cmd|' /C calc'!A0", '+HYPERLINK("http://evil","x")'])
    sheet["B2"].data_type = "s"  # stored as text: a formula's text, never evaluated
    book.save(path)


N_ROWS = 100_000


def _many_rows(path: Path) -> None:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("HK")
    sheet.append(["收入（百万美元）", f"FY{YEAR}"])
    for i in range(N_ROWS):
        sheet.append([f"line {i}", i])
    book.save(path)


def _many_columns(path: Path) -> None:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("HK")
    sheet.append(["收入（百万美元）", *(f"FY{YEAR}" for _ in range(16_383))])
    sheet.append(["收入", *range(16_383)])
    book.save(path)


def _empty_sheets(path: Path) -> None:
    book = Workbook()
    book.create_sheet("Empty 2")
    book.create_sheet("Empty 3")
    book.save(path)


def _unicode_cells(path: Path) -> None:
    _sheet(
        path,
        [
            ["收\u200b入\u202e（百万美元）\u202c", f"FY{YEAR}"],
            ["收入" + "\u0301" * 5000, "1\u200d2\u200b3"],
            ["\u2066\u2067\u2068", "\ufeff42"],
        ],
    )


def _deep_sheet_xml(path: Path) -> None:
    _sheet(path, [["收入（百万美元）", f"FY{YEAR}"], ["收入", 1]])
    _rewrite_zip(
        path, _replace_in("xl/worksheets/sheet1.xml", b"<sheetData>", b"<sheetData>" + _DEEP)
    )


def _board_cell_xlsx(path: Path) -> None:
    _sheet(path, [["议题", "状态"], ["董事会决议", "通过"], ["收入（百万美元）", f"FY{YEAR}"]])


# --------------------------------------------------------------------------- documents


def _board_cell_docx(path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Quarterly governance notes.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Item", "Status"
    table.cell(1, 0).text, table.cell(1, 1).text = "Board resolution", "passed"
    document.save(str(path))


def _images_only_docx(path: Path) -> None:
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(picture, format="PNG")
    picture.seek(0)
    document = docx.Document()
    document.add_picture(picture)
    document.save(str(path))


def _deep_docx_xml(path: Path) -> None:
    make(path)
    _rewrite_zip(path, _replace_in("word/document.xml", b"<w:body>", b"<w:body>" + _DEEP))


# --------------------------------------------------------------------------- decks


def _thousand_slides(path: Path) -> None:
    """One slide built by python-pptx, cloned 999 times at the package level (fast)."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = f"香港 FY{YEAR}"
    slide.placeholders[1].text = "收入增长，代理人渠道稳定。"
    prs.save(str(path))
    with zipfile.ZipFile(path) as source:
        entries = {info.filename: source.read(info) for info in source.infolist()}
    xml, rels = entries["ppt/slides/slide1.xml"], entries["ppt/slides/_rels/slide1.xml.rels"]
    ids, relations, types = [], [], []
    for n in range(2, 1001):
        entries[f"ppt/slides/slide{n}.xml"] = xml
        entries[f"ppt/slides/_rels/slide{n}.xml.rels"] = rels
        ids.append(b'<p:sldId id="%d" r:id="rIdS%d"/>' % (300 + n, n))
        relations.append(
            b'<Relationship Id="rIdS%d" Type="http://schemas.openxmlformats.org/officeDocument/'
            b'2006/relationships/slide" Target="slides/slide%d.xml"/>' % (n, n)
        )
        types.append(
            b'<Override PartName="/ppt/slides/slide%d.xml" ContentType="application/'
            b'vnd.openxmlformats-officedocument.presentationml.slide+xml"/>' % n
        )
    entries["ppt/presentation.xml"] = entries["ppt/presentation.xml"].replace(
        b"</p:sldIdLst>", b"".join(ids) + b"</p:sldIdLst>"
    )
    rels_part = "ppt/_rels/presentation.xml.rels"
    entries[rels_part] = entries[rels_part].replace(
        b"</Relationships>", b"".join(relations) + b"</Relationships>"
    )
    entries["[Content_Types].xml"] = entries["[Content_Types].xml"].replace(
        b"</Types>", b"".join(types) + b"</Types>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in entries.items():
            target.writestr(name, data)


def _broken_chart(path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = f"香港 收入 FY{YEAR}"
    data = CategoryChartData()
    data.categories = [f"FY{YEAR}", f"FY{YEAR + 1}"]
    data.add_series("收入", (1.0, 2.0))
    slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(6), Inches(4), data
    )
    prs.save(str(path))

    def edit(name: str, part: bytes) -> bytes | None:
        if name.startswith("ppt/embeddings/"):
            return None  # the series point at a workbook that is gone
        if name.startswith("ppt/charts/chart") and name.endswith(".xml"):
            part = re.sub(rb"<c:f>[^<]*</c:f>", b"<c:f>Gone!$ZZ$0:$ZZ$-1</c:f>", part)
            part = re.sub(rb"<c:numCache>.*?</c:numCache>", b"<c:numCache/>", part, flags=re.S)
            return re.sub(rb"<c:strCache>.*?</c:strCache>", b"", part, flags=re.S)
        return part

    _rewrite_zip(path, edit)


# --------------------------------------------------------------------------- bombs and disguises


def _ratio_bomb(path: Path) -> None:
    office_zip(path, {}, main_folder="xl/")
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("xl/media/image1.bin", "w") as entry,
    ):
        for _ in range(50):
            entry.write(bytes(MiB))


def _pdf_bytes(path: Path) -> None:
    scratch = path.with_name(path.name + ".tmp.pdf")
    make(scratch)
    path.write_bytes(scratch.read_bytes())
    scratch.unlink()


def _docx_bytes(path: Path) -> None:
    scratch = path.with_name(path.name + ".tmp.docx")
    make(scratch)
    path.write_bytes(scratch.read_bytes())
    scratch.unlink()


def _encrypted_pdf(path: Path) -> None:
    pdf = canvas.Canvas(str(path), encrypt="secret")
    pdf.drawString(72, 750, "Revenue 1,320")
    pdf.save()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _deep_json_sidecar(path: Path) -> None:
    path.write_text("# Notes\n\nRevenue grew in every region.\n", encoding="utf-8")
    sidecar = path.with_name(path.name + ".meta.json")
    sidecar.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


def _public_sidecar(path: Path) -> None:
    path.write_text("# Board notes\n\nThe board resolution was adopted.\n", encoding="utf-8")
    sidecar = path.with_name(path.name + ".meta.json")
    sidecar.write_text('{"sensitivity": "PUBLIC"}\n', encoding="utf-8")


def _long_paragraph(path: Path) -> None:
    sentence = "本年收入增长，营运利润 12 百万美元，香港 FY2031 新业务价值上升。"
    path.write_text("# 说明\n\n" + sentence * (MiB // len(sentence.encode("utf-8"))), "utf-8")


def _combining_flood(path: Path) -> None:
    text = (
        "# Notes \u202eevil\u202c\n\n"
        "Reve\u200bnue\u200d grew \u2066in\u2069 every region.\n\n"
        + "a"
        + "\u0301" * 50_000
        + "\n\n"
        + "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 2000
        + "\n"
    )
    path.write_text(text, encoding="utf-8")


HARMLESS_SIDECAR = '{"owner": "finance"}\n'

KINDS: tuple[Kind, ...] = (
    # ---- crafted cells and styles
    Kind("xlsx_400_nines_text_cell", "hx/nines.xlsx", _nines_text_cell, Expect.INGESTS),
    Kind(
        "xlsx_1e308_under_billions", "hx/huge_billions.xlsx", _huge_under_billions, Expect.INGESTS
    ),
    Kind("xlsx_1e308_corner_unit", "hx/huge_corner.xlsx", _huge_in_the_corner, Expect.INGESTS),
    Kind("xlsx_nan_inf_strings", "hx/nan_inf.xlsx", _nan_inf_strings, Expect.INGESTS),
    Kind(
        "xlsx_billion_laughs",
        "hx/laughs.xlsx",
        _billion_laughs,
        Expect.REPORTED,
        (*EMPTY_WORDS, *NESTING_WORDS, "entit", "DTD", "amplification", "Excel workbook"),
    ),
    Kind(
        "xlsx_font_size_eleven",
        "hx/font_size.xlsx",
        _bad_font_size,
        Expect.FAILS,
        ("TypeError", "Excel workbook", "style"),
    ),
    Kind("xlsx_merged_value_cell", "hx/merged.xlsx", _merged_value, Expect.INGESTS),
    Kind("xlsx_duplicate_headers", "hx/duplicate_headers.xlsx", _duplicate_headers, Expect.INGESTS),
    Kind("xlsx_formula_injection", "hx/formula_injection.xlsx", _formula_injection, Expect.INGESTS),
    Kind("xlsx_pathological_unicode", "hx/unicode_cells.xlsx", _unicode_cells, Expect.INGESTS),
    Kind("xlsx_empty_sheets", "hx/empty_sheets.xlsx", _empty_sheets, Expect.REPORTED, EMPTY_WORDS),
    # ---- size and depth
    Kind("xlsx_100k_rows", "hx/rows_100k.xlsx", _many_rows, Expect.BOUNDED, LIMIT_WORDS),
    Kind("xlsx_16k_columns", "hx/columns_16k.xlsx", _many_columns, Expect.BOUNDED, LIMIT_WORDS),
    Kind("xlsx_deep_xml", "hx/deep.xlsx", _deep_sheet_xml, Expect.BOUNDED, NESTING_WORDS),
    Kind("docx_deep_xml", "hx/deep.docx", _deep_docx_xml, Expect.BOUNDED, NESTING_WORDS),
    Kind("pptx_1000_slides", "hx/slides_1000.pptx", _thousand_slides, Expect.BOUNDED, LIMIT_WORDS),
    Kind("md_1mb_paragraph", "hx/long_paragraph.md", _long_paragraph, Expect.BOUNDED, LIMIT_WORDS),
    Kind(
        "sidecar_100k_nested_json",
        "hx/nested_sidecar.md",
        _deep_json_sidecar,
        Expect.FAILS,
        ("metadata", "nest", "depth", "JSON"),
    ),
    # ---- broken PDFs
    Kind(
        "pdf_mediabox_two_numbers",
        "hx/mediabox.pdf",
        lambda p: _pdf(p, b"/MediaBox [0 0]"),
        Expect.FAILS,
        ("MediaBox", "IndexError", "PDF"),
    ),
    Kind(
        "pdf_rotate_text",
        "hx/rotate.pdf",
        lambda p: _pdf(p, b"/MediaBox [0 0 612 792] /Rotate (abc)"),
        Expect.FAILS,
        ("Rotate", "TypeError", "PDF"),
    ),
    Kind(
        "pdf_deeply_nested_arrays",
        "hx/nested.pdf",
        # The page also says "Revenue": read it, or fail naming the depth; never crash or hang.
        lambda p: _pdf(p, b"/MediaBox [0 0 612 792] /X " + _nested(100_000, b"[", b"]")),
        Expect.BOUNDED,
        (*EMPTY_WORDS, *NESTING_WORDS, "PDF"),
    ),
    Kind(
        "pdf_no_text",
        "hx/blank.pdf",
        lambda p: _pdf(p, b"/MediaBox [0 0 612 792]", content=b""),
        Expect.REPORTED,
        EMPTY_WORDS,
    ),
    Kind("pdf_encrypted", "hx/locked.pdf", _encrypted_pdf, Expect.FAILS, ("encrypted PDF",)),
    Kind(
        "pdf_is_png",
        "hx/photo.pdf",
        _raw(PNG_HEADER + bytes(256)),
        Expect.FAILS,
        ("content is PNG, not PDF",),
    ),
    # ---- disguises, bombs, locks
    Kind("xlsx_zip_bomb", "hx/bomb.xlsx", _ratio_bomb, Expect.FAILS, ("zip bomb suspected",)),
    Kind("xlsx_is_pdf", "hx/renamed.xlsx", _pdf_bytes, Expect.FAILS, ("content is PDF, not XLSX",)),
    Kind(
        "pptx_is_docx", "hx/renamed.pptx", _docx_bytes, Expect.FAILS, ("content is DOCX, not PPTX",)
    ),
    Kind(
        "xlsx_password_protected",
        "hx/locked.xlsx",
        _raw(OLE_HEADER + bytes(4096)),
        Expect.FAILS,
        ("password-protected",),
    ),
    Kind(
        "docx_password_protected",
        "hx/locked.docx",
        _raw(OLE_HEADER + bytes(4096)),
        Expect.FAILS,
        ("password-protected",),
    ),
    # ---- special files
    Kind("fifo_md", "hx/pipe.md", _fifo, Expect.FAILS, ("FIFO", "not a regular file", "special")),
    # ---- text encodings and terminal tricks
    Kind(
        "md_invalid_utf8",
        "hx/invalid_utf8.md",
        _raw(b"# Notes\n\nRevenue \xff\xfe\xed\xa0\x80 grew \xc3\x28.\n"),
        Expect.FAILS,
        ("cannot decode",),
    ),
    Kind(
        "txt_utf16_bom",
        "hx/utf16.txt",
        _raw("Revenue grew in every region.\n收入增长。\n".encode("utf-16")),
        Expect.INGESTS,
    ),
    Kind("md_bidi_zero_width_combining", "hx/unicode.md", _combining_flood, Expect.INGESTS),
    Kind(
        "md_terminal_escapes",
        "hx/escapes.md",
        _markdown(
            "# Notes \x1b]0;pwned\x07\n\nRevenue \x1b[31mgrew\x1b[0m in every region."
            "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\n"
        ),
        Expect.INGESTS,
    ),
    Kind("md_markup_file_name", "hx/[red]notes[/bold].md", _valid, Expect.INGESTS),
    Kind("md_markup_folder_name", "hx/[bold]dir[/]/notes.md", _valid, Expect.INGESTS),
    # ---- sensitivity: the level never drops
    Kind(
        "xlsx_board_cell_then_sidecar",
        "hx/resolutions.xlsx",
        _board_cell_xlsx,
        Expect.INGESTS,
        sensitivity="RESTRICTED",
        sidecar=HARMLESS_SIDECAR,
    ),
    Kind(
        "docx_board_cell_then_sidecar",
        "hx/governance.docx",
        _board_cell_docx,
        Expect.INGESTS,
        sensitivity="RESTRICTED",
        sidecar=HARMLESS_SIDECAR,
    ),
    Kind(
        "md_board_public_sidecar",
        "hx/board_notes.md",
        _public_sidecar,
        Expect.INGESTS,
        sensitivity="RESTRICTED",
    ),
    Kind(
        "md_restricted_marking",
        "hx/marked_restricted.md",
        _markdown("# 机密 RESTRICTED\n\n本文件为绝密材料。Revenue grew.\n"),
        Expect.INGESTS,
        sensitivity="RESTRICTED",
    ),
    Kind(
        "md_confidential_marking",
        "hx/marked_confidential.md",
        _markdown("# CONFIDENTIAL\n\n保密。Revenue grew.\n"),
        Expect.INGESTS,
        sensitivity="CONFIDENTIAL",
    ),
    # ---- images only, broken chart
    Kind(
        "docx_images_only", "hx/images_only.docx", _images_only_docx, Expect.REPORTED, EMPTY_WORDS
    ),
    Kind("pptx_broken_chart_refs", "hx/broken_chart.pptx", _broken_chart, Expect.INGESTS),
)


def _empty_and_truncated() -> tuple[Kind, ...]:
    """A 0-byte and a half-written file of every supported format."""
    kinds = [
        Kind(f"empty_{suffix}", f"hx/empty.{suffix}", _raw(b""), Expect.FAILS, ("empty file",))
        for suffix in ("pptx", "xlsx", "docx", "pdf", "md", "txt")
    ]
    cut_reasons = {
        "pptx": "truncated or corrupt ZIP package",
        "xlsx": "truncated or corrupt ZIP package",
        "docx": "truncated or corrupt ZIP package",
        "pdf": "truncated PDF",
    }
    kinds += [
        Kind(
            f"truncated_{suffix}",
            f"hx/truncated.{suffix}",
            _then(make, truncate),
            Expect.FAILS,
            (reason,),
        )
        for suffix, reason in cut_reasons.items()
    ]
    return tuple(kinds)


ALL_KINDS: tuple[Kind, ...] = KINDS + _empty_and_truncated()
BY_NAME: dict[str, Kind] = {kind.name: kind for kind in ALL_KINDS}


def write_corpus(root: Path, kinds: Iterable[Kind] = ALL_KINDS) -> list[Kind]:
    """Write ``kinds`` under ``root`` (created as needed) and return them."""
    written = []
    for kind in kinds:
        path = root / kind.doc_id
        path.parent.mkdir(parents=True, exist_ok=True)
        kind.write(path)
        written.append(kind)
    return written


def add_sidecars(root: Path, kinds: Iterable[Kind]) -> None:
    """The second round: harmless sidecars that must not lower any level."""
    for kind in kinds:
        if kind.sidecar is not None:
            path = root / kind.doc_id
            path.with_name(path.name + ".meta.json").write_text(kind.sidecar, encoding="utf-8")
