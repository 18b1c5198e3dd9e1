"""A folder that changes between two `ragspine ingest` runs, seen from the command line.

Files vanish (reported, then retired with --prune), are renamed (the document moves, with its
review items), or are edited (review decisions on unchanged items are kept). Single documents
are listed and removed with `ragspine documents`. The folder is built in tmp_path from real
xlsx and docx files written with openpyxl and python-docx; answers are asked through the CLI.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import docx
import openpyxl
import pytest
from typer.testing import CliRunner, Result

from ragspine.cli import app
from ragspine.retrieval import vectors
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retriever import INDEX_DIR

runner = CliRunner(env={"COLUMNS": "250"})

HK_REVENUE_2025 = "What was ACME HK revenue in FY2025?"
CN_REVENUE_2025 = "What was ACME CN revenue in FY2025?"
HK_OP_2024 = "What was ACME HK operating profit in FY2024?"
HK_OP_2025 = "What was ACME HK operating profit in FY2025?"
REGULATION = "香港监管动态"
MEMO_PHRASE = "偿付能力规则"


def write_workbook(path: Path, entity: str, rows: list[list[object]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = entity
    sheet.append([f"ACME {entity} 指标 (USD m)", "FY2024", "FY2025"])
    for row in rows:
        sheet.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return path


def hk_rows(op_2024: str = "约300", revenue_2025: int = 2710) -> list[list[object]]:
    """Revenue as facts; two approximate operating profits and an unmapped label to review."""
    return [["收入", 2480, revenue_2025], ["营运利润", op_2024, "约320"], ["其他收入", 5, 6]]


def write_memo(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("香港监管备忘", 1)
    document.add_paragraph(
        f"香港保险业监管局发布新的{MEMO_PHRASE}，ACME HK 需要在2025年底前完成资本评估。"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))
    return path


@pytest.fixture
def src(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    write_workbook(folder / "hk.xlsx", "HK", hk_rows())
    write_workbook(folder / "cn.xlsx", "CN", [["收入", 1320, 1450]])
    write_memo(folder / "memo.docx")
    return folder


@pytest.fixture
def ws(src: Path, tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    ingest(src, workspace)
    return workspace


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def ingest(folder: Path, ws: Path, *options: str, exit_code: int = 0) -> str:
    result = invoke("ingest", str(folder), "--workspace", str(ws), *options)
    assert result.exit_code == exit_code, result.output
    return result.output


def ask(ws: Path, question: str, *options: str) -> dict[str, object]:
    result = invoke("ask", question, "--workspace", str(ws), "--json", *options)
    assert result.exit_code == 0, result.output
    answer: dict[str, object] = json.loads(result.stdout)
    return answer


def cited_docs(answer: dict[str, object]) -> set[str]:
    sources = answer["sources"]
    assert isinstance(sources, list)
    return {str(s["doc"]) for s in sources}


def documents(ws: Path) -> dict[str, dict[str, object]]:
    result = invoke("documents", "list", "--workspace", str(ws), "--json")
    assert result.exit_code == 0, result.output
    return {str(d["doc_id"]): d for d in json.loads(result.stdout)}


def review(ws: Path) -> list[tuple[int, str, str, str, str]]:
    """(id, document, locator, reason, state) of every review item."""
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        rows = conn.execute(
            "SELECT item_id, doc_id, locator, reason, state FROM review_items ORDER BY item_id"
        )
        return [(int(i), str(d), str(loc), str(r), str(s)) for i, d, loc, r, s in rows]


def item_at(ws: Path, locator: str) -> int:
    (item_id,) = [i for i, _, loc, _, _ in review(ws) if loc == locator]
    return item_id


def rows_of(ws: Path, doc_id: str) -> dict[str, int]:
    tables = {
        "fact_metric": "source_doc_id",
        "text_blocks": "doc_id",
        "chunks": "doc_id",
        "review_items": "doc_id",
        "documents": "doc_id",
    }
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        return {
            table: int(
                conn.execute(
                    f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (doc_id,)
                ).fetchone()[0]
            )
            for table, column in tables.items()
        }


def dump(ws: Path) -> list[str]:
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        return list(conn.iterdump())


def lexical_documents(ws: Path) -> set[str]:
    with LexicalIndex.open(ws / INDEX_DIR / "lexical") as index:
        return set(index.doc_versions())


def vector_documents(ws: Path) -> set[str]:
    """Documents with vectors saved by ``--dense hashing`` (read from the index's own file)."""
    (folder,) = (ws / INDEX_DIR).glob("vectors-*")
    meta = json.loads((folder / vectors.META_FILE).read_text(encoding="utf-8"))
    return set(meta["documents"]) | set(meta["doc_versions"])


def freeze(ws: Path, statement: str) -> None:
    """Make one kind of write fail inside SQLite itself, halfway through a transaction."""
    with closing(sqlite3.connect(ws / "ragspine.db")) as conn:
        conn.execute(
            f"CREATE TRIGGER frozen {statement} BEGIN "
            "SELECT RAISE(ABORT, 'the store refuses this write'); END"
        )
        conn.commit()


# --------------------------------------------------------------------------- missing files


def test_a_vanished_file_keeps_answering_until_pruned(src: Path, ws: Path) -> None:
    assert ask(ws, CN_REVENUE_2025)["answer_kind"] == "found"
    assert "memo.docx" in cited_docs(ask(ws, REGULATION))  # builds the lexical index
    assert {"cn.xlsx", "memo.docx"} <= lexical_documents(ws)
    (src / "cn.xlsx").unlink()
    (src / "memo.docx").unlink()

    warned = ingest(src, ws)

    assert (
        f"2 documents ingested from {src} are no longer there and still answer: "
        f"cn.xlsx, memo.docx; retire them with `ragspine ingest {src} --prune --workspace {ws}`"
    ) in warned
    assert ask(ws, CN_REVENUE_2025)["answer_kind"] == "found"
    assert set(documents(ws)) == {"cn.xlsx", "hk.xlsx", "memo.docx"}

    pruned = ingest(src, ws, "--prune")

    assert f"pruned 2 documents no longer in {src}: cn.xlsx, memo.docx" in pruned
    assert "no longer there" not in pruned
    not_found = ask(ws, CN_REVENUE_2025)
    assert not_found["answer_kind"] == "not_found"
    assert not_found["sources"] == []
    assert "cn.xlsx" not in str(not_found["answer"])
    narrative = ask(ws, REGULATION)
    assert "memo.docx" not in cited_docs(narrative)
    assert MEMO_PHRASE not in str(narrative["answer"])
    assert set(documents(ws)) == {"hk.xlsx"}
    for gone in ("cn.xlsx", "memo.docx"):
        assert set(rows_of(ws, gone).values()) == {0}, gone
    assert lexical_documents(ws) == {"hk.xlsx"}
    assert ask(ws, HK_REVENUE_2025)["answer_kind"] == "found"


def test_prune_considers_only_documents_from_the_folder_given(
    src: Path, ws: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    write_workbook(other / "mo.xlsx", "MO", [["收入", 300, 310]])
    ingest(other, ws)
    shutil.rmtree(other)
    (src / "cn.xlsx").unlink()

    output = ingest(src, ws, "--prune")

    assert f"pruned 1 document no longer in {src}: cn.xlsx" in output
    assert "mo.xlsx" not in output
    assert set(documents(ws)) == {"hk.xlsx", "memo.docx", "mo.xlsx"}


def test_a_dry_run_prune_reports_and_writes_nothing(src: Path, ws: Path) -> None:
    (src / "cn.xlsx").unlink()
    before = dump(ws)

    output = ingest(src, ws, "--prune", "--dry-run")

    assert f"pruned 1 document no longer in {src}: cn.xlsx" in output
    assert dump(ws) == before


# --------------------------------------------------------------------------- renames


def test_a_renamed_file_moves_with_its_review_items(src: Path, ws: Path) -> None:
    approved = item_at(ws, "sheet=HK,cell=B3")
    assert (
        invoke("review", "approve", str(approved), "--correct", "299", "-w", str(ws)).exit_code == 0
    )
    facts_before = documents(ws)["hk.xlsx"]["facts"]
    items_before = [(i, loc, r, s) for i, d, loc, r, s in review(ws) if d == "hk.xlsx"]
    (src / "2025").mkdir()
    (src / "hk.xlsx").rename(src / "2025" / "hk_results.xlsx")

    output = ingest(src, ws)

    assert "renamed hk.xlsx -> 2025/hk_results.xlsx" in output
    assert "no longer there" not in output
    listed = documents(ws)
    assert set(listed) == {"2025/hk_results.xlsx", "cn.xlsx", "memo.docx"}
    assert listed["2025/hk_results.xlsx"]["facts"] == facts_before
    assert set(rows_of(ws, "hk.xlsx").values()) == {0}
    assert [(i, loc, r, s) for i, d, loc, r, s in review(ws) if d == "2025/hk_results.xlsx"] == (
        items_before
    )
    found = ask(ws, HK_REVENUE_2025)
    assert cited_docs(found) == {"2025/hk_results.xlsx"}
    assert "2025/hk_results.xlsx" in str(found["answer"])
    corrected = ask(ws, HK_OP_2024)
    assert "299" in str(corrected["answer"])
    assert cited_docs(corrected) == {"2025/hk_results.xlsx"}
    shown = invoke("review", "show", str(approved), "-w", str(ws))
    assert "approved (carried over): unchanged in 2025/hk_results.xlsx (renamed from hk.xlsx)" in (
        shown.output
    )


def test_a_copy_is_not_a_rename(src: Path, ws: Path) -> None:
    shutil.copy(src / "cn.xlsx", src / "cn_copy.xlsx")

    output = ingest(src, ws)

    assert "renamed" not in output
    assert {"cn.xlsx", "cn_copy.xlsx"} <= set(documents(ws))


def test_a_renamed_and_edited_file_is_no_conflict_with_its_old_name_once_pruned(
    src: Path, ws: Path
) -> None:
    (src / "hk.xlsx").unlink()
    write_workbook(src / "hk_v2.xlsx", "HK", hk_rows(revenue_2025=2750))

    output = ingest(src, ws, "--prune")

    assert f"pruned 1 document no longer in {src}: hk.xlsx" in output
    assert "conflict" not in {r for _, _, _, r, _ in review(ws)}
    answer = ask(ws, HK_REVENUE_2025)
    assert "US$ 2,750 m" in str(answer["answer"])
    assert cited_docs(answer) == {"hk_v2.xlsx"}


# --------------------------------------------------------------------------- decisions


def test_decisions_on_unchanged_items_survive_an_edit(src: Path, ws: Path) -> None:
    op_2024 = item_at(ws, "sheet=HK,cell=B3")
    op_2025 = item_at(ws, "sheet=HK,cell=C3")
    label = item_at(ws, "sheet=HK,cell=A4")
    for args in (
        ("approve", str(op_2024), "--correct", "299"),
        ("approve", str(op_2025)),
        ("reject", str(label), "--note", "not a group metric"),
    ):
        assert invoke("review", *args, "--workspace", str(ws)).exit_code == 0
    assert "299" in str(ask(ws, HK_OP_2024)["answer"])
    # Two cells change: the 2024 operating profit (under review) and the 2025 revenue (a fact).
    write_workbook(src / "hk.xlsx", "HK", hk_rows(op_2024="约310", revenue_2025=2750))

    output = ingest(src, ws)

    assert "kept 2 review decisions on unchanged items" in output
    states = {loc: (i, s) for i, d, loc, _, s in review(ws) if d == "hk.xlsx"}
    assert states["sheet=HK,cell=C3"] == (op_2025, "approved")
    assert states["sheet=HK,cell=A4"] == (label, "rejected")
    new_id, state = states["sheet=HK,cell=B3"]
    assert (state, new_id != op_2024) == ("open", True)
    assert ask(ws, HK_OP_2024)["answer_kind"] == "not_found"
    assert "320" in str(ask(ws, HK_OP_2025)["answer"])
    assert "US$ 2,750 m" in str(ask(ws, HK_REVENUE_2025)["answer"])
    trail = invoke("review", "show", str(label), "--workspace", str(ws)).output
    assert "rejected: not a group metric" in trail
    assert "rejected (carried over): unchanged in hk.xlsx" in trail
    assert "carried over" not in invoke("review", "show", str(new_id), "-w", str(ws)).output


# --------------------------------------------------------------------------- documents


def test_documents_list_shows_each_document_with_its_counts(ws: Path) -> None:
    listed = documents(ws)

    assert set(listed) == {"cn.xlsx", "hk.xlsx", "memo.docx"}
    hk, memo = listed["hk.xlsx"], listed["memo.docx"]
    assert (hk["kind"], hk["facts"], hk["chunks"], hk["open_review"]) == ("xlsx", 2, 0, 3)
    assert (memo["kind"], memo["facts"], memo["open_review"]) == ("docx", 0, 0)
    assert int(str(memo["chunks"])) >= 1
    assert {d["sensitivity"] for d in listed.values()} == {"INTERNAL"}
    table = invoke("documents", "list", "--workspace", str(ws))
    assert table.exit_code == 0
    hk_line = next(line for line in table.output.splitlines() if "hk.xlsx" in line)
    assert [cell.strip() for cell in hk_line.split("│")[1:6]] == ["hk.xlsx", "xlsx", "2", "0", "3"]


def test_documents_remove_retires_one_document(src: Path, ws: Path) -> None:
    ingest(src, ws, "--dense", "hashing")  # nothing changed: only the vectors are stored
    assert "memo.docx" in cited_docs(ask(ws, REGULATION, "--dense", "hashing"))
    assert "memo.docx" in vector_documents(ws)

    removed = invoke("documents", "remove", "memo.docx", "--workspace", str(ws))

    assert removed.exit_code == 0, removed.output
    assert removed.stdout.strip() == "removed memo.docx"
    assert set(rows_of(ws, "memo.docx").values()) == {0}
    assert "memo.docx" not in lexical_documents(ws)
    assert "memo.docx" not in vector_documents(ws)
    assert "memo.docx" not in cited_docs(ask(ws, REGULATION, "--dense", "hashing"))
    assert set(documents(ws)) == {"cn.xlsx", "hk.xlsx"}


def test_removing_an_unknown_document_is_an_error(ws: Path) -> None:
    before = dump(ws)

    result = invoke("documents", "remove", "nope.pdf", "--workspace", str(ws))

    assert result.exit_code == 2
    assert result.stderr.startswith("error: no document 'nope.pdf'")
    assert dump(ws) == before


# --------------------------------------------------------------------------- failures


def test_a_failed_remove_leaves_the_document_whole(ws: Path) -> None:
    freeze(ws, "BEFORE DELETE ON documents")
    before = dump(ws)

    result = invoke("documents", "remove", "cn.xlsx", "--workspace", str(ws))

    assert result.exit_code == 1
    assert "the store refuses this write" in result.stderr
    assert dump(ws) == before
    assert ask(ws, CN_REVENUE_2025)["answer_kind"] == "found"


def test_a_failed_prune_leaves_the_document_whole(src: Path, ws: Path) -> None:
    freeze(ws, "BEFORE DELETE ON documents")
    (src / "cn.xlsx").unlink()
    before = dump(ws)

    result = invoke("ingest", str(src), "--workspace", str(ws), "--prune")

    assert result.exit_code == 1
    assert "the store refuses this write" in result.stderr
    assert dump(ws) == before
    assert ask(ws, CN_REVENUE_2025)["answer_kind"] == "found"


def test_a_failed_rename_leaves_the_old_name_whole(src: Path, ws: Path) -> None:
    # The new name's manifest row is the last write of the move: everything before it is undone.
    freeze(ws, "BEFORE INSERT ON documents WHEN NEW.doc_id = 'hk_renamed.xlsx'")
    (src / "hk.xlsx").rename(src / "hk_renamed.xlsx")
    before = dump(ws)

    result = invoke("ingest", str(src), "--workspace", str(ws))

    assert result.exit_code == 1
    assert "the store refuses this write" in result.stderr
    assert dump(ws) == before
    assert cited_docs(ask(ws, HK_REVENUE_2025)) == {"hk.xlsx"}
