"""Crashing inputs the reader fuzzer found (tests/reliability/test_reader_fuzz.py), minimized
with ``python -m tests.reliability.minimize`` and kept in ``tests/hostile/regressions/``.

Each made a format library raise something other than a bad-file error (python-pptx and
python-docx an ``AttributeError`` or ``TypeError`` on a part of the wrong kind, openpyxl an
``IndexError`` on a style index past the styles, ``zlib.error`` on damaged deflate data) that
escaped the reader. Each must now fail alone: an ``IngestError`` naming the file and the
library's complaint, and through ``ingest`` a failure with that reason — never the per-file
boundary's catch-all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragspine.errors import IngestError
from ragspine.ingestion.pipeline import UNEXPECTED, Outcome, ingest
from ragspine.ingestion.readers import read_document
from ragspine.ingestion.readers.boundary import bad_file_errors
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

FOLDER = Path(__file__).parent / "regressions"
# file -> the library's complaint its failure must carry, and how the fuzzer made it
REGRESSIONS: dict[str, str] = {
    # a slide layout's XML where a .rels part belongs (swap_entries)
    "pptx_rels_part_holds_a_layout.pptx": "AttributeError: 'CT_SlideLayout' object",
    # the slide master's XML in ppt/presentation.xml (swap_entries)
    "pptx_presentation_part_holds_a_master.pptx": "get_or_add_sldIdLst",
    # a .rels part whose root is not <Relationships> (xml_foreign_namespace)
    "pptx_rels_part_not_relationships.pptx": "relationship_lst",
    "docx_rels_part_not_relationships.docx": "Relationship_lst",
    # a <Relationship> without its Target attribute (xml_odd_attribute)
    "docx_relationship_without_target.docx": "TypeError: join()",
    # [Content_Types].xml holding another part's XML (swap_entries)
    "docx_content_types_not_types.docx": "'overrides'",
    # word/document.xml holding another part's XML (swap_entries)
    "docx_document_part_without_body.docx": "'sectPr_lst'",
    # docProps/core.xml holding another part's XML (swap_entries)
    "docx_core_properties_foreign.docx": "'title_text'",
    # word/styles.xml holding another part's XML (swap_entries)
    # (its first paragraph style is looked up in it: the styles part is no style table)
    "docx_relationships_foreign.docx": "'get_by_id'",
    # a sheet's style index past the workbook's styles (rename_entry of xl/styles.xml)
    "xlsx_style_index_out_of_range.xlsx": "IndexError",
    # a flipped bit inside a deflated part (flip_bits)
    "xlsx_damaged_deflate.xlsx": "zlib.error",
}


@pytest.fixture(scope="module")
def profile() -> DomainProfile:
    return load_profile()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteWorkspaceStore]:
    with SQLiteWorkspaceStore(tmp_path / "ragspine.db") as s:
        s.init_schema()
        yield s


def test_every_regression_file_is_listed() -> None:
    assert sorted(p.name for p in FOLDER.iterdir()) == sorted(REGRESSIONS)


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_the_reader_fails_naming_the_file_and_the_complaint(name: str) -> None:
    path = FOLDER / name
    with pytest.raises(IngestError) as caught:
        read_document(path)
    assert str(path) in str(caught.value)
    assert "not a readable" in str(caught.value)
    assert REGRESSIONS[name] in str(caught.value)


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_the_ingest_fails_the_file_alone_with_that_reason(
    name: str, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    path = FOLDER / name
    [result] = ingest([path], store, profile).results
    assert result.outcome == Outcome.FAILED
    assert str(path) in result.error and REGRESSIONS[name] in result.error
    assert f": {UNEXPECTED}: " not in result.error
    assert store.list_documents() == []


def test_an_error_raised_in_our_own_code_is_still_a_bug() -> None:
    # Raised here, in no format library: the boundary lets it through.
    with (
        pytest.raises(AttributeError),
        bad_file_errors(Path("deck.pptx"), "PowerPoint deck", inside=("pptx",)),
    ):
        getattr(object(), "relationship_lst")  # noqa: B009
