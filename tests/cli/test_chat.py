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


def test_a_restricted_figure_is_answered_only_in_a_session_cleared_for_it(
    workspace: Path,
) -> None:
    """The follow-up is re-answered at the session's clearance: the board-only H1 2026 figure
    (RESTRICTED in the quickstart set) is shown to a RESTRICTED session and never to the
    default CONFIDENTIAL one, whatever the earlier turn was."""
    (restricted,) = [f for f in quickstart_facts() if f.sensitivity == "RESTRICTED"]
    assert (restricted.metric_code, restricted.entity, restricted.period) == (
        "OPERATING_PROFIT",
        "ACME_GROUP",
        "2026",
    )
    lines = ("集团FY2025营运利润是多少", "那2026年上半年呢？")
    args = ["chat", "--workspace", str(workspace), "--reference-date", "2026-11-26", "--json"]
    board = runner.invoke(app, [*args, "--clearance", "RESTRICTED"], input="\n".join(lines))
    answers = [json.loads(line) for line in board.stdout.splitlines()]
    assert found_value(answers[0]) == value("OPERATING_PROFIT", "ACME_GROUP", "2025")
    (result,) = answers[1]["tool_results"]  # type: ignore[misc]
    assert result["value"] == restricted.value
    assert "沿用上一个问题" in str(answers[1]["answer"])
    first, follow = chat(workspace, *lines)  # the default clearance, CONFIDENTIAL
    assert found_value(first) == value("OPERATING_PROFIT", "ACME_GROUP", "2025")
    assert follow["answer_kind"] == "not_found"
    # every field but the random request id, which may hold the figure's digits by chance
    shown = json.dumps({k: v for k, v in follow.items() if k != "request_id"}, ensure_ascii=False)
    assert f"{restricted.value:g}" not in shown


def test_a_follow_up_to_a_ranking_ranks_the_same_units_for_the_new_year(workspace: Path) -> None:
    first, follow = chat(
        workspace, "Which region had the highest revenue in FY2024?", "And in FY2025?"
    )
    assert first["answer_kind"] == "found"
    answer = str(follow["answer"])
    assert answer.startswith("[Assumption] Revenue, Hong Kong / Mainland China / Macau / Group")
    ranked = [line for line in answer.splitlines() if line[:3] in ("1. ", "2. ")]
    hk, mo = value("REVENUE", "ACME_HK", "2025"), value("REVENUE", "ACME_MO", "2025")
    assert hk > mo  # the quickstart set has no Mainland China FY2025 revenue
    assert ranked[0].startswith(f"1. Hong Kong FY2025 Revenue: US$ {hk:,.0f} m (source: ")
    assert ranked[1].startswith(f"2. Macau FY2025 Revenue: US$ {mo:,.0f} m (source: ")
    assert "Not ranked (no figure found): Mainland China" in answer


def test_a_follow_up_asking_for_a_share_says_it_is_not_computed(workspace: Path) -> None:
    """ "占比呢？" keeps the previous question's slots and is answered "not computed", never
    with the plain figure; "为什么？" after it stays a prose question."""
    first, share, per_head, why = chat(
        workspace, "香港FY2024的收入是多少", "占比呢？", "and per head?", "为什么？"
    )
    figure = value("REVENUE", "ACME_HK", "2024")
    assert found_value(first) == figure
    assert share["answer_kind"] == "clarify"
    assert str(share["answer"]).startswith("未回答：问题要求「占比」")
    assert str(per_head["answer"]).startswith("Not answered: the question asks for 'per head'")
    for answer in (share, per_head):
        assert answer["tool_results"] == [] and answer["sources"] == []
        assert f"{figure:,.0f}" not in str(answer["answer"])
    assert why["answer_kind"] != "clarify" and "未回答" not in str(why["answer"])
    assert why["tool_results"] == []
