"""``ragspine chat``: a scripted conversation on standard input, follow-ups carrying the previous
question's slots. Expected figures come from the quickstart fact set, not from the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.demo.fixtures import quickstart_facts
from ragspine.eval.answer_values import stated_values

runner = CliRunner(env={"COLUMNS": "250"})


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "--workspace", str(ws)]).exit_code == 0
    assert runner.invoke(app, ["load-fixtures", "--workspace", str(ws)]).exit_code == 0
    return ws


def value(metric: str, entity: str, year: str) -> float:
    (fact,) = [
        f
        for f in quickstart_facts()
        if (f.metric_code, f.entity, f.period_type, f.period, f.channel)
        == (metric, entity, "FY", year, "TOTAL")
    ]
    return fact.value


def chat(workspace: Path, *lines: str, json_output: bool = True) -> list[dict[str, object]]:
    args = ["chat", "--workspace", str(workspace), "--reference-date", "2026-11-26"]
    result = runner.invoke(app, [*args, "--json"] if json_output else args, input="\n".join(lines))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()] if json_output else []


def found_value(answer: dict[str, object]) -> object:
    assert answer["answer_kind"] == "found", answer["answer"]
    (result,) = answer["tool_results"]  # type: ignore[misc]
    return result["value"]


def test_follow_ups_carry_the_previous_slots_and_new_starts_over(workspace: Path) -> None:
    answers = chat(
        workspace,
        "香港FY2024的收入是多少",
        "那FY2025呢？",
        "那营运利润呢？",
        "What about Hong Kong's operating profit in FY2024?",
        "/new",
        "And in FY2025?",
    )
    assert len(answers) == 5
    first, by_year, by_metric, fresh, after_new = answers
    assert found_value(first) == value("REVENUE", "ACME_HK", "2024")
    assert found_value(by_year) == value("REVENUE", "ACME_HK", "2025")
    assert str(by_year["answer"]).startswith("【假设】收入，香港，沿用上一个问题")
    assert found_value(by_metric) == value("OPERATING_PROFIT", "ACME_HK", "2025")
    assert str(by_metric["answer"]).startswith("【假设】香港，FY2025，沿用上一个问题")
    # A question naming every slot inherits nothing.
    assert found_value(fresh) == value("OPERATING_PROFIT", "ACME_HK", "2024")
    assert "previous question" not in str(fresh["answer"])
    assert after_new["answer_kind"] != "found"
    assert "previous question" not in str(after_new["answer"])


def test_the_plain_output_shows_the_assumption_and_the_sources(workspace: Path) -> None:
    args = ["chat", "--workspace", str(workspace)]
    result = runner.invoke(
        app, args, input="What was Hong Kong's revenue in FY2024?\nAnd in FY2023?\n"
    )
    assert result.exit_code == 0, result.output
    assert "[Assumption] Revenue, Hong Kong, from your previous question" in result.stdout
    wanted = (value("REVENUE", "ACME_HK", "2023"), "USD_M")
    assert wanted in [(v.value, v.unit) for v in stated_values(result.stdout)]
    assert result.stdout.count("Sources:") == 2


def test_an_over_long_line_is_refused_and_the_conversation_goes_on(workspace: Path) -> None:
    args = ["chat", "--workspace", str(workspace), "--json"]
    lines = "香港FY2024的收入是多少\n" + "x" * 3000 + "\n那FY2025呢？\n"
    result = runner.invoke(app, args, input=lines)
    assert result.exit_code == 0
    assert "error: the question is 3,000 characters long" in result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert found_value(answers[-1]) == value("REVENUE", "ACME_HK", "2025")
