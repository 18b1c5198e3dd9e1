"""``ragspine.ingest_console`` on a real terminal: the progress bar and the summary print names
holding Rich markup and escape sequences as plain text."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from ragspine.ingest_console import ingest_with_progress, print_report
from ragspine.ingestion.pipeline import discover
from ragspine.profile.loader import load_profile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore


def test_progress_and_summary_print_hostile_names_plainly(tmp_path: Path) -> None:
    folder = tmp_path / "corpus" / "[" / "bold]"  # document ids start with "[/bold]/"
    folder.mkdir(parents=True)
    (folder / "memo\x1b]0;pwned\x07.md").write_text("# Memo\n\nRevenue grew.\n", encoding="utf-8")
    (folder / "broken[i].xlsx").write_bytes(b"not a zip")
    paths = [tmp_path / "corpus"]
    out = io.StringIO()
    # A terminal console: the progress bar renders, as it does for a user.
    console = Console(file=out, force_terminal=True, color_system=None, width=200)

    with SQLiteWorkspaceStore(tmp_path / "ragspine.db") as store:
        store.init_schema()
        report = ingest_with_progress(
            paths, discover(paths), store, load_profile(None), console=console
        )
    print_report(report, console)

    shown = out.getvalue()
    assert [r.doc_id for r in report.failures] == ["[/bold]/broken[i].xlsx"]
    assert "failed [/bold]/broken[i].xlsx: " in shown
    assert "pwned" not in shown and "\x07" not in shown
