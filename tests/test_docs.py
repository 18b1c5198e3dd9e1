"""The documentation is executed, so it cannot drift from the code.

- The seeds' Python and script examples run exactly as written, in an empty folder.
- README.md and docs/*.md: each file's ```python blocks run in order in one fresh process (a
  block may use names from earlier blocks of the same file); a ```text block right after a
  ```python block is that code's expected output. In ```bash and ```console blocks every line
  starting with ``ragspine `` or ``python scripts/`` runs, in order, and must exit 0.
  ```shell blocks show commands that need a model server or an API key and are not run.
- Every answer shown in README's ```text blocks is what the engine answers today, and every
  ``error:`` line shown is what the CLI prints.
- Every CLI command and option has help text, and every command appears in README or
  docs/cli.md.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.cli import app
from ragspine.demo.fixtures import load_quickstart_facts, quickstart_facts
from ragspine.demo.quickstart import QUICKSTART_REFERENCE_DATE, SHOWCASES
from ragspine.profile.loader import example_profile_path
from ragspine.storage.fact_store import FactStore
from tests.test_cli import ragspine_command

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
CLI_DOC = REPO / "docs" / "cli.md"
DOC_FILES = [README, *sorted((REPO / "docs").glob("*.md"))]

# seeds/004, as written.
SEED_PYTHON = """\
from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.storage.fact_store import FactStore

store = FactStore("data/fact_metric.db"); store.init_schema()
result = answer_question("中国内地FY2024的REVENUE是多少", store, MockProvider())
print(result.answer)
print(result.sources)
"""
# seeds/003, as written (`python` is the interpreter running the tests).
SEED_ASK = (
    'python scripts/ask.py --provider mock --db data/fact_metric.db "中国内地FY2025的REVENUE是多少"'
)
LOAD_FIXTURES = "python scripts/load_fixtures.py --db data/fact_metric.db"

FOUND_LINE = (
    "中国内地 FY2024 收入：1,320 百万美元（来源：ACME_FY2024_Review.pptx · "
    "slide=2,table=1,row=REVENUE,col=FY2024）"
)
FOUND_SOURCES = (
    "[{'doc': 'ACME_FY2024_Review.pptx', 'locator': 'slide=2,table=1,row=REVENUE,col=FY2024'}]"
)
NO_GUESS = "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "250"}


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    """An empty folder that sees the repository's scripts, like the root of a checkout."""
    (tmp_path / "scripts").symlink_to(REPO / "scripts")
    return tmp_path


# A hang guard, not a speed target: `ragspine eval` asks ~900 golden questions (three splits)
# and takes about a minute on a busy two-core machine.
COMMAND_TIMEOUT = 180


def run_line(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    args = shlex.split(line)
    if args[0] == "ragspine":
        args = [*ragspine_command(), *args[1:]]
    elif args[0] == "python":
        args = [sys.executable, *args[1:]]
    return subprocess.run(
        args, cwd=cwd, capture_output=True, encoding="utf-8", env=ENV, timeout=COMMAND_TIMEOUT
    )


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        encoding="utf-8",
        env=ENV,
        timeout=60,
    )


# --------------------------------------------------------------------------- seeds


def test_seed_python_example_on_an_empty_store_says_not_found(project_dir: Path) -> None:
    done = run_python(SEED_PYTHON, project_dir)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "查不到：收入 / 中国内地 / FY2024（渠道 合计）未在事实表中找到。",
        NO_GUESS,
        "[]",
    ]


def test_seed_python_example_after_loading_fixtures(project_dir: Path) -> None:
    assert run_line(LOAD_FIXTURES, project_dir).returncode == 0

    done = run_python(SEED_PYTHON, project_dir)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [FOUND_LINE, FOUND_SOURCES]


