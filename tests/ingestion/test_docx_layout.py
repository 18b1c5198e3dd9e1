"""Word layout outside the body's headings: page headers and footers, and text boxes."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from docx.document import Document as WordDocument
from docx.oxml import parse_xml

from ragspine.ingestion.model import ExtractedDocument, LocatorStyle, Table
from ragspine.ingestion.readers.docx_reader import DocxReader
from ragspine.ingestion.tables import ReviewReason, map_table
from tests.profiles import acme_glossary

HK_HEADER = "ACME Hong Kong — Annual Report FY2025"
MO_HEADER = "ACME Macau — Annual Report FY2025"
BOX_TEXT = "Highlight: agency sales up 12%"

# A text box as Word writes it: a DrawingML shape, with a VML copy for older readers.
_BOX_CONTENT = f"""<w:txbxContent>
  <w:p><w:r><w:t>{BOX_TEXT}</w:t></w:r></w:p>
  <w:tbl>
    <w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>
    <w:tr>
      <w:tc><w:p><w:r><w:t>NBV</w:t></w:r></w:p></w:tc>
      <w:tc><w:p><w:r><w:t>1,020</w:t></w:r></w:p></w:tc>
    </w:tr>
  </w:tbl>
  <w:p/>
</w:txbxContent>"""
TEXT_BOX_RUN = f"""<w:r
    xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
    xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
    xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
    xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
    xmlns:v="urn:schemas-microsoft-com:vml">
  <mc:AlternateContent>
    <mc:Choice Requires="wps">
      <w:drawing>
        <wp:inline>
          <wp:extent cx="2743200" cy="914400"/>
          <wp:docPr id="1" name="Text Box 1"/>
          <a:graphic>
            <a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">
              <wps:wsp>
                <wps:spPr/>
                <wps:txbx>{_BOX_CONTENT}</wps:txbx>
                <wps:bodyPr/>
              </wps:wsp>
            </a:graphicData>
          </a:graphic>
        </wp:inline>
      </w:drawing>
    </mc:Choice>
    <mc:Fallback>
      <w:pict>
        <v:shape style="width:216pt;height:72pt">
          <v:textbox>{_BOX_CONTENT}</v:textbox>
        </v:shape>
      </w:pict>
    </mc:Fallback>
  </mc:AlternateContent>
</w:r>"""


def _figures(word: WordDocument) -> None:
    """A table that names neither entity nor period: the page header has to."""
    word.add_paragraph("Key figures")
    table = word.add_table(rows=3, cols=2)
    for r, row in enumerate([["", "US$m"], ["Revenue", "2,710"], ["Operating profit", "455"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    word = docx.Document()
    first = word.sections[0]
    first.header.paragraphs[0].text = HK_HEADER
    first.different_first_page_header_footer = True
    first.first_page_header.paragraphs[0].text = "Board copy"
    first.footer.paragraphs[0].text = "Confidential"
    footer_table = first.footer.add_table(rows=1, cols=2, width=first.page_width)
    footer_table.cell(0, 0).text = "Prepared by"
    footer_table.cell(0, 1).text = "Group Finance"
    word.add_heading("Results", level=1)
    anchor = word.add_paragraph("See the box.")
    anchor._p.append(parse_xml(TEXT_BOX_RUN))
    _figures(word)

    word.add_section()  # linked to the first: nothing new to read
    word.add_paragraph("Linked section.")
    third = word.add_section()
    third.header.is_linked_to_previous = False
    third.header.paragraphs[0].text = HK_HEADER  # its own copy of the same header
    word.add_paragraph("Same header again.")
    fourth = word.add_section()
    fourth.header.is_linked_to_previous = False
    fourth.header.paragraphs[0].text = MO_HEADER
    word.add_heading("Macau", level=1)
    _figures(word)

    path = tmp_path_factory.mktemp("docx") / "annual_report.docx"
    word.save(str(path))
    return DocxReader().read(path)


def test_headers_footers_and_text_boxes_are_blocks_in_reading_order(
    report: ExtractedDocument,
) -> None:
    assert [(b.locator, b.text, b.title) for b in report.blocks] == [
        ("header=1,para=1", HK_HEADER, ""),
        ("header=2,para=1", "Board copy", ""),
        ("section=1,heading", "Results", "Results"),
        ("section=1,para=1", "See the box.", "Results"),
        ("textbox=1,para=1", BOX_TEXT, "Results"),
        ("section=1,para=2", "Key figures", "Results"),
        ("footer=1,para=1", "Confidential", ""),
        ("section=1,para=3", "Linked section.", "Results"),
        ("section=1,para=4", "Same header again.", "Results"),
        ("header=3,para=1", MO_HEADER, ""),
        ("section=2,heading", "Macau", "Macau"),
        ("section=2,para=1", "Key figures", "Macau"),
    ]


def _grid(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.cells]


def test_tables_in_text_boxes_and_footers_have_their_own_locators(
    report: ExtractedDocument,
) -> None:
    assert [(t.locator_prefix, t.locator_style, _grid(t)) for t in report.tables] == [
        ("textbox=1,table=1", LocatorStyle.GRID, [["NBV", "1,020"]]),
        (
            "table=1",
            LocatorStyle.GRID,
            [["", "US$m"], ["Revenue", "2,710"], ["Operating profit", "455"]],
        ),
        ("footer=1,table=1", LocatorStyle.GRID, [["Prepared by", "Group Finance"]]),
        (
            "table=2",
            LocatorStyle.GRID,
            [["", "US$m"], ["Revenue", "2,710"], ["Operating profit", "455"]],
        ),
    ]
    box = report.tables[0]
    assert (box.title, box.context) == ("Results", (BOX_TEXT, HK_HEADER, "Board copy"))


def _facts(report: ExtractedDocument, table: Table) -> set[tuple[str, str, str, float, str, str]]:
    mapped = map_table(table, acme_glossary(), report.title)
    assert mapped.review == []
    return {
        (f.metric_code, f.entity, f.period.label, f.value, f.unit, f.locator) for f in mapped.facts
    }


def test_the_page_header_names_entity_and_period_of_a_table(report: ExtractedDocument) -> None:
    hong_kong = report.tables[1]
    assert hong_kong.context == ("Key figures", "See the box.", HK_HEADER, "Board copy")
    assert _facts(report, hong_kong) == {
        ("REVENUE", "ACME_HK", "FY2025", 2710.0, "USD_M", "table=1,row=2,col=2"),
        ("OPERATING_PROFIT", "ACME_HK", "FY2025", 455.0, "USD_M", "table=1,row=3,col=2"),
    }


def test_each_section_takes_the_header_in_force_over_it(report: ExtractedDocument) -> None:
    macau = report.tables[3]
    # The first page's header ("Board copy") is still the first-page variant in force.
    assert macau.context == ("Key figures", MO_HEADER, "Board copy")
    assert _facts(report, macau) == {
        ("REVENUE", "ACME_MO", "FY2025", 2710.0, "USD_M", "table=2,row=2,col=2"),
        ("OPERATING_PROFIT", "ACME_MO", "FY2025", 455.0, "USD_M", "table=2,row=3,col=2"),
    }


def test_without_a_header_the_same_table_goes_to_review(tmp_path: Path) -> None:
    word = docx.Document()
    _figures(word)
    path = tmp_path / "figures.docx"
    word.save(str(path))
    document = DocxReader().read(path)
    mapped = map_table(document.tables[0], acme_glossary(), document.title)
    assert mapped.facts == []
    assert {r.reason for r in mapped.review} == {ReviewReason.MISSING_PERIOD}
    assert [b.locator for b in document.blocks] == ["section=0,para=1"]
