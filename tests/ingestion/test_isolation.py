"""Per-file isolation: whatever one file does while it is read or mapped, it fails alone.

Each test builds its bad file in ``tmp_path`` beside a good one and ingests both through the
public API into a real SQLite store: the bad file fails with a message naming it and the
reason (or its absurd values become review items), the good one is ingested all the same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from openpyxl import Workbook
from pptx import Presentation
from reportlab.pdfgen import canvas

from ragspine.ingestion.isolation import MAX_NOTES
from ragspine.ingestion.pipeline import NOTHING_FOUND, FileResult, IngestReport, Outcome, ingest
from ragspine.ingestion.readers.xlsx_reader import XlsxReader
from ragspine.ingestion.safety import SafetyLimits
from ragspine.ingestion.tables import ABSURD_MAGNITUDE, ReviewReason
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from tests.peak_rss import WRAPPER, peak_env, read_peak_bytes
from tests.test_cli_ingest import ENV, summary

GOOD = "good.md"
NINES = "9" * 400


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / GOOD).write_text("# Summary\n\nRevenue grew in every region.\n", encoding="utf-8")
    return root


def run(
    folder: Path,
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    limits: SafetyLimits | None = None,
) -> dict[str, FileResult]:
    report: IngestReport = ingest([folder], store, profile, limits=limits)
    results = {r.doc_id: r for r in report.results}
    assert results[GOOD].outcome == Outcome.INGESTED, results[GOOD]
    assert store.get_document(GOOD) is not None
    return results


def assert_failed(result: FileResult, path: Path, *reason: str) -> None:
    assert result.outcome == Outcome.FAILED, result
    assert result.error.startswith(f"{path}: "), result.error
    for fragment in reason:
        assert fragment in result.error, result.error
    assert "Traceback" not in result.error


# --------------------------------------------------------------------------- any exception


def test_any_exception_from_a_reader_fails_that_file_alone(
    folder: Path,
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def explode(self: XlsxReader, path: Path) -> None:
        raise RuntimeError("the library fell over")

    monkeypatch.setattr(XlsxReader, "read", explode)
    bad = _workbook(folder / "broken.xlsx", [["Revenue", 1]])

    results = run(folder, store, profile)

    assert_failed(results["broken.xlsx"], bad, "RuntimeError: the library fell over")
    assert store.get_document("broken.xlsx") is None


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_ctrl_c_and_exit_still_stop_the_batch(
    folder: Path,
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    monkeypatch: pytest.MonkeyPatch,
    stop: type[BaseException],
) -> None:
    def interrupted(self: XlsxReader, path: Path) -> None:
        raise stop

    monkeypatch.setattr(XlsxReader, "read", interrupted)
    _workbook(folder / "a.xlsx", [["Revenue", 1]])
    with pytest.raises(stop):
        ingest([folder], store, profile)


# --------------------------------------------------------------------------- absurd values


def test_overflowing_and_absurd_values_become_review_items_not_facts(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    # Under a "billion US dollars" label 1e308 overflows when scaled to millions, 400 nines
    # overflow as they are read, 2e12 billion is 2e15 millions: all beyond any honest figure.
    _workbook(
        folder / "absurd.xlsx",
        [
            ["ACME Hong Kong — summary"],
            ["十亿美元"],
            [],
            ["Metric", "FY2022", "FY2023", "FY2024", "FY2025"],
            ["Revenue", 1e308, NINES, 2e12, 2.5],
        ],
    )

    results = run(folder, store, profile)

    assert results["absurd.xlsx"].outcome == Outcome.INGESTED
    facts = store.list_facts(doc_id="absurd.xlsx")
    assert [(f.period, f.value, f.source_locator) for f in facts] == [
        ("2025", 2500.0, "sheet=Sheet,cell=E5")
    ]
    items = store.list_review(doc_id="absurd.xlsx")
    absurd = [i for i in items if i.reason == "absurd_value"]
    assert sorted(i.locator for i in absurd) == ["sheet=Sheet,cell=B5", "sheet=Sheet,cell=D5"]
    assert all(i.proposed is None for i in absurd)
    by_cell = {i.locator: i.detail for i in absurd}
    assert "2e+15 USD_M" in by_cell["sheet=Sheet,cell=D5"]
    # More digits than a float holds is not a number at all: the cell is unreadable.
    [nines] = [i for i in items if i.locator == "sheet=Sheet,cell=C5"]
    assert nines.reason == "unreadable" and nines.proposed is None
    assert ReviewReason.ABSURD_VALUE.value == "absurd_value"
    assert ABSURD_MAGNITUDE == 1e15


# --------------------------------------------------------------------------- reader crashes


def test_a_workbook_style_of_the_wrong_type_fails_alone(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    good = _workbook(folder.parent / "source.xlsx", [["Revenue", 1]])
    bad = _rewrite(
        good, folder / "style.xlsx", "xl/styles.xml", rb'<sz val="[^"]*"', b'<sz val="eleven"'
    )

    results = run(folder, store, profile)

    assert_failed(results["style.xlsx"], bad, "not a readable Excel workbook", "TypeError")


@pytest.mark.parametrize(
    ("name", "pattern", "replacement"),
    [
        ("mediabox.pdf", rb"/MediaBox \[[^\]]*\]", b"/MediaBox [0 0]"),
        ("rotate.pdf", rb"/Rotate 0", b"/Rotate (abc)"),
    ],
)
def test_a_pdf_page_dictionary_of_the_wrong_shape_fails_alone(
    folder: Path,
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    name: str,
    pattern: bytes,
    replacement: bytes,
) -> None:
    source = _pdf(folder.parent / "source.pdf", ["Revenue grew."])
    bad = folder / name
    raw = source.read_bytes()
    assert re.search(pattern, raw)
    bad.write_bytes(re.sub(pattern, replacement, raw))

    results = run(folder, store, profile)

    assert_failed(results[name], bad, "malformed page dictionary")


def test_a_sidecar_nested_too_deeply_fails_alone(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    deep = folder / "deep.md"
    deep.write_text("# Notes\n\nRevenue grew.\n", encoding="utf-8")
    sidecar = folder / "deep.md.meta.json"
    sidecar.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")

    results = run(folder, store, profile)

    assert results["deep.md"].outcome == Outcome.FAILED
    assert results["deep.md"].error == f"{sidecar}: metadata is nested too deeply to be read"


# --------------------------------------------------------------------------- limits


def test_default_work_limits() -> None:
    limits = SafetyLimits()
    assert (
        limits.max_cells,
        limits.max_rows,
        limits.max_pages,
        limits.max_characters,
        limits.max_seconds,
    ) == (500_000, 200_000, 5_000, 20_000_000, 300.0)


@pytest.mark.parametrize(
    ("name", "write", "limits", "message"),
    [
        (
            "cells.xlsx",
            lambda p: _workbook(p, [[f"r{r}", *range(4)] for r in range(30)]),
            SafetyLimits(max_cells=100),
            "150 cells exceed the limit of 100",
        ),
        (
            "rows.xlsx",
            lambda p: _workbook(p, [[r] for r in range(30)]),
            SafetyLimits(max_rows=20),
            "30 rows exceed the limit of 20",
        ),
        (
            "spread.xlsx",  # two cells, but a grid of 2 × 1,000 between them
            lambda p: _workbook(p, [[1], *([[]] * 998), [None, 2]]),
            SafetyLimits(max_cells=1_000),
            "2,000 cells exceed the limit of 1,000",
        ),
        (
            "pages.pdf",
            lambda p: _pdf(p, ["one", "two", "three"]),
            SafetyLimits(max_pages=2),
            "3 pages exceed the limit of 2",
        ),
        (
            "slides.pptx",
            lambda p: _deck(p, 3),
            SafetyLimits(max_pages=2),
            "3 slides exceed the limit of 2",
        ),
        (
            "long.md",
            lambda p: p.write_text("Revenue grew. " * 100, encoding="utf-8"),
            SafetyLimits(max_characters=1_000),
            "1,400 characters exceed the limit of 1,000",
        ),
        (
            "table.md",  # other formats' tables are counted as extracted
            lambda p: p.write_text("| a | b |\n|---|---|\n" + "| x | 1 |\n" * 200, "utf-8"),
            SafetyLimits(max_cells=300),
            "402 cells exceed the limit of 300",
        ),
        (
            "slow.pdf",
            lambda p: _pdf(p, ["one", "two"]),
            SafetyLimits(max_seconds=0.0),
            "over the limit of 0 seconds (stopped at page 1)",
        ),
        (
            "slow.xlsx",
            lambda p: _workbook(p, [["Revenue", 1]]),
            SafetyLimits(max_seconds=0.0),
            "over the limit of 0 seconds (stopped at sheet 'Sheet')",
        ),
    ],
)
def test_a_file_over_a_work_limit_fails_alone(
    folder: Path,
    store: SQLiteWorkspaceStore,
    profile: DomainProfile,
    name: str,
    write: Callable[[Path], object],
    limits: SafetyLimits,
    message: str,
) -> None:
    bad = folder / name
    write(bad)
    # The good file keeps to every limit but time, so the time limit is tried on the bad only.
    if limits.max_seconds == 0:
        report = ingest([bad], store, profile, limits=limits)
        (result,) = report.results
    else:
        result = run(folder, store, profile, limits)[name]
    assert_failed(result, bad, message)


def test_a_workbook_of_a_million_cells_is_refused_before_it_is_loaded(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    big = million_cell_workbook(folder / "big.xlsx")

    results = run(folder, store, profile)

    assert_failed(results["big.xlsx"], big, "1,200,000 cells exceed the limit of 500,000")


# --------------------------------------------------------------------------- silent skips


def test_a_named_pipe_in_a_folder_is_reported_not_skipped(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    pipe = folder / "inbox.pdf"
    os.mkfifo(pipe)

    results = run(folder, store, profile)

    assert_failed(results["inbox.pdf"], pipe, "named pipe (FIFO)")


def test_a_folder_that_cannot_be_listed_is_reported(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    # Listing fails even for root (who reads a chmod 000 folder): its path is too long.
    unlisted = _beyond_path_max(folder)

    results = run(folder, store, profile)

    failure = results[unlisted.relative_to(folder).as_posix() + "/"]
    assert_failed(failure, unlisted, "cannot read folder: File name too long")


def test_a_file_that_yields_nothing_is_ingested_with_a_warning(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    blank = folder / "blank.pdf"
    pdf = canvas.Canvas(str(blank))
    pdf.showPage()  # a page with no text layer and no picture: nothing to read, nothing to OCR
    pdf.save()

    results = run(folder, store, profile)

    assert results["blank.pdf"].outcome == Outcome.INGESTED
    assert results["blank.pdf"].warnings == (NOTHING_FOUND,)
    assert results[GOOD].warnings == ()


def test_library_warnings_are_attached_to_their_file(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    noisy = noisy_pdf(folder / "noisy.pdf")

    results = run(folder, store, profile)

    assert results["noisy.pdf"].outcome == Outcome.INGESTED
    assert results["noisy.pdf"].warnings == (NOISE,), noisy


def test_a_file_that_keeps_warning_has_its_notes_capped(
    folder: Path, store: SQLiteWorkspaceStore, profile: DomainProfile
) -> None:
    noisy_pdf(folder / "noisy.pdf", [f"/P{n} g" for n in range(MAX_NOTES + 3)])

    results = run(folder, store, profile)

    notes = results["noisy.pdf"].warnings
    assert len(notes) == MAX_NOTES + 1
    assert notes[-1] == "and 3 more library messages"


# --------------------------------------------------------------------------- the command line

# Runs ``ragspine`` in this process and reports its peak memory (KiB) on stderr's last line.


def test_the_command_line_fails_bad_files_alone_and_prints_the_summary_subprocess(
    folder: Path, tmp_path: Path
) -> None:
    big = million_cell_workbook(folder / "big.xlsx")
    source = _workbook(tmp_path / "source.xlsx", [["Revenue", 1]])
    style = _rewrite(
        source, folder / "style.xlsx", "xl/styles.xml", rb'<sz val="[^"]*"', b'<sz val="eleven"'
    )
    noisy_pdf(folder / "noisy.pdf")
    os.mkfifo(folder / "pipe.md")

    command = ["ingest", str(folder), "--workspace", str(tmp_path / "ws")]
    peak_file = tmp_path / "peak"
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, "ragspine.cli", *command],
        capture_output=True,
        encoding="utf-8",
        env={**ENV, **peak_env(peak_file)},
        timeout=300,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert f"failed big.xlsx: {big}: 1,200,000 cells exceed the limit of 500,000" in lines
    assert any(line.startswith(f"failed style.xlsx: {style}: not a readable") for line in lines)
    assert f"failed pipe.md: {folder / 'pipe.md'}: a named pipe (FIFO), not a regular file" in lines
    assert f"warning noisy.pdf: {NOISE}" in lines
    counts = summary(done.stdout)
    assert (counts["files"], counts["ingested"], counts["failed"]) == (5, 2, 3)
    assert done.stderr == ""  # no traceback, no library noise
    # Loading the workbook would take well over a gigabyte; counting its cells takes nothing.
    assert read_peak_bytes(peak_file) < 600 * 2**20


# --------------------------------------------------------------------------- builders

NOISE = "pdfminer.pdfinterp: Cannot set gray level because /'P0' is an invalid float value"


def noisy_pdf(path: Path, operators: list[str] | None = None) -> Path:
    """A PDF whose page sets a colour with a name where a number belongs: pdfminer logs a
    warning for each such operator and reads the text all the same."""
    pdf = canvas.Canvas(str(path), pageCompression=0)
    pdf.drawString(72, 700, "Revenue grew in every region.")
    for operator in operators or ["/P0 g"]:
        pdf._code.append(operator)
    pdf.save()
    return path


def _workbook(path: Path, rows: list[list[object]]) -> Path:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for r, row in enumerate(rows, start=1):
        for c, value in enumerate(row, start=1):
            if value is not None:
                sheet.cell(row=r, column=c, value=value)
    book.save(path)
    return path


def _pdf(path: Path, pages: list[str]) -> Path:
    pdf = canvas.Canvas(str(path))
    for text in pages:
        pdf.drawString(72, 750, text)
        pdf.showPage()
    pdf.save()
    return path


def _deck(path: Path, slides: int) -> Path:
    deck = Presentation()
    for n in range(slides):
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = f"Slide {n}"
    deck.save(str(path))
    return path


def _rewrite(source: Path, target: Path, part: str, pattern: bytes, replacement: bytes) -> Path:
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == part:
                assert re.search(pattern, data)
                data = re.sub(pattern, replacement, data)
            zout.writestr(info, data)
    return target


def million_cell_workbook(path: Path, rows: int = 120_000, columns: int = 10) -> Path:
    """A real workbook of ``rows`` × ``columns`` numbers, its sheet part written by hand (as
    openpyxl would take minutes and gigabytes to write it)."""
    source = _workbook(path.with_name("seed.xlsx"), [["seed"]])
    letters = [chr(ord("A") + c) for c in range(columns)]
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != "xl/worksheets/sheet1.xml":
                zout.writestr(info, zin.read(info.filename))
                continue
            with zout.open("xl/worksheets/sheet1.xml", "w") as part:
                part.write(
                    b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/'
                    b'main"><sheetData>'
                )
                for r in range(1, rows + 1):
                    cells = "".join(
                        f'<c r="{letter}{r}"><v>{(r * 7919 + c * 104729) % 99991}</v></c>'
                        for c, letter in enumerate(letters)
                    )
                    part.write(f'<row r="{r}">{cells}</row>'.encode())
                part.write(b"</sheetData></worksheet>")
    path.with_name("seed.xlsx").unlink()
    return path


def _beyond_path_max(parent: Path) -> Path:
    """A chain of sub-folders under ``parent`` whose full path exceeds PATH_MAX (4096)."""
    name = "d" * 200
    fd = os.open(parent, os.O_RDONLY)
    path = parent
    try:
        while len(os.fsencode(path)) < 4096:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
            path = path / name
    finally:
        os.close(fd)
    return path  # the shallowest folder whose path is too long: os.walk cannot list it


def test_library_notes_keep_to_their_own_thread() -> None:
    """A server ingests on a worker thread while others answer: each collects only its own
    warnings and log records, and the process's warning settings come back afterwards."""
    import logging
    import threading
    import warnings

    from ragspine.ingestion.isolation import library_notes

    filters_before = list(warnings.filters)
    inside = threading.Barrier(2)
    done = threading.Barrier(2)
    collected: dict[str, list[str]] = {}

    def reader(name: str) -> None:
        with library_notes() as notes:
            inside.wait()
            warnings.warn(f"{name} says so", UserWarning, stacklevel=1)
            logging.getLogger(f"lib.{name}").warning("%s logged", name)
            done.wait()
        collected[name] = notes

    threads = [threading.Thread(target=reader, args=(n,)) for n in ("pdf", "xlsx")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert collected == {
        "pdf": ["lib.pdf: pdf logged", "UserWarning: pdf says so"],
        "xlsx": ["lib.xlsx: xlsx logged", "UserWarning: xlsx says so"],
    }
    assert list(warnings.filters) == filters_before
    assert warnings.showwarning.__module__ == "warnings"
