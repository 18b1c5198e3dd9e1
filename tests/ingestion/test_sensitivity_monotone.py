"""A document's sensitivity never drops by accident: the level its name and content (text and
table cells) call for is a floor that a sidecar may raise, and may lower only with an explicit
``sensitivity_override``, which the summary shows and the document audit log records.

Folders of real xlsx and docx files are built in tmp_path and go through the real CLI
(`ragspine ingest`, `ragspine ask`, `ragspine review list`) into a real workspace.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import docx
import pytest
from typer.testing import CliRunner, Result

from ragspine.cli import app
from ragspine.ingestion.sensitivity import content_sensitivity, decide_sensitivity
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.cli.test_folder_changes import write_workbook

runner = CliRunner(env={"COLUMNS": "250"})

HK_REVENUE_2025 = "What was ACME HK revenue in FY2025?"
ACME = load_profile(example_profile_path())


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def ingest(folder: Path, ws: Path, *, exit_code: int = 0) -> str:
    result = invoke("ingest", str(folder), "--workspace", str(ws))
    assert result.exit_code == exit_code, result.output
    return result.output


def answer(ws: Path, clearance: str | None = None) -> str:
    options = ["--clearance", clearance] if clearance else []
    result = invoke("ask", HK_REVENUE_2025, "--workspace", str(ws), "--json", *options)
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["answer"])


def level_of(ws: Path, doc_id: str) -> str:
    result = invoke("documents", "list", "--workspace", str(ws), "--json")
    assert result.exit_code == 0, result.output
    return next(str(d["sensitivity"]) for d in json.loads(result.stdout) if d["doc_id"] == doc_id)


def sidecar(path: Path, **metadata: object) -> None:
    path.with_name(path.name + ".meta.json").write_text(json.dumps(metadata), encoding="utf-8")


def revenue_book(path: Path, note: str = "", revenue_2025: int = 2710) -> Path:
    """ACME HK revenue by year; ``note`` sits alone in a cell under the figures."""
    rows: list[list[object]] = [["收入", 2480, revenue_2025]]
    if note:
        rows.append([note, "", ""])
    return write_workbook(path, "HK", rows)


def revenue_memo(path: Path, note: str) -> Path:
    """A Word memo whose only table holds the figures and, in a cell, ``note``."""
    document = docx.Document()
    document.add_heading("ACME HK 业绩", 1)
    table = document.add_table(rows=3, cols=3)
    rows = [["ACME HK 指标 (USD m)", "FY2024", "FY2025"], ["收入", "2480", "2710"], [note, "", ""]]
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))
    return path


def store(ws: Path) -> SQLiteWorkspaceStore:
    return SQLiteWorkspaceStore(ws / "ragspine.db")


# --------------------------------------------------------------------------- table cells


@pytest.mark.parametrize(
    ("name", "note"),
    [("minutes.docx", "董事会决议 2025-03"), ("figures.xlsx", "Board resolution 7")],
)
def test_a_keyword_in_a_table_cell_survives_an_owner_sidecar(
    tmp_path: Path, name: str, note: str
) -> None:
    folder = tmp_path / "src"
    path = folder / name
    (revenue_memo if name.endswith(".docx") else revenue_book)(path, note)
    ws = tmp_path / "ws"
    ingest(folder, ws)
    assert level_of(ws, name) == "RESTRICTED"
    assert "2,710" in answer(ws, "RESTRICTED")  # the question does find the figure

    sidecar(path, owner="finance")
    output = ingest(folder, ws)

    assert "│     1 │        0 │       0 │        1 │" in output  # a metadata-only update
    assert level_of(ws, name) == "RESTRICTED"
    assert "2,710" not in answer(ws)
    assert "2,710" not in answer(ws, "CONFIDENTIAL")


# --------------------------------------------------------------------------- sidecar rules


@pytest.fixture
def board(tmp_path: Path) -> Path:
    """A workbook RESTRICTED twice over: its name matches *board*, a cell says so too."""
    return revenue_book(tmp_path / "src" / "board_pack.xlsx", "board resolution")


def test_a_lower_sidecar_is_ignored_without_override_and_the_summary_says_so(
    board: Path, tmp_path: Path
) -> None:
    sidecar(board, sensitivity="PUBLIC")
    ws = tmp_path / "ws"

    output = ingest(board.parent, ws)

    assert level_of(ws, "board_pack.xlsx") == "RESTRICTED"
    assert (
        "sensitivity board_pack.xlsx: sidecar sensitivity PUBLIC ignored: the file's name or "
        'content makes it RESTRICTED; add "sensitivity_override": true to lower it'
    ) in " ".join(output.split())
    assert "2,710" not in answer(ws, "PUBLIC")
    assert "2,710" not in answer(ws)
    with store(ws) as s:
        assert s.document_audit("board_pack.xlsx") == []


def test_an_explicit_override_lowers_the_level_and_is_audited(board: Path, tmp_path: Path) -> None:
    sidecar(board, sensitivity="PUBLIC", sensitivity_override=True)
    ws = tmp_path / "ws"

    output = ingest(board.parent, ws)

    assert level_of(ws, "board_pack.xlsx") == "PUBLIC"
    assert (
        "sensitivity board_pack.xlsx: sensitivity PUBLIC set by the sidecar's "
        "sensitivity_override (content says RESTRICTED; recorded in the audit log)"
    ) in " ".join(output.split())
    assert "2,710" in answer(ws, "PUBLIC")
    with store(ws) as s:
        audit = s.document_audit("board_pack.xlsx")
    assert [(a.action, a.detail) for a in audit] == [
        (
            "sensitivity_override",
            "board_pack.xlsx.meta.json: sensitivity_override RESTRICTED -> PUBLIC",
        )
    ]


def test_metadata_only_updates_recompute_from_the_content_level(
    board: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ingest(board.parent, ws)
    sidecar(board, sensitivity="PUBLIC", sensitivity_override=True)
    ingest(board.parent, ws)
    assert level_of(ws, "board_pack.xlsx") == "PUBLIC"
    with store(ws) as s:
        assert len(s.document_audit("board_pack.xlsx")) == 1

    sidecar(board, sensitivity="PUBLIC", owner="finance")  # the override is taken away
    output = ingest(board.parent, ws)

    assert "│     1 │        0 │       0 │        1 │" in output
    assert level_of(ws, "board_pack.xlsx") == "RESTRICTED"
    assert "2,710" not in answer(ws, "PUBLIC")
    with store(ws) as s:
        assert {b.sensitivity for b in s.list_blocks("board_pack.xlsx")} <= {"RESTRICTED"}
        assert len(s.document_audit("board_pack.xlsx")) == 1


def test_a_sidecar_may_raise_the_level(tmp_path: Path) -> None:
    book = revenue_book(tmp_path / "src" / "hk.xlsx")
    ws = tmp_path / "ws"
    ingest(book.parent, ws)
    assert level_of(ws, "hk.xlsx") == "INTERNAL"
    assert "2,710" in answer(ws, "INTERNAL")

    sidecar(book, sensitivity="RESTRICTED")
    output = ingest(book.parent, ws)

    assert level_of(ws, "hk.xlsx") == "RESTRICTED"
    assert "sensitivity hk.xlsx" not in output  # raising needs no note
    assert "2,710" not in answer(ws)


def test_an_override_that_is_not_a_boolean_fails_that_file(board: Path, tmp_path: Path) -> None:
    sidecar(board, sensitivity="PUBLIC", sensitivity_override="yes")

    output = ingest(board.parent, tmp_path / "ws", exit_code=1)

    assert "sensitivity_override must be true or false" in output


def test_a_workspace_from_before_the_content_level_reads_the_file_again(
    board: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ingest(board.parent, ws)
    # What an older ragspine wrote: schema version 1, no content level or hidden count column.
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        conn.execute("ALTER TABLE documents DROP COLUMN content_sensitivity")
        conn.execute("ALTER TABLE documents DROP COLUMN n_hidden")
        conn.execute("DROP TABLE document_audit")
        conn.execute("UPDATE schema_version SET version = 1 WHERE component = 'ingest'")
        conn.commit()

    sidecar(board, owner="finance")
    output = ingest(board.parent, ws)

    assert "│     1 │        1 │       0 │        0 │" in output  # read again, not metadata
    assert level_of(ws, "board_pack.xlsx") == "RESTRICTED"
    with store(ws) as s:
        record = s.get_document("board_pack.xlsx")
    assert record is not None and record.content_sensitivity == "RESTRICTED"


def test_asking_a_workspace_from_before_the_content_level_says_to_ingest_first(
    board: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ingest(board.parent, ws)
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        conn.execute("ALTER TABLE documents DROP COLUMN content_sensitivity")
        conn.execute("ALTER TABLE documents DROP COLUMN n_hidden")
        conn.execute("UPDATE schema_version SET version = 1 WHERE component = 'ingest'")
        conn.commit()
    before = (ws / "ragspine.db").read_bytes()

    result = invoke("ask", "--workspace", str(ws), "What was revenue in FY2025?")

    assert result.exit_code == 2
    assert "written by an older ragspine (schema ingest 1" in result.output
    assert "run `ragspine ingest`" in result.output
    assert (ws / "ragspine.db").read_bytes() == before  # reading never upgrades it


# --------------------------------------------------------------------------- review items


def test_a_conflict_item_never_quotes_a_more_sensitive_value(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    revenue_book(folder / "board_pack.xlsx", revenue_2025=2165)  # RESTRICTED by name
    hk = revenue_book(folder / "hk.xlsx", revenue_2025=2710)  # INTERNAL, a different value
    ws = tmp_path / "ws"
    ingest(folder, ws)

    with store(ws) as s:
        [item] = [i for i in s.list_review() if i.reason == "conflict"]
    assert item.doc_id == "hk.xlsx"
    assert "2165" not in item.detail
    assert item.detail.startswith("board_pack.xlsx states a different value at ")
    assert item.sensitivity == "RESTRICTED"

    def listed(*options: str) -> str:
        result = invoke("review", "list", "--workspace", str(ws), *options)
        assert result.exit_code == 0, result.output
        return result.stdout

    assert "hk.xlsx" in listed()
    assert "hk.xlsx" in listed("--clearance", "RESTRICTED")
    assert "hk.xlsx" not in listed("--clearance", "INTERNAL")
    assert "2,165" not in answer(ws, "INTERNAL")

    sidecar(hk, owner="finance")  # a metadata update keeps the item at the level it mentions
    ingest(folder, ws)
    with store(ws) as s:
        [item] = [i for i in s.list_review() if i.reason == "conflict"]
    assert item.sensitivity == "RESTRICTED"
    assert "hk.xlsx" not in listed("--clearance", "INTERNAL")


def test_review_list_rejects_an_unknown_clearance(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ingest(revenue_book(tmp_path / "src" / "hk.xlsx").parent, ws)

    result = invoke("review", "list", "--workspace", str(ws), "--clearance", "TOP")

    assert result.exit_code == 2
    assert "--clearance: unknown sensitivity 'TOP'" in result.output


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    ("name", "text", "level"),
    [
        ("notes.md", "密级：RESTRICTED", Sensitivity.RESTRICTED),
        ("notes.md", "本文件为机密文件", Sensitivity.RESTRICTED),
        ("notes.md", "绝密", Sensitivity.RESTRICTED),
        ("notes.md", "CONFIDENTIAL — do not forward", Sensitivity.CONFIDENTIAL),
        ("notes.md", "请注意保密", Sensitivity.CONFIDENTIAL),
        ("notes.md", "Board\nResolution 12", Sensitivity.RESTRICTED),  # any case, any spacing
        ("notes.md", "strictly confidential", Sensitivity.CONFIDENTIAL),
        # Prose, not markings: whole words only, and the English markings are case-sensitive.
        ("notes.md", "restricted cash and confidential information", Sensitivity.INTERNAL),
        ("notes.md", "onboard resolutions", Sensitivity.INTERNAL),
        ("notes.md", "UNRESTRICTED", Sensitivity.INTERNAL),
        # A file-name rule sets the base, even below the default; keywords only raise it.
        ("ACME_annual_report_2025.pdf", "restricted cash", Sensitivity.PUBLIC),
        ("ACME_annual_report_2025.pdf", "机密", Sensitivity.RESTRICTED),
        ("board_annual_report.pdf", "", Sensitivity.RESTRICTED),  # the highest name rule
    ],
)
def test_content_level_of_the_shipped_profile(name: str, text: str, level: Sensitivity) -> None:
    assert content_sensitivity(name, text, ACME) is level


def test_a_sidecar_combines_with_the_content_level() -> None:
    internal, public = Sensitivity.INTERNAL, Sensitivity.PUBLIC
    assert decide_sensitivity(internal, None).level is internal
    assert decide_sensitivity(internal, Sensitivity.RESTRICTED).level is Sensitivity.RESTRICTED
    ignored = decide_sensitivity(internal, public)
    assert (ignored.level, ignored.ignored, ignored.overridden) == (internal, True, False)
    lowered = decide_sensitivity(internal, public, override=True)
    assert (lowered.level, lowered.ignored, lowered.overridden) == (public, False, True)
    assert decide_sensitivity(internal, internal, override=True).note() == ""


# --------------------------------------------------------------------------- copies


def copy_pair(tmp_path: Path) -> tuple[Path, Path]:
    """A CONFIDENTIAL workbook (by its sidecar) and a byte-for-byte copy without one."""
    original = revenue_book(tmp_path / "src" / "finance" / "hk.xlsx")
    sidecar(original, sensitivity="CONFIDENTIAL")
    copy = tmp_path / "src" / "shared" / "hk_copy.xlsx"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(original.read_bytes())
    return original, copy


def assert_copy_raised(ws: Path) -> None:
    assert level_of(ws, "shared/hk_copy.xlsx") == "CONFIDENTIAL"
    assert "2,710" not in answer(ws, "INTERNAL")
    assert "2,710" in answer(ws, "CONFIDENTIAL")
    with store(ws) as s:
        facts = s.list_facts(doc_id="shared/hk_copy.xlsx") + s.list_facts(doc_id="finance/hk.xlsx")
        assert facts and {f.sensitivity for f in facts} == {"CONFIDENTIAL"}
        audit = [(a.action, a.detail) for a in s.document_audit("shared/hk_copy.xlsx")]
    assert audit == [
        ("sensitivity_raised", "INTERNAL -> CONFIDENTIAL: same content as finance/hk.xlsx")
    ]


def test_a_copy_without_the_sidecar_keeps_the_level_of_its_original(tmp_path: Path) -> None:
    original, _ = copy_pair(tmp_path)
    ws = tmp_path / "ws"

    output = ingest(original.parent.parent, ws)

    assert level_of(ws, "finance/hk.xlsx") == "CONFIDENTIAL"
    assert_copy_raised(ws)
    assert "raised to CONFIDENTIAL: a copy of this content holds it" in " ".join(output.split())


def test_a_copy_ingested_first_is_raised_when_the_original_arrives(tmp_path: Path) -> None:
    original, copy = copy_pair(tmp_path)
    ws = tmp_path / "ws"
    hidden = tmp_path / "later"
    original.parent.rename(hidden)  # only the copy is there at first
    ingest(copy.parent.parent, ws)
    assert level_of(ws, "shared/hk_copy.xlsx") == "INTERNAL"

    hidden.rename(original.parent)
    ingest(original.parent.parent, ws)

    assert_copy_raised(ws)


def test_an_audited_override_on_a_copy_is_kept(board: Path, tmp_path: Path) -> None:
    copy = board.with_name("board_copy.xlsx")
    copy.write_bytes(board.read_bytes())
    sidecar(copy, sensitivity="INTERNAL", sensitivity_override=True)
    ws = tmp_path / "ws"

    ingest(board.parent, ws)

    assert level_of(ws, "board_pack.xlsx") == "RESTRICTED"
    assert level_of(ws, "board_copy.xlsx") == "INTERNAL"
