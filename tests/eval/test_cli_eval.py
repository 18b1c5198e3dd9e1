"""``ragspine eval``: one JSON object keyed by split, and the options that do not combine."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.eval.scoring import GATES

runner = CliRunner(env={"COLUMNS": "250"})


def test_the_dev_split_as_json_is_keyed_by_split_and_meets_the_baseline() -> None:
    done = runner.invoke(app, ["eval", "--split", "dev", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert list(report) == ["dev"]
    dev = report["dev"]
    assert dev["scored_cases"] >= 220
    assert {gate: dev["overall"]["gates"][gate]["score"] for gate in GATES} == dict.fromkeys(
        GATES, 1.0
    )
    assert (dev["overall"]["fabrication"], dev["overall"]["forbidden"]) == (0, 0)
    assert done.stderr == ""


def test_a_custom_set_has_no_splits(tmp_path: Path) -> None:
    golden = tmp_path / "mine.jsonl"
    golden.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = runner.invoke(app, ["eval", "--golden", str(golden), "--split", "dev"])
    assert done.exit_code == 2
    assert "--golden and --split do not combine" in done.stderr


def test_an_unknown_split_is_rejected_by_name() -> None:
    done = runner.invoke(app, ["eval", "--split", "test"])
    assert done.exit_code == 2
    assert "dev" in done.stderr and "heldout" in done.stderr


def test_allow_lower_needs_update_baseline() -> None:
    done = runner.invoke(app, ["eval", "--allow-lower"])
    assert done.exit_code == 2
    assert "--allow-lower only applies together with --update-baseline" in done.stderr
