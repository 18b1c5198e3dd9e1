"""``ragspine eval``: one JSON object keyed by split, the held-out split shown without its cases,
and the options that do not combine."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.eval.cases import Split, load_golden
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


def test_the_heldout_split_shows_no_case_id_question_or_answer() -> None:
    done = runner.invoke(app, ["eval", "--split", "heldout"])
    assert done.exit_code == 0, done.stderr
    assert "heldout score" in done.stdout and "(cases not shown)" in done.stdout
    output = done.stdout + done.stderr
    cases = load_golden(split=Split.HELDOUT)
    # Counted, not listed: the assertion must not print what it looks for.
    ids_shown = sum(1 for c in cases if c.id in output)
    questions_shown = sum(1 for c in cases if c.question in output)
    assert (ids_shown, questions_shown) == (0, 0)


def test_heldout_cases_are_never_shown_in_ci() -> None:
    for ci in ("true", "TRUE", "1"):
        done = runner.invoke(app, ["eval", "--show-heldout-cases"], env={"CI": ci})
        assert done.exit_code == 2
        assert "--show-heldout-cases is refused when CI is set" in done.stderr


def test_a_custom_set_has_no_splits(tmp_path: Path) -> None:
    golden = tmp_path / "mine.jsonl"
    golden.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = runner.invoke(app, ["eval", "--golden", str(golden), "--split", "dev"])
    assert done.exit_code == 2
    assert "--golden and --split do not combine" in done.stderr


def test_an_unknown_split_is_rejected_by_name() -> None:
    done = runner.invoke(app, ["eval", "--split", "test"])
    assert done.exit_code == 2
    assert "dev" in done.stderr and "regression" in done.stderr and "heldout" in done.stderr


def test_allow_lower_needs_update_baseline() -> None:
    done = runner.invoke(app, ["eval", "--allow-lower"])
    assert done.exit_code == 2
    assert "--allow-lower only applies together with --update-baseline" in done.stderr
