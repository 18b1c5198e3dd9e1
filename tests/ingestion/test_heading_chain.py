"""A table takes entity and period from every heading it sits under, nearest first.

"ACME Macau" (level 1) above "Key figures FY2025" (level 2) above a table of metric rows: the
table's own heading names the period only, the enclosing one the entity. A sibling section
under another level-1 heading must not inherit the first one's entity.
"""

from __future__ import annotations

from pathlib import Path

import docx

from ragspine.ingestion.model import ExtractedDocument
from ragspine.ingestion.readers.docx_reader import DocxReader
from ragspine.ingestion.readers.text_reader import TextReader
from ragspine.ingestion.tables import ReviewReason, map_table
from tests.profiles import acme_glossary

ROWS = [["", "US$m"], ["Revenue", "2,710"], ["Operating profit", "455"]]


def _mapped(document: ExtractedDocument) -> list[tuple[set[tuple[str, str, str, float]], set[str]]]:
    out = []
    for table in document.tables:
        mapped = map_table(table, acme_glossary(), document.title)
        facts = {(f.metric_code, f.entity, f.period.label, f.value) for f in mapped.facts}
        out.append((facts, {r.reason.value for r in mapped.review}))
    return out


def _expected(entity: str) -> set[tuple[str, str, str, float]]:
    return {("REVENUE", entity, "FY2025", 2710.0), ("OPERATING_PROFIT", entity, "FY2025", 455.0)}


def _word(path: Path) -> Path:
    word = docx.Document()
    word.add_heading("Regional review", level=0)  # the document's title names no entity
    for heading, level in [
        ("ACME Macau", 1),
        ("Key figures FY2025", 2),
        (None, 0),
        ("Notes", 2),
        ("Outlook", 1),
        ("Key figures FY2025", 2),
        (None, 0),
    ]:
        if heading is None:
            table = word.add_table(rows=len(ROWS), cols=2)
            for r, row in enumerate(ROWS):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        else:
            word.add_heading(heading, level=level)
    word.save(str(path))
    return path


def test_word_tables_take_the_entity_from_an_enclosing_heading(tmp_path: Path) -> None:
    document = DocxReader().read(_word(tmp_path / "figures.docx"))
    macau, outlook = _mapped(document)
    assert macau == (_expected("ACME_MO"), set())
    # Under "Outlook" nothing names an entity: review, not Macau's entity carried over.
    assert outlook[0] == set() and outlook[1] == {ReviewReason.MISSING_ENTITY.value}


def test_markdown_tables_take_the_entity_from_an_enclosing_heading(tmp_path: Path) -> None:
    table = "\n".join("| " + " | ".join(row) + " |" for row in ROWS[:1]) + "\n|---|---|\n"
    table += "\n".join("| " + " | ".join(row) + " |" for row in ROWS[1:])
    text = (
        "# Regional review\n\n"
        f"# ACME Macau\n\n## Key figures FY2025\n\n{table}\n\n## Notes\n\nText.\n\n"
        f"# Outlook\n\n## Key figures FY2025\n\n{table}\n"
    )
    path = tmp_path / "figures.md"
    path.write_text(text, encoding="utf-8")
    macau, outlook = _mapped(TextReader().read(path))
    assert macau == (_expected("ACME_MO"), set())
    assert outlook[0] == set() and outlook[1] == {ReviewReason.MISSING_ENTITY.value}
