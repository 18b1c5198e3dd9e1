from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.agent.agent import MAX_QUESTION_CHARS
from ragspine.cli import app
from tests.agent.fake_llm_server import FakeLLMServer, Reply

FOUND_Q = "中国内地FY2024的REVENUE是多少"
FOUND_LINE = (
    "中国内地 FY2024 收入：1,320 百万美元（来源：ACME_FY2024_Review.pptx · "
    "slide=2,table=1,row=REVENUE,col=FY2024）"
)
NOT_FOUND_Q = "中国内地FY2025的REVENUE是多少"
NOT_FOUND_LINE = "查不到：收入 / 中国内地 / FY2025（渠道 合计）未在事实表中找到。"

# Wide enough that Rich never wraps an answer line inside a quickstart panel.
runner = CliRunner(env={"COLUMNS": "250"})


def ragspine_command() -> list[str]:
    """The installed console script when there is one, else the module entry point."""
    script = Path(sys.executable).with_name("ragspine")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ragspine.cli"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "--workspace", str(ws)]).exit_code == 0
    assert runner.invoke(app, ["load-fixtures", "--workspace", str(ws)]).exit_code == 0
    return ws


def test_quickstart_shows_every_kind_of_answer() -> None:
    result = runner.invoke(app, ["quickstart"])

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert FOUND_LINE in out
    assert NOT_FOUND_LINE in out
    assert "【假设】未指定期间，按最近完整财年 FY2025 回答" in out
    assert "请问您想查询哪个指标？" in out
    assert "抱歉，本系统不提供关于「竞安保险」的任何信息" in out
    assert "Hong Kong FY2025 Revenue: US$ 2,710 m (source: ACME_FY2025_Results.xlsx" in out
    assert "变化（FY2025 较 FY2024）：+230 百万美元（+9.27%）" in out
    for kind in ("found", "not_found", "clarify", "refused"):
        assert f"answer_kind: {kind}" in out


def test_quickstart_runs_through_the_installed_entry_point() -> None:
    env = {**os.environ, "COLUMNS": "250"}
    done = subprocess.run(
        [*ragspine_command(), "quickstart"], capture_output=True, text=True, env=env, timeout=60
    )

    assert done.returncode == 0, done.stderr
    assert FOUND_LINE in done.stdout
    assert NOT_FOUND_LINE in done.stdout


def test_ask_prints_a_found_answer_and_its_sources(workspace: Path) -> None:
    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(workspace)])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        FOUND_LINE,
        "",
        "Sources:",
        "  - ACME_FY2024_Review.pptx · slide=2,table=1,row=REVENUE,col=FY2024",
    ]


def test_ask_not_found_is_an_answer_without_sources(workspace: Path) -> None:
    result = runner.invoke(app, ["ask", NOT_FOUND_Q, "--workspace", str(workspace)])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == NOT_FOUND_LINE
    assert "为避免误导，不提供任何推测数字" in lines[1]
    assert lines[-1] == "Sources: none"


def test_ask_json_prints_one_response_object_and_appends_a_private_trace(
    workspace: Path,
) -> None:
    traces = workspace / "traces.jsonl"
    before = traces.read_text(encoding="utf-8").splitlines() if traces.exists() else []

    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(workspace), "--json"])

    assert result.exit_code == 0, result.output
    assert "来源" in result.stdout  # UTF-8 kept, not \u-escaped
    body = json.loads(result.stdout)
    assert body["answer"] == FOUND_LINE
    assert body["route"] == "structured"
    assert body["answer_kind"] == "found"
    assert body["clarification"]["mode"] == "none"
    assert body["sources"] == [
        {"doc": "ACME_FY2024_Review.pptx", "locator": "slide=2,table=1,row=REVENUE,col=FY2024"}
    ]
    after = traces.read_text(encoding="utf-8").splitlines()
    assert len(after) == len(before) + 1
    event = json.loads(after[-1])
    assert event["request_id"] == body["request_id"]
    assert event["entity_codes"] == ["ACME_CN"]
    # Random ids and timings could contain any digits; the rest must hold no text or value.
    content = json.dumps(
        {k: v for k, v in event.items() if k not in ("request_id", "ts", "duration_ms")}
    )
    for private in (FOUND_Q, "中国内地", "来源", "1320"):
        assert private not in content


def test_ask_json_shape_for_a_clarifying_question(workspace: Path) -> None:
    args = ["ask", "香港FY2024的数据是多少", "--workspace", str(workspace), "--json"]
    result = runner.invoke(app, args)

    body = json.loads(result.stdout)
    assert body["answer_kind"] == "clarify"
    assert body["clarification"]["mode"] == "ask_first"
    assert body["clarification"]["question"] == body["answer"]
    assert body["sources"] == []


def test_ask_uses_the_reference_date_for_assumptions(workspace: Path) -> None:
    args = ["ask", "香港的收入是多少", "--workspace", str(workspace)]
    result = runner.invoke(app, [*args, "--reference-date", "2025-11-26"])

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("【假设】未指定期间，按最近完整财年 FY2024 回答")


def test_ask_clearance_controls_restricted_facts(workspace: Path) -> None:
    args = ["ask", "集团2026H1的营运利润是多少", "--workspace", str(workspace)]

    default = runner.invoke(app, args)
    cleared = runner.invoke(app, [*args, "--clearance", "restricted"])

    assert default.stdout.startswith("查不到：营运利润 / 集团 / 2026H1")
    assert cleared.stdout.startswith("集团 2026H1 营运利润：571 百万美元")


def test_ask_on_a_missing_workspace_exits_2_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"

    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(missing)])

    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert str(missing) in result.stderr
    assert not missing.exists()