def test_seed_ask_script_refuses_a_missing_store(project_dir: Path) -> None:
    done = run_line(SEED_ASK, project_dir)

    assert done.returncode == 2
    assert done.stderr.startswith("error: fact store data/fact_metric.db does not exist")
    assert done.stdout == ""
    assert not (project_dir / "data").exists()


def test_seed_ask_script_prints_only_the_answer(project_dir: Path) -> None:
    assert run_line(LOAD_FIXTURES, project_dir).returncode == 0

    not_found = run_line(SEED_ASK, project_dir)
    found = run_line(SEED_ASK.replace("FY2025", "FY2024"), project_dir)

    assert not_found.returncode == 0, not_found.stderr
    assert not_found.stdout.splitlines() == [
        "查不到：收入 / 中国内地 / FY2025（渠道 合计）未在事实表中找到。",
        NO_GUESS,
    ]
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines() == [FOUND_LINE]


def test_quickstart_facts_hold_the_seed_examples() -> None:
    facts = {fact.natural_key: fact for fact in quickstart_facts()}

    cn_2024 = facts[("REVENUE", "ACME_CN", "FY", "2024", "TOTAL")]
    assert (cn_2024.value, cn_2024.unit) == (1320.0, "USD_M")
    assert cn_2024.source_doc_id == "ACME_FY2024_Review.pptx"
    assert cn_2024.source_locator == "slide=2,table=1,row=REVENUE,col=FY2024"
    assert ("REVENUE", "ACME_CN", "FY", "2025", "TOTAL") not in facts
    assert len(facts) == len(quickstart_facts())  # no key twice


# --------------------------------------------------------------------------- doc blocks


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int


_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in _FENCE.finditer(text)
    ]


def command_lines(block: Block) -> list[str]:
    joined = block.code.replace("\\\n", " ")
    return [
        line.strip()
        for line in joined.splitlines()
        if line.strip().startswith(("ragspine ", "python scripts/"))
    ]


def _doc_id(path: Path) -> str:
    return str(path.relative_to(REPO))


def _docs_with(*langs: str) -> list[Path]:
    return [path for path in DOC_FILES if any(b.lang in langs for b in blocks(path))]


@pytest.mark.parametrize("path", _docs_with("python"), ids=_doc_id)
def test_python_blocks_run_and_print_what_is_shown(path: Path, project_dir: Path) -> None:
    found = blocks(path)
    python = [b for b in found if b.lang == "python"]
    code = "\n".join(f"# {path.name}:{b.line}\n{b.code}" for b in python)

    done = run_python(code, project_dir)

    assert done.returncode == 0, f"{path.name}: python blocks failed:\n{done.stderr}"
    for before, block in itertools.pairwise(found):
        if before.lang == "python" and block.lang == "text":
            for line in filter(None, block.code.splitlines()):
                assert line in done.stdout, f"{path.name}:{block.line}: not printed: {line}"


@pytest.mark.parametrize("path", _docs_with("bash", "console"), ids=_doc_id)
def test_command_blocks_run_and_exit_0(path: Path, project_dir: Path) -> None:
    lines = [
        line for b in blocks(path) if b.lang in ("bash", "console") for line in command_lines(b)
    ]

    for line in lines:
        done = run_line(line, project_dir)
        assert done.returncode == 0, (
            f"{path.name}: `{line}` exited {done.returncode}:\n{done.stderr}"
        )


def test_readme_starts_with_the_two_setup_commands() -> None:
    first = blocks(README)[0]

    assert README.read_text(encoding="utf-8").startswith("# RAGSpine\n\n```")
    assert [line.split("#")[0].strip() for line in first.code.splitlines()] == [
        "make demo",
        "make test",
    ]


# --------------------------------------------------------------------------- shown output

MORE_EXAMPLES = (
    "What was Macau revenue in FY2023?",
    "What was Hong Kong revenue?",
    "What was the Hong Kong figure in FY2024?",
    "What was Jingan Insurance revenue in FY2024?",
    "为什么香港FY2025收入增长",
    "What was Hong Kong revenue in FY2025 in billions?",
    "香港FY2025的收入是多少，换算成欧元",
)


