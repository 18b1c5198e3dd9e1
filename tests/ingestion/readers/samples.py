"""Small valid files of each supported format, written by the format libraries themselves."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
from openpyxl import Workbook
from pptx import Presentation
from reportlab.pdfgen import canvas

PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
OLE_HEADER = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


def make_pptx(path: Path) -> Path:
    prs = Presentation()
    prs.slides.add_slide(prs.slide_layouts[5]).shapes.title.text = "FY2024 Review"
    prs.save(path)
    return path


def make_xlsx(path: Path) -> Path:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["A1"], sheet["B1"] = "REVENUE", 1320
    book.save(path)
    return path


def make_docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Summary", level=1)
    document.add_paragraph("Revenue grew.")
    document.save(str(path))
    return path


def make_pdf(path: Path) -> Path:
    pdf = canvas.Canvas(str(path))
    pdf.drawString(72, 750, "Revenue grew.")
    pdf.save()
    return path


MAKERS = {".pptx": make_pptx, ".xlsx": make_xlsx, ".docx": make_docx, ".pdf": make_pdf}


def make(path: Path) -> Path:
    """A valid file of ``path``'s suffix (Markdown and text get one line)."""
    maker = MAKERS.get(path.suffix)
    if maker is None:
        path.write_text("# Summary\n\nRevenue grew.\n", encoding="utf-8")
        return path
    return maker(path)


def truncate(path: Path) -> Path:
    """Cut ``path`` to its first half, as an interrupted download or copy would."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def office_zip(path: Path, entries: dict[str, bytes], main_folder: str = "xl/") -> Path:
    """A ZIP that looks like an Office package from the outside: content types and main part."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        archive.writestr(f"{main_folder}workbook.xml", b"<workbook/>")
        for name, data in entries.items():
            archive.writestr(name, data)
    return path