def test_ask_on_a_folder_without_a_store_creates_no_store(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(tmp_path)])

    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--reference-date", "2026-13-01", "--reference-date '2026-13-01' is not a date"),
        ("--reference-date", "yesterday", "use YYYY-MM-DD"),
        ("--clearance", "TOP", "valid options: PUBLIC, INTERNAL, CONFIDENTIAL, RESTRICTED"),
        ("--model", "gpt-4o", "apply only to --provider openai or anthropic"),
    ],
)
def test_bad_option_values_exit_2_with_a_message(
    workspace: Path, option: str, value: str, message: str
) -> None:
    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(workspace), option, value])

    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("收入" * 21_000, "the question is 42,000 characters long; the limit is 2,000"),
        ("收入" * 1_000 + "?", "the question is 2,001 characters long"),
        ("", "the question is empty"),
        (" \t\u200b\n", "the question is empty"),
    ],
)
def test_empty_or_overlong_questions_exit_2_with_one_error_line(
    workspace: Path, question: str, message: str
) -> None:
    result = runner.invoke(app, ["ask", question, "--workspace", str(workspace)])

    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_a_question_at_the_length_limit_is_answered(workspace: Path) -> None:
    question = FOUND_Q.ljust(MAX_QUESTION_CHARS)
    result = runner.invoke(app, ["ask", question, "--workspace", str(workspace)])

    assert result.exit_code == 0, result.stderr
    assert FOUND_LINE in result.stdout


def test_unknown_provider_is_a_usage_error(workspace: Path) -> None:
    args = ["ask", FOUND_Q, "--workspace", str(workspace), "--provider", "gemini"]

    assert runner.invoke(app, args).exit_code == 2


def test_missing_provider_sdk_exits_2_naming_the_extra(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # makes `import openai` fail
    args = ["ask", FOUND_Q, "--workspace", str(workspace), "--provider", "openai"]

    result = runner.invoke(app, args)

    assert result.exit_code == 2
    assert "ragspine[llm]" in result.stderr


def test_malformed_workspace_profile_exits_2_naming_file_and_key(workspace: Path) -> None:
    (workspace / "profile.toml").write_text(
        '[company]\nname = "X"\nhome_entity = "X"\n', encoding="utf-8"
    )

    result = runner.invoke(app, ["ask", FOUND_Q, "--workspace", str(workspace)])

    assert result.exit_code == 2
    assert "profile.toml" in result.stderr
    assert "key 'entities'" in result.stderr


def test_openai_compatible_provider_cannot_change_the_number(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    slots: dict[str, object] = {
        "metric": "REVENUE",
        "entity": "ACME_CN",
        "period": "FY2024",
        "channel": "TOTAL",
    }
    with FakeLLMServer() as server:
        # A query for another entity first (its result goes back to the model), then prose.
        server.script(
            Reply.tool_call("query_metric", {**slots, "entity": "ACME_HK"}),
            Reply.text_reply("Revenue was 9999."),
        )
        args = ["ask", FOUND_Q, "--workspace", str(workspace), "--provider", "openai"]
        result = runner.invoke(app, [*args, "--base-url", server.openai_base_url])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == FOUND_LINE
    assert "9999" not in result.stdout and "9,999" not in result.stdout
    assert len(server.requests) == 2


def test_a_model_query_for_the_asked_slots_is_its_last_turn(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    slots = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2024", "channel": "TOTAL"}
    with FakeLLMServer() as server:
        server.script(Reply.tool_call("query_metric", slots), Reply.text_reply("Revenue was 9999."))
        args = ["ask", FOUND_Q, "--workspace", str(workspace), "--provider", "openai"]
        result = runner.invoke(app, [*args, "--base-url", server.openai_base_url])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == FOUND_LINE
    assert len(server.requests) == 1


def test_provider_failure_prints_a_number_free_answer_and_exits_1(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeLLMServer() as server:
        server.script(Reply.error(500, "boom"))
        args = ["ask", FOUND_Q, "--workspace", str(workspace), "--provider", "openai"]
        result = runner.invoke(app, [*args, "--base-url", server.openai_base_url, "--json"])

    assert result.exit_code == 1
    body = json.loads(result.stdout)
    assert body["answer_kind"] == "degraded"
    assert not any(ch.isdigit() for ch in body["answer"])


def test_init_is_idempotent_and_load_fixtures_needs_a_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "a" / "ws"

    first = runner.invoke(app, ["init", "--workspace", str(ws)])
    second = runner.invoke(app, ["init", "--workspace", str(ws)])
    missing = runner.invoke(app, ["load-fixtures", "--workspace", str(tmp_path / "none")])

    assert first.exit_code == second.exit_code == 0
    assert (ws / "ragspine.db").is_file()
    assert missing.exit_code == 2
    assert missing.stderr.startswith("error: ")
    assert not (tmp_path / "none").exists()


def test_init_load_fixtures_ask_round_trip_in_a_real_process(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ragspine_command(), *args],
            capture_output=True,
            encoding="utf-8",
            cwd=tmp_path,
            # A non-UTF-8 locale must not break Chinese output.
            env={**os.environ, "PYTHONIOENCODING": "ascii"},
            timeout=60,
        )

    assert run("init", "--workspace", "ws").returncode == 0
    loaded = run("load-fixtures", "--workspace", "ws")
    found = run("ask", FOUND_Q, "--workspace", "ws", "--json")
    missing = run("ask", FOUND_Q, "--workspace", "elsewhere")

    assert loaded.returncode == 0
    assert "Loaded 21 example facts" in loaded.stdout
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["answer"] == FOUND_LINE
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: workspace elsewhere does not exist")
    assert not (tmp_path / "elsewhere").exists()
    assert len((tmp_path / "ws" / "traces.jsonl").read_text(encoding="utf-8").splitlines()) == 1