def test_readme_answers_are_what_the_engine_answers() -> None:
    store = FactStore(":memory:")
    load_quickstart_facts(store)
    questions = [s.question for s in SHOWCASES] + list(MORE_EXAMPLES)
    answers = [
        answer_question(q, store, MockProvider(), reference_date=QUICKSTART_REFERENCE_DATE).answer
        for q in questions
    ]
    answer_lines = {line for answer in answers for line in answer.splitlines()}
    readme = README.read_text(encoding="utf-8")

    shown = [
        line
        for b in blocks(README)
        if b.lang == "text"
        for line in b.code.splitlines()
        if line and not line.startswith("error: ")
    ]
    assert shown
    assert [line for line in shown if line not in answer_lines] == []
    missing = [
        q for q, a in zip(questions, answers, strict=True) if a.splitlines()[0] not in readme
    ]
    assert missing == [], "README shows no answer for these questions"


def _shown_errors() -> set[str]:
    return {
        line
        for path in (README, CLI_DOC)
        for b in blocks(path)
        if b.lang == "text"
        for line in b.code.splitlines()
        if line.startswith("error: ")
    }


ERROR_COMMANDS = {
    "error: workspace ws2 does not exist; create it with `ragspine init --workspace ws2`": [
        "--workspace",
        "ws2",
    ],
    "error: --reference-date '2026-13-01' is not a date; use YYYY-MM-DD": [
        "--workspace",
        "ws",
        "--reference-date",
        "2026-13-01",
    ],
    "error: --clearance: unknown sensitivity 'TOP'; valid options: PUBLIC, INTERNAL, "
    "CONFIDENTIAL, RESTRICTED": ["--workspace", "ws", "--clearance", "TOP"],
    "error: --reference-date '0001-01-01' is out of range; use a date from 1900-01-01 to "
    "2200-12-31": ["--workspace", "ws", "--reference-date", "0001-01-01"],
    "error: No such option: --clearence (Possible options: --clearance); see "
    "`ragspine ask --help`": [
        "--workspace",
        "ws",
        "--clearence",
        "TOP",
    ],
    "error: ws/profile.toml: key 'company.home_entity': 'ACME_SG' is not one of the entity "
    "codes (ACME_GROUP, ACME_HK, ACME_CN, ACME_MO)": ["--workspace", "ws"],
}


def test_every_error_shown_is_what_the_cli_prints(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _shown_errors() == set(ERROR_COMMANDS)
    monkeypatch.chdir(project_dir)
    runner = CliRunner()
    assert runner.invoke(app, ["init", "--workspace", "ws"]).exit_code == 0
    profile = example_profile_path().read_text(encoding="utf-8")
    bad_profile = profile.replace('home_entity = "ACME_GROUP"', 'home_entity = "ACME_SG"')

    for line, options in ERROR_COMMANDS.items():
        if "profile.toml" in line:
            Path("ws/profile.toml").write_text(bad_profile, encoding="utf-8")
        result = runner.invoke(app, ["ask", "香港FY2025的收入是多少", *options])
        assert result.exit_code == 2
        assert result.stderr.strip() == line


# --------------------------------------------------------------------------- commands


def test_every_command_has_help_and_is_documented() -> None:
    group = typer.main.get_command(app)
    documented = README.read_text(encoding="utf-8") + CLI_DOC.read_text(encoding="utf-8")
    commands = getattr(group, "commands", {})
    assert commands

    problems = []
    for name, command in commands.items():
        if not (command.help or "").strip():
            problems.append(f"{name}: no help text")
        if f"ragspine {name}" not in documented:
            problems.append(f"{name}: not in README.md or docs/cli.md")
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                problems.append(f"{name}: {param.name} has no help text")
    assert problems == []
